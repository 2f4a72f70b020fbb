//! `coordinator`: submit sweeps, play them in-process, watch, export and summarise results.
//! A thin edge over the `coordinator` library: it parses the flags, sets up logging and hands
//! each subcommand to its module in `commands/`, which returns the exit code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use coordinator::commands;

/// simfleet coordinator: expands a sweep (games × scenarios × policy sets × seeds) into episode
/// jobs, plays them in-process or through a fleet of workers over NATS JetStream, and exports and
/// summarises the episode records.
#[derive(Parser)]
#[command(version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each subcommand's help text is the doc comment of its `Args`.
#[derive(Subcommand)]
enum Command {
    Submit(commands::submit::Args),
    Watch(commands::watch::Args),
    Status(commands::status::Args),
    Results(commands::results::Args),
    Cancel(commands::cancel::Args),
    Priority(commands::priority::Args),
    Setup(commands::setup::Args),
    Run(commands::run::Args),
    Summary(commands::summary::Args),
    Records(commands::records::Args),
    Replay(commands::replay::Args),
    List(commands::list::Args),
    Rank(commands::rank::Args),
    Compare(commands::compare::Args),
    Report(commands::report::Args),
    Arena(commands::arena::Args),
}

fn main() -> ExitCode {
    commands::exit::quiet_on_closed_pipe();
    let cli = Cli::parse();
    // Warnings and errors on stderr (RUST_LOG=info for more); the progress bars and tables
    // are the normal output.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).init();
    let outcome = match cli.command {
        Command::Submit(args) => commands::submit::run(args),
        Command::Watch(args) => commands::watch::run(args),
        Command::Status(args) => commands::status::run(args),
        Command::Results(args) => commands::results::run(args),
        Command::Cancel(args) => commands::cancel::run(args),
        Command::Priority(args) => commands::priority::run(args),
        Command::Setup(args) => commands::setup::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Summary(args) => commands::summary::run(args),
        Command::Records(args) => commands::records::run(args),
        Command::Replay(args) => commands::replay::run(args),
        Command::List(args) => commands::list::run(args),
        Command::Rank(args) => commands::rank::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Arena(args) => commands::arena::run(args),
    };
    outcome.unwrap_or_else(|e| {
        if commands::exit::is_closed_pipe(&e) {
            return ExitCode::from(commands::exit::CLOSED_STDOUT);
        }
        eprintln!("error: {}", commands::exit::message(&e));
        ExitCode::from(2)
    })
}
