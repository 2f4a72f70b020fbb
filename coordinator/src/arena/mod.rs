//! `coordinator arena`: the Trolley Problem Arena, live trolley games for external agents over
//! JSON/HTTP (the contract is the OpenAPI document `docs/arena.openapi.json`).
//!
//! The arena adds only ids, tokens, clocks, storage and HTTP around the trolley rules module
//! (`simfleet::games::trolley`): every change to a game is one call of its rules, and every
//! response shape but the Game summary (made of arena facts) is built from its state in `dto/`.
//!
//! # Layout
//!
//! - this file: [`ArenaConfig`], [`Arena`], [`serve`], [`shutdown_signal`].
//! - `routes.rs`: the route table, [`router`], [`routes`]; `handlers.rs`: games, lobby and
//!   views; `actions.rs`: arguments, skips, decisions, admin advance.
//! - `dto/`: the response shapes built from the rules' state (State, OpenActions, RoundRecord,
//!   scoreboard, error bodies in `view.rs`; feed items in `feed.rs`; the small success bodies
//!   in `responses.rs`): the trolley rules module knows no HTTP, so they live here, and import
//!   nothing of the arena but the rules.
//! - `body.rs`: request bodies; `view.rs`: the Game shape and the views' clock fields;
//!   `error.rs`: error responses; `auth.rs`: bearer tokens; `ids.rs`: ids, tokens, seeds.
//! - `limit.rs`: per-client rate limits on creating games and registering agents.
//! - `game.rs`: `ArenaGame`, a game with its tokens, feed and clocks;
//!   `store.rs`: the games, `--max-games` and eviction; `ticker.rs`: deadlines.
//! - `clock.rs`: RFC 3339 times; `openapi.rs`: serves the document.
//!
//! # Example
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use coordinator::arena::{serve, shutdown_signal, ArenaConfig};
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! serve(listener, ArenaConfig::default(), shutdown_signal()).await
//! # }
//! ```

mod actions;
mod auth;
mod body;
mod clock;
mod dto;
mod error;
mod game;
mod handlers;
mod ids;
mod limit;
mod openapi;
mod routes;
mod store;
mod ticker;
mod view;

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;

pub use auth::admin_token_from_env;
pub use limit::RateLimits;
pub use routes::{router, routes};
pub use ticker::TICK;

use error::ApiResult;
use game::ArenaGame;
use ids::IdSource;
use store::Store;

/// The arena's settings (`coordinator arena` flags).
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// When set, `POST /api/games/{game_id}/advance` needs `Authorization: Bearer <token>`.
    pub admin_token: Option<String>,
    /// The most games kept in memory (`--max-games`, default 1000).
    pub max_games: usize,
    /// Per-client limits on creating games and registering agents.
    pub rate_limits: RateLimits,
}

impl Default for ArenaConfig {
    fn default() -> ArenaConfig {
        ArenaConfig { admin_token: None, max_games: 1000, rate_limits: RateLimits::default() }
    }
}

/// The arena's shared state: the games, the id source and the admin token.
#[derive(Debug)]
pub struct Arena {
    store: Arc<Store>,
    ids: IdSource,
    admin_token: Option<String>,
    creations: limit::Limiter,
    registrations: limit::Limiter,
}

impl Arena {
    /// An empty arena.
    pub fn new(config: ArenaConfig) -> Arc<Arena> {
        Arc::new(Arena {
            store: Arc::new(Store::new(config.max_games)),
            ids: IdSource::default(),
            admin_token: config.admin_token,
            creations: limit::Limiter::new(config.rate_limits.games_per_minute),
            registrations: limit::Limiter::new(config.rate_limits.registrations_per_minute),
        })
    }

    /// Runs `f` on game `id` under its lock, after applying its overdue deadlines (§12: before
    /// any request on the game is handled).
    fn with_game<T>(&self, id: &str, f: impl FnOnce(&mut ArenaGame, Instant) -> ApiResult<T>) -> ApiResult<T> {
        let slot = self.store.get(id)?;
        let mut game = slot.lock();
        let now = Instant::now();
        game.settle(now);
        f(&mut game, now)
    }
}

/// Serves the arena on `listener` until `shutdown` completes, with a ticker applying deadlines
/// in the background; then finishes the requests in flight and returns.
pub async fn serve(
    listener: TcpListener,
    config: ArenaConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let arena = Arena::new(config);
    let ticker = tokio::spawn(ticker::run(arena.store.clone()));
    // Small JSON answers: without TCP_NODELAY, Nagle's algorithm and delayed ACKs can hold a
    // response back for tens of milliseconds on a kept-alive connection.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    // The peer's address (the rate limits' client) reaches handlers as `ConnectInfo`.
    let app = router(arena).into_make_service_with_connect_info::<std::net::SocketAddr>();
    let served = axum::serve(listener, app).with_graceful_shutdown(shutdown).await;
    ticker.abort();
    served
}

/// Completes on ctrl-c or SIGTERM (what Kubernetes sends).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            // Without a SIGTERM handler, ctrl-c still stops the arena.
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
