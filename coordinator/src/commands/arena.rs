//! `coordinator arena`: serve the Trolley Problem Arena over HTTP ([`crate::arena`]) until
//! ctrl-c or SIGTERM.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::arena::{self, ArenaConfig, RateLimits};

/// Serve the Trolley Problem Arena: live trolley games for external agents over JSON/HTTP,
/// described by the OpenAPI document at /api/openapi.json. Games live in memory; the server
/// stops on ctrl-c or SIGTERM.
///
/// Protected by default: on a non-loopback --listen address it needs --admin-token-env (or
/// --allow-open-admin), and each client address may create and register only so often
/// (docs/topology.md, "The arena").
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on (port 0 picks a free port; the address in use is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Name of an environment variable holding the admin token. With it, POST
    /// /api/games/{game_id}/advance needs `Authorization: Bearer <token>`; without, it is open.
    #[arg(long, value_name = "VAR")]
    admin_token_env: Option<String>,
    /// Most games kept in memory. When full, creating a game evicts the oldest game that has
    /// ended, or else is refused with 503 too_many_games.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    max_games: u64,
    /// Games one client address may create per minute (in bursts of as many); past it, 429
    /// rate_limited with Retry-After. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().games_per_minute)]
    games_per_minute: u32,
    /// Agents one client address may register per minute (in bursts of as many); past it, 429
    /// rate_limited with Retry-After. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().registrations_per_minute)]
    registrations_per_minute: u32,
    /// Serve beyond loopback without an admin token, on purpose: /advance (which force-resolves
    /// any round) is then open to every client that can reach the arena. Without this flag the
    /// arena refuses to start on a non-loopback --listen address unless --admin-token-env is given.
    #[arg(long)]
    allow_open_admin: bool,
}

/// Serves until a shutdown signal.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Args { listen, admin_token_env, max_games, games_per_minute, registrations_per_minute, allow_open_admin } =
        args;
    let admin_token =
        admin_token_env.map(|var| arena::admin_token_from_env(&var)).transpose().map_err(anyhow::Error::msg)?;
    // Protected by default, as Redis's protected mode: an admin API open to the network is
    // something to ask for, not to get by binding 0.0.0.0.
    if admin_token.is_none() && !listen.ip().is_loopback() {
        if !allow_open_admin {
            anyhow::bail!(
                "refusing to serve the arena on {listen} without an admin token: POST /api/games/{{game_id}}/advance \
                 (which force-resolves any round) would be open to every client that can reach it. Give a token \
                 with --admin-token-env VAR, listen on loopback (--listen 127.0.0.1:PORT), or pass \
                 --allow-open-admin to open it on purpose"
            );
        }
        eprintln!("warning: --allow-open-admin: /advance is open to every client that can reach {listen}");
    }
    let config = ArenaConfig {
        admin_token,
        max_games: usize::try_from(max_games).unwrap_or(usize::MAX),
        rate_limits: RateLimits { games_per_minute, registrations_per_minute },
    };
    tokio::runtime::Runtime::new()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
        println!("arena listening on http://{}", listener.local_addr()?);
        arena::serve(listener, config, arena::shutdown_signal()).await?;
        anyhow::Ok(ExitCode::SUCCESS)
    })
}
