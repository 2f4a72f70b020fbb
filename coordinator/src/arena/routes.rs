//! The route table (§12) and the path extractors.
//!
//! The router is built from one table, which [`routes`] also lists, so the OpenAPI test can
//! check that every route the server answers is documented.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::Method;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use simfleet::games::trolley::TrolleyError;

use super::error::ApiError;
use super::{actions, handlers, openapi, Arena};

/// The `{game_id}` of a game endpoint. A path that cannot be decoded names no game.
#[derive(Debug)]
pub struct GameId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for GameId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<GameId, ApiError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(GameId(id)),
            Err(_) => Err(TrolleyError::GameNotFound.into()),
        }
    }
}

/// The `{game_id}` and `{round_id}` of a round endpoint.
#[derive(Debug)]
pub struct RoundPath {
    /// The game id.
    pub game_id: String,
    /// The round id as sent (parsed after the game lookup).
    pub round_id: String,
}

impl<S: Send + Sync> FromRequestParts<S> for RoundPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<RoundPath, ApiError> {
        match Path::<(String, String)>::from_request_parts(parts, state).await {
            Ok(Path((game_id, round_id))) => Ok(RoundPath { game_id, round_id }),
            Err(_) => Err(TrolleyError::GameNotFound.into()),
        }
    }
}

/// Every route: method, path (in OpenAPI's `{param}` syntax, which axum 0.8 shares) and handler.
fn table() -> Vec<(Method, &'static str, MethodRouter<Arc<Arena>>)> {
    const GAME: &str = "/api/games/{game_id}";
    vec![
        (Method::GET, "/health", get(handlers::health)),
        (Method::GET, "/api/openapi.json", get(openapi::document)),
        (Method::POST, "/api/games", post(handlers::create_game)),
        (Method::GET, "/api/games", get(handlers::list_games)),
        (Method::GET, GAME, get(handlers::get_game)),
        (Method::POST, "/api/games/{game_id}/agents/register", post(handlers::register)),
        (Method::POST, "/api/games/{game_id}/start", post(handlers::start)),
        (Method::GET, "/api/games/{game_id}/state", get(handlers::state)),
        (Method::GET, "/api/games/{game_id}/feed", get(handlers::feed)),
        (Method::GET, "/api/games/{game_id}/history", get(handlers::history)),
        (Method::GET, "/api/games/{game_id}/scoreboard", get(handlers::scoreboard_of)),
        (Method::GET, "/api/games/{game_id}/open-actions", get(handlers::open_actions)),
        (Method::POST, "/api/games/{game_id}/rounds/{round_id}/arguments", post(actions::argue)),
        (Method::POST, "/api/games/{game_id}/rounds/{round_id}/skip", post(actions::skip)),
        (Method::POST, "/api/games/{game_id}/rounds/{round_id}/decision", post(actions::decide)),
        (Method::POST, "/api/games/{game_id}/advance", post(actions::advance)),
    ]
}

/// Every route the arena answers, as (method, path).
pub fn routes() -> Vec<(Method, &'static str)> {
    table().into_iter().map(|(method, path, _)| (method, path)).collect()
}

/// The router over `arena`.
pub fn router(arena: Arc<Arena>) -> Router {
    table().into_iter().fold(Router::new(), |router, (_, path, handler)| router.route(path, handler)).with_state(arena)
}
