//! Handlers of the game-level endpoints (§12): create and list games, a game's lobby
//! (register, start) and its read-only views. Round actions and admin advances are in
//! `actions.rs`.
//!
//! Each handler resolves the game first (404), then reads its body or query (422), then calls
//! one rule or view of the trolley module under the game's lock: validation and state changes
//! belong to the rules.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use super::dto::feed::FeedItem;
use super::dto::responses::{Registered, Started};
use super::dto::view::{scoreboard, OpenActionsView, RoundRecord, ScoreEntry, StateView};
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use simfleet::games::trolley::{GameStatus, TrolleyState};

use super::body::{self, CreateGameBody, RegisterBody};
use super::error::{ApiError, ApiResult};
use super::game::ArenaGame;
use super::limit::retry_after_seconds;
use super::routes::GameId;
use super::view::{self, GameView};
use super::Arena;

/// The largest and default `limit` of `/feed`.
const FEED_LIMIT: (usize, usize) = (200, 50);

/// `GET /health`.
pub async fn health() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// `POST /api/games` → 201 Game.
pub async fn create_game(
    State(arena): State<Arc<Arena>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<GameView>)> {
    arena.creations.take(peer.ip(), Instant::now()).map_err(|wait| {
        ApiError::rate_limited("created games", arena.creations.per_minute(), retry_after_seconds(wait))
    })?;
    let new = body::parse_optional::<CreateGameBody>(&bytes)?.resolve()?;
    let seed = new.seed.unwrap_or_else(|| arena.ids.next_u64());
    let mut events = Vec::new();
    // A random round-id base per game, so a round id of another game does not resolve here.
    let state = TrolleyState::new_game(new.config, seed, arena.ids.next_u64(), &mut events)?;
    let game = ArenaGame::new(state, new.timing, events, Instant::now());
    let slot = arena.store.insert(|| arena.ids.id(), game)?;
    let view = GameView::new(&slot.id, &slot.lock(), false);
    Ok((StatusCode::CREATED, Json(view)))
}

/// `?status=`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    status: Option<String>,
}

/// `{games}`.
#[derive(Debug, Serialize)]
pub struct GameList {
    games: Vec<GameView>,
}

/// `GET /api/games?status=` → `{games}`, newest first.
pub async fn list_games(
    State(arena): State<Arc<Arena>>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> ApiResult<Json<GameList>> {
    let Query(query) = query.map_err(|e| ApiError::bad_query(e.body_text()))?;
    let status = match query.status {
        None => None,
        Some(s) => Some(GameStatus::parse(&s).ok_or_else(|| {
            let known: Vec<_> = GameStatus::ALL.iter().map(|s| s.as_str()).collect();
            ApiError::bad_query(format!("unknown status {s:?} (known: {})", known.join(", ")))
        })?),
    };
    let now = Instant::now();
    let games = arena
        .store
        .games()
        .iter()
        .filter_map(|slot| {
            let mut game = slot.lock();
            game.settle(now);
            let keep = status.is_none_or(|s| game.state().status() == s);
            keep.then(|| GameView::new(&slot.id, &game, false))
        })
        .collect();
    Ok(Json(GameList { games }))
}

/// `GET /api/games/{game_id}` → Game with `agents`.
pub async fn get_game(State(arena): State<Arc<Arena>>, GameId(id): GameId) -> ApiResult<Json<GameView>> {
    arena.with_game(&id, |game, _| Ok(Json(GameView::new(&id, game, true))))
}

/// `POST …/agents/register` → 201 `{game_id, agent_id, seat, token}`.
pub async fn register(
    State(arena): State<Arc<Arena>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    GameId(id): GameId,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<Registered>)> {
    arena.registrations.take(peer.ip(), Instant::now()).map_err(|wait| {
        ApiError::rate_limited("registered agents", arena.registrations.per_minute(), retry_after_seconds(wait))
    })?;
    let body = body::parse::<RegisterBody>(&bytes);
    arena.with_game(&id, |game, now| {
        let body = body?;
        let agent_id =
            std::iter::repeat_with(|| arena.ids.id()).find(|a| game.state().seat_of(a).is_err()).unwrap_or_default();
        let token = arena.ids.token();
        let seat = game.register(now, &body.display_name, agent_id.clone(), token.clone())?;
        Ok((StatusCode::CREATED, Json(Registered { game_id: id.clone(), agent_id, seat, token })))
    })
}

/// `POST …/start` → `{game_id, status, round_id, round_number: 1}`. Any body is ignored, but
/// read: hyper closes a kept-alive connection whose request body was left unread, which breaks
/// the client's next request on it.
pub async fn start(State(arena): State<Arc<Arena>>, GameId(id): GameId, _body: Bytes) -> ApiResult<Json<Started>> {
    arena.with_game(&id, |game, now| {
        let round = game.apply(now, |s, out| s.start(out))?;
        Ok(Json(Started::new(&id, game.state(), round)))
    })
}

/// `GET …/state` → State.
pub async fn state(State(arena): State<Arc<Arena>>, GameId(id): GameId) -> ApiResult<Json<StateView>> {
    arena.with_game(&id, |game, _| Ok(Json(view::state(&id, game))))
}

/// `?after=&limit=`.
#[derive(Debug, Deserialize)]
pub struct FeedQuery {
    after: Option<u64>,
    limit: Option<u64>,
}

/// `{game_id, items, last_seq}`.
#[derive(Debug, Serialize)]
pub struct FeedPage {
    game_id: String,
    items: Vec<FeedItem>,
    /// The `seq` of the last item returned (of the whole feed if none was): the `after` of the
    /// next poll.
    last_seq: u64,
}

/// `GET …/feed?after=&limit=`: with `after`, the first `limit` items with a larger `seq`;
/// otherwise the latest `limit` items; ascending `seq` either way.
pub async fn feed(
    State(arena): State<Arc<Arena>>,
    GameId(id): GameId,
    query: Result<Query<FeedQuery>, QueryRejection>,
) -> ApiResult<Json<FeedPage>> {
    arena.with_game(&id, |game, _| {
        let Query(query) = query.map_err(|e| ApiError::bad_query(e.body_text()))?;
        let (max, default) = FEED_LIMIT;
        let limit = match query.limit {
            None => default,
            Some(l) if (1..=max as u64).contains(&l) => l as usize,
            Some(l) => return Err(ApiError::bad_query(format!("limit must be 1..={max}, got {l}"))),
        };
        let feed = game.feed();
        // Item i has seq i + 1, so "seq > after" starts at index `after`.
        let start = match query.after {
            Some(after) => usize::try_from(after).map_or(feed.len(), |a| a.min(feed.len())),
            None => feed.len().saturating_sub(limit),
        };
        let items = feed[start..feed.len().min(start + limit)].to_vec();
        let last_seq = items.last().map_or(feed.len() as u64, |i| i.seq);
        Ok(Json(FeedPage { game_id: id.clone(), items, last_seq }))
    })
}

/// `{game_id, rounds}`.
#[derive(Debug, Serialize)]
pub struct History {
    game_id: String,
    rounds: Vec<RoundRecord>,
}

/// `GET …/history` → the resolved rounds, oldest first.
pub async fn history(State(arena): State<Arc<Arena>>, GameId(id): GameId) -> ApiResult<Json<History>> {
    arena.with_game(&id, |game, _| Ok(Json(History { game_id: id.clone(), rounds: view::history(game) })))
}

/// `{game_id, status, entries}`.
#[derive(Debug, Serialize)]
pub struct Scoreboard {
    game_id: String,
    status: GameStatus,
    entries: Vec<ScoreEntry>,
}

/// `GET …/scoreboard` → entries by score descending, then seat.
pub async fn scoreboard_of(State(arena): State<Arc<Arena>>, GameId(id): GameId) -> ApiResult<Json<Scoreboard>> {
    arena.with_game(&id, |game, _| {
        let state = game.state();
        Ok(Json(Scoreboard { game_id: id.clone(), status: state.status(), entries: scoreboard(state) }))
    })
}

/// `?agent_id=`.
#[derive(Debug, Deserialize)]
pub struct OpenActionsQuery {
    agent_id: Option<String>,
}

/// `GET …/open-actions?agent_id=` → OpenActions. Needs no token: everything in it is public.
pub async fn open_actions(
    State(arena): State<Arc<Arena>>,
    GameId(id): GameId,
    query: Result<Query<OpenActionsQuery>, QueryRejection>,
) -> ApiResult<Json<OpenActionsView>> {
    arena.with_game(&id, |game, _| {
        let Query(query) = query.map_err(|e| ApiError::bad_query(e.body_text()))?;
        let agent_id = query.agent_id.ok_or_else(|| ApiError::bad_query("agent_id is required"))?;
        let seat = game.state().seat_of(&agent_id)?;
        Ok(Json(view::open_actions(game, seat)?))
    })
}
