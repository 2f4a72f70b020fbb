//! Handlers of the round actions (argue, skip, decide) and the admin advance (§12).
//!
//! The §6 order is kept by construction: (1) game and (2) round are resolved first, (3) the
//! body parsed before the lock is reported only then, (4) the agent and (5) its token are
//! checked here, and everything after — status, resolved round, role, phase, duplicate,
//! value — is the rule's own check, in its own order.

use std::sync::Arc;
use std::time::Instant;

use super::dto::responses::{Advanced, ArgumentAccepted, DecisionAccepted, SkipAccepted};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use simfleet::games::trolley::{AdvanceAction, ArgText, RoundId, SkipCause, TrolleyError};

use super::auth;
use super::body::{self, AdvanceBody, ArgumentBody, DecisionBody, SkipBody};
use super::error::ApiResult;
use super::game::ArenaGame;
use super::routes::{GameId, RoundPath};
use super::Arena;

impl Arena {
    /// [`Arena::with_game`] for a round endpoint: also resolves the round (`round_not_found`
    /// for an unknown id or one of another game).
    fn with_round<T>(
        &self,
        path: &RoundPath,
        f: impl FnOnce(&mut ArenaGame, RoundId, Instant) -> ApiResult<T>,
    ) -> ApiResult<T> {
        self.with_game(&path.game_id, |game, now| {
            let round: RoundId = path.round_id.parse()?;
            game.state().round_index(round)?;
            f(game, round, now)
        })
    }
}

/// Checks (4) the agent and (5) its bearer token; returns its seat.
fn agent(game: &ArenaGame, agent_id: &str, headers: &HeaderMap) -> Result<usize, TrolleyError> {
    let seat = game.state().seat_of(agent_id)?;
    game.authorize(seat, auth::bearer(headers))?;
    Ok(seat)
}

/// `POST …/rounds/{round_id}/arguments` → 201 `{argument_id, round_id, phase, phase_after}`.
pub async fn argue(
    State(arena): State<Arc<Arena>>,
    path: RoundPath,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<ArgumentAccepted>)> {
    let body = body::parse::<ArgumentBody>(&bytes);
    arena.with_round(&path, |game, round, now| {
        let body = body?;
        let seat = agent(game, &body.agent_id, &headers)?;
        let text = ArgText::new(&body.text);
        let acted = game.apply(now, |s, out| s.submit_argument(round, seat, &text, out))?;
        Ok((StatusCode::CREATED, Json(acted.into())))
    })
}

/// `POST …/rounds/{round_id}/skip` → `{round_id, phase, phase_after}`.
pub async fn skip(
    State(arena): State<Arc<Arena>>,
    path: RoundPath,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult<Json<SkipAccepted>> {
    let body = body::parse::<SkipBody>(&bytes);
    arena.with_round(&path, |game, round, now| {
        let seat = agent(game, &body?.agent_id, &headers)?;
        let acted = game.apply(now, |s, out| s.skip(round, seat, SkipCause::Agent, out))?;
        Ok(Json(acted.into()))
    })
}

/// `POST …/rounds/{round_id}/decision` → `{round_id, decision, survivors, lost, game_status}`.
pub async fn decide(
    State(arena): State<Arc<Arena>>,
    path: RoundPath,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult<Json<DecisionAccepted>> {
    let body = body::parse::<DecisionBody>(&bytes);
    arena.with_round(&path, |game, round, now| {
        let body = body?;
        let seat = agent(game, &body.agent_id, &headers)?;
        let resolution = game.apply(now, |s, out| s.submit_decision(round, seat, &body.decision, out))?;
        Ok(Json(DecisionAccepted::new(game.state(), &resolution)))
    })
}

/// `POST /api/games/{game_id}/advance` → the game after the advance. Needs the admin token
/// when the server has one. An empty body is `{"action": "next_phase"}`.
pub async fn advance(
    State(arena): State<Arc<Arena>>,
    GameId(id): GameId,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult<Json<Advanced>> {
    let body = body::parse_optional::<AdvanceBody>(&bytes);
    arena.with_game(&id, |game, now| {
        let body = body?;
        auth::admin(arena.admin_token.as_deref(), &headers)?;
        let action = AdvanceAction::parse(body.action.as_deref(), body.decision.as_deref())?;
        game.apply(now, |s, out| s.advance(action, out))?;
        Ok(Json(Advanced::new(&id, game.state())))
    })
}
