//! `coordinator`: submit sweeps, play them in-process, watch, export and summarise results.
//! A thin edge over the `coordinator` library: flags, logging, exit codes.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use coordinator::commands;
use simfleet::GameKind;

/// simfleet coordinator: expands a sweep (games × scenarios × policy sets × seeds) into episode
/// jobs, plays them in-process or through a fleet of workers over NATS JetStream, and exports and
/// summarises the episode records.
#[derive(Parser)]
#[command(version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a sweep in-process on all cores (no server needed), write every episode record to
    /// --out, then print the summary table. Results are identical to a fleet run.
    Run {
        /// The sweep file (TOML; see examples/).
        sweep: PathBuf,
        /// Output file; the format follows the extension: .jsonl, .csv or .msgpack.
        #[arg(long)]
        out: PathBuf,
        /// Threads to play on [default: all cores].
        #[arg(long)]
        threads: Option<usize>,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Print the summary table of a results file (.jsonl, .csv or .msgpack): per game, scenario
    /// and policy set, the episodes, mean team reward with 95% CI, outcome shares and mean length.
    Summary {
        /// The results file.
        file: PathBuf,
    },
    /// Write one episode's JSON replay (to stdout unless --out is given).
    Replay {
        /// The sweep file that defines the cell.
        sweep: PathBuf,
        /// The scenario string as written in the sweep.
        #[arg(long)]
        scenario: String,
        /// The policy set name.
        #[arg(long = "policy-set")]
        policy_set: String,
        /// The episode seed.
        #[arg(long)]
        seed: u64,
        /// The game, when several cells share the scenario and policy set.
        #[arg(long)]
        game: Option<GameKind>,
        /// Write the replay here instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// List the games, their scenarios (with overridable fields) and policies.
    List {
        /// Only this game.
        game: Option<GameKind>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run { sweep, out, threads, quiet } => {
            let report = commands::run(&sweep, &out, threads, !quiet)?;
            commands::print_report(&report, &out);
            Ok(if report.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Command::Summary { file } => {
            let summary = commands::summary(&file)?;
            print!("{}", summary.table());
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay { sweep, scenario, policy_set, seed, game, out } => {
            let text = commands::replay(&sweep, game, &scenario, &policy_set, seed)?;
            commands::write_text(&text, out.as_ref())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::List { game } => {
            print!("{}", coordinator::list::listing(&game.into_iter().collect::<Vec<_>>()));
            Ok(ExitCode::SUCCESS)
        }
    }
}
