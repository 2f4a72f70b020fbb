//! `coordinator list [GAME]`: the games, their scenarios and their policies.

use std::fmt::Write as _;
use std::process::ExitCode;

use simfleet::GameKind;

/// List the games, their scenarios (with overridable fields) and policies.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only this game.
    game: Option<GameKind>,
}

/// Prints the listing.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    print!("{}", listing(&args.game.into_iter().collect::<Vec<_>>()));
    Ok(ExitCode::SUCCESS)
}

/// The listing of `games` (every game when empty), for a terminal.
pub fn listing(games: &[GameKind]) -> String {
    let games: Vec<GameKind> = if games.is_empty() { GameKind::ALL.to_vec() } else { games.to_vec() };
    let mut out = String::new();
    for (i, g) in games.iter().enumerate() {
        let info = g.info();
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}  ({}, engine {})", g, info.rules_version, simfleet::engine_version(*g));
        let win = info.win_outcome.map_or("none (summaries show mean team reward)".to_string(), |w| w.to_string());
        let _ = writeln!(out, "  outcomes: {}; win outcome: {win}", info.outcomes.join(", "));
        let _ = writeln!(out, "  scenarios (first is the default; override fields with NAME?field=value&...):");
        let width = info.scenarios.iter().map(|e| e.name.len()).max().unwrap_or(0);
        for e in info.scenarios {
            let _ = writeln!(out, "    {:width$}  {}", e.name, e.about);
        }
        let _ = writeln!(out, "  policies (one spec per seat in a policy set):");
        let width = info.policies.iter().map(|e| e.name.len()).max().unwrap_or(0);
        for e in info.policies {
            let _ = writeln!(out, "    {:width$}  {}", e.name, e.about);
        }
        if !info.stat_keys.is_empty() {
            let _ = writeln!(out, "  stats: {}", info.stat_keys.join(", "));
        }
    }
    out
}
