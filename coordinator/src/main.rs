//! `coordinator`: submit sweeps, play them in-process, watch, export and summarise results.
//! A thin edge over the `coordinator` library: flags, logging, exit codes.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use coordinator::commands;
use coordinator::fleet::{self, FleetFlags, FleetSettings};
use simfleet::GameKind;

/// simfleet coordinator: expands a sweep (games × scenarios × policy sets × seeds) into episode
/// jobs, plays them in-process or through a fleet of workers over NATS JetStream, and exports and
/// summarises the episode records.
#[derive(Parser)]
#[command(version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Connection flags of the fleet commands (submit, watch, status, results, cancel).
#[derive(clap::Args)]
struct FleetArgs {
    /// NATS server URL, or a cluster's servers comma-separated (nats://a:4222,nats://b:4222)
    /// [default: $NATS_URL, else nats://127.0.0.1:4222]. Also SIMFLEET_COORDINATOR__NATS_URL or
    /// `nats_url` in --config.
    #[arg(long, global = true, value_name = "URL")]
    nats_url: Option<String>,
    /// A TOML file with `nats_url`, `metrics_listen`, `stream_replicas` (replicas of the streams
    /// and KV bucket, default 1; 3 on a three-server cluster) and an `[auth]` table (user +
    /// password, token, nkey_seed or creds_file, each also as *_file; tls_ca_file, tls_cert_file,
    /// tls_key_file), as the worker's.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Serve `simfleet_sweep_jobs` on http://ADDR/metrics while `watch` runs (for Prometheus);
    /// at the end, `watch` waits up to 15 s for one last scrape of the final counts.
    #[arg(long, global = true, value_name = "ADDR")]
    metrics_listen: Option<String>,
}

impl FleetArgs {
    fn settings(&self) -> anyhow::Result<FleetSettings> {
        let flags = FleetFlags {
            config: self.config.clone(),
            nats_url: self.nats_url.clone(),
            metrics_listen: self.metrics_listen.clone(),
        };
        let env: std::collections::HashMap<String, String> = std::env::vars().collect();
        Ok(FleetSettings::load(&flags, &env)?)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Publish a sweep's jobs to the fleet over NATS JetStream and print the sweep id.
    /// Submitting the same sweep again publishes nothing twice. With --watch, then watch it.
    Submit {
        /// The sweep file (TOML; see examples/).
        sweep: PathBuf,
        /// Watch the sweep after submitting it (needs --out).
        #[arg(long, requires = "out")]
        watch: bool,
        /// With --watch: where the records go (.jsonl, .csv, .msgpack or .parquet).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Do not draw progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Collect a submitted sweep's results into --out with a progress bar (episodes/s, ETA),
    /// until every job has a result or has failed; then print the summary and any failed jobs.
    /// Run it again with the same --out after an interruption: it resumes where it stopped.
    Watch {
        /// The sweep id that `submit` printed.
        id: String,
        /// Output file (.jsonl, .csv or .msgpack; .parquet cannot be resumed). Failed jobs go to
        /// FILE.failed.jsonl.
        #[arg(long)]
        out: PathBuf,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Show a sweep's state (or every sweep's) from any machine: jobs, queued, answered,
    /// written and failed, from the KV bucket and the streams.
    Status {
        /// The sweep id; all sweeps when absent.
        id: Option<String>,
    },
    /// Export a sweep's results again from the results stream into --out.
    Results {
        /// The sweep id.
        id: String,
        /// Output file; the format follows the extension.
        #[arg(long)]
        out: PathBuf,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Cancel a sweep: its queued jobs are removed and workers answer the rest `cancelled`.
    Cancel {
        /// The sweep id.
        id: String,
    },
    /// Create the JetStream topology (jobs, results and DLQ streams, the workers' consumer, the
    /// sweeps KV bucket) with `stream_replicas` replicas, or change the replicas of an existing
    /// one (e.g. after growing NATS from one server to three), and print each object with its
    /// leader. The admin's job: under the shipped permissions only the admin user may create or
    /// change the topology; on a server without permissions, `submit` creates it by itself.
    Setup,
    /// Play a sweep in-process on all cores (no server needed), write every episode record to
    /// --out, then print the summary table. Results are identical to a fleet run.
    Run {
        /// The sweep file (TOML; see examples/).
        sweep: PathBuf,
        /// Output file; the format follows the extension: .jsonl, .csv, .msgpack or .parquet.
        #[arg(long)]
        out: PathBuf,
        /// Threads to play on [default: all cores].
        #[arg(long)]
        threads: Option<usize>,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Print the summary table of a results file (.jsonl, .csv, .msgpack or .parquet): per game,
    /// scenario and policy set, the episodes, mean team reward with 95% CI, outcome shares and
    /// mean length.
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
    /// Rank policies by their contribution to team reward, from the results of a ranking sweep
    /// ([[rankings]] teams, e.g. examples/bb_ranking.toml). Fits team reward = block effect + the
    /// sum of the seated policies' contributions (fixed effects per scenario, or per scenario and
    /// seed when teams share seeds; ridge prior; closed form) and prints, per game and policy: the
    /// contribution with its 95% interval, the marginal value (mean team reward with minus
    /// without it), teams, seats filled and rank.
    Rank {
        /// The results file (.jsonl, .csv, .msgpack or .parquet).
        file: PathBuf,
        /// Take each policy set's seats from this sweep file (the one the records came from)
        /// instead of from team names, so hand-written policy sets count too.
        #[arg(long, value_name = "SWEEP")]
        sweep: Option<PathBuf>,
        /// Also write the ranking as CSV here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Ridge λ: pseudo-episodes pulling each contribution toward the roster average.
        #[arg(long, default_value_t = coordinator::rank::DEFAULT_RIDGE)]
        ridge: f64,
    },
    /// Write a self-contained HTML report of a results file (inline SVG, no network): summary
    /// table, outcome shares with 95% intervals, team-reward and episode-length histograms per
    /// cell, and the ranking when the policy sets are teams.
    Report {
        /// The results file (.jsonl, .csv, .msgpack or .parquet).
        file: PathBuf,
        /// The HTML file to write.
        #[arg(long)]
        out: PathBuf,
        /// Take each policy set's seats from this sweep file for the ranking (see `rank`).
        #[arg(long, value_name = "SWEEP")]
        sweep: Option<PathBuf>,
    },
    /// Serve the Trolley Problem Arena: live trolley games for external agents over JSON/HTTP,
    /// described by the OpenAPI document at /api/openapi.json. Games live in memory; the server
    /// stops on ctrl-c or SIGTERM.
    Arena {
        /// Address to listen on (port 0 picks a free port; the address in use is printed).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// Name of an environment variable holding the admin token. With it, POST
        /// /api/games/{game_id}/advance needs `Authorization: Bearer <token>`; without, it is open.
        #[arg(long, value_name = "VAR")]
        admin_token_env: Option<String>,
        /// Most games kept in memory. When full, creating a game evicts the oldest game that has
        /// ended, or else is refused with 503 too_many_games.
        #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
        max_games: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Warnings and errors on stderr (RUST_LOG=info for more); the progress bars and tables
    // are the normal output.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).init();
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
        Command::Submit { sweep, watch, out, quiet } => {
            let out = if watch { out } else { None };
            fleet::commands::submit(&cli.fleet.settings()?, &sweep, out.as_deref(), !quiet)
        }
        Command::Watch { id, out, quiet } => fleet::commands::watch(&cli.fleet.settings()?, &id, &out, !quiet),
        Command::Status { id } => fleet::commands::status(&cli.fleet.settings()?, id.as_deref()),
        Command::Results { id, out, quiet } => fleet::commands::results(&cli.fleet.settings()?, &id, &out, !quiet),
        Command::Cancel { id } => fleet::commands::cancel(&cli.fleet.settings()?, &id),
        Command::Setup => fleet::setup::run(&cli.fleet.settings()?),
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
        Command::Rank { file, sweep, out, ridge } => {
            let (fits, skipped) = coordinator::rank::rank(&file, sweep.as_deref(), ridge)?;
            print!("{}", coordinator::rank::table::table(&fits, &skipped));
            if let Some(out) = out {
                coordinator::rank::table::write_csv(&fits, &out)
                    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
                println!("ranking written to {}", out.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Report { file, out, sweep } => {
            let w = coordinator::report::report(&file, sweep.as_deref(), &out)?;
            println!(
                "report written to {}: {} episodes, {} cells, {} game(s) ranked",
                out.display(),
                w.episodes,
                w.cells,
                w.ranked
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Arena { listen, admin_token_env, max_games } => {
            use coordinator::arena;
            let admin_token =
                admin_token_env.map(|var| arena::admin_token_from_env(&var)).transpose().map_err(anyhow::Error::msg)?;
            let config =
                arena::ArenaConfig { admin_token, max_games: usize::try_from(max_games).unwrap_or(usize::MAX) };
            tokio::runtime::Runtime::new()?.block_on(async {
                let listener = tokio::net::TcpListener::bind(listen)
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
                println!("arena listening on http://{}", listener.local_addr()?);
                arena::serve(listener, config, arena::shutdown_signal()).await?;
                anyhow::Ok(ExitCode::SUCCESS)
            })
        }
    }
}
