//! `coordinator arena`: serve the Trolley Problem Arena over HTTP ([`crate::arena`]) until
//! ctrl-c or SIGTERM.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::arena::{self, ArenaConfig};

/// Serve the Trolley Problem Arena: live trolley games for external agents over JSON/HTTP,
/// described by the OpenAPI document at /api/openapi.json. Games live in memory; the server
/// stops on ctrl-c or SIGTERM.
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
}

/// Serves until a shutdown signal.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Args { listen, admin_token_env, max_games } = args;
    let admin_token =
        admin_token_env.map(|var| arena::admin_token_from_env(&var)).transpose().map_err(anyhow::Error::msg)?;
    let config = ArenaConfig { admin_token, max_games: usize::try_from(max_games).unwrap_or(usize::MAX) };
    tokio::runtime::Runtime::new()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
        println!("arena listening on http://{}", listener.local_addr()?);
        arena::serve(listener, config, arena::shutdown_signal()).await?;
        anyhow::Ok(ExitCode::SUCCESS)
    })
}
