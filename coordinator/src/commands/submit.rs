//! `coordinator submit SWEEP [--watch --out FILE]`: publish a sweep's jobs to the fleet
//! ([`crate::fleet::submit`]), print the sweep id, and optionally watch it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::{runtime, watch, FleetArgs};
use crate::fleet::{self, Fleet};
use crate::progress;
use crate::sweep::Sweep;

/// Publish a sweep's jobs to the fleet over NATS JetStream and print the sweep id.
///
/// Submitting the same sweep again, however much later, publishes only the jobs never published
/// (the sweep's entry on the server records how far publishing got), so an interrupted submit
/// is finished by running it again, and a finished sweep stays done. With --watch, then watch
/// it.
///
/// Jobs are sized per cell: `episodes_per_job` from the file, else the game's default, except
/// that a cell with `llm` seats defaults to 20 episodes per job shared by its model seats
/// (⌈20 / k⌉ with k of them), so that its jobs spread over the fleet and each is a few minutes
/// of model time (docs/sweeps.md, "Episodes per job"). Before publishing, each cell with `llm`
/// seats is printed with its expected model calls, prompt and completion tokens, and, for
/// models the sweep file's `[[llm_prices]]` prices, its expected and most dollars; the sweep
/// keys `llm_max_calls` (each model job reserves its expected calls fleet-wide before it
/// starts; none starts once the reservations reach it) and `llm_max_dollars` (stops the sweep's
/// model jobs once the measured spend reaches it, watched by --watch) and `llm_max_fallback_share` (default 0.05:
/// exit 1 above it, records and summary cells alike) are in docs/llm.md.
///
/// Before publishing, each cell that collects records plays its first seeds (at most 200, about
/// 0.05 s of play) to measure them: cells whose jobs' results will be over the server's max_payload (1 MB by
/// default) get a warning naming the episodes_per_job that would fit one message; workers send
/// such results in parts, so no job is refused for its size.
///
/// A stopping sweep (a `[stop]` table, docs/sweeps.md "Stopping when the answer is known"):
/// submit publishes the jobs of its first round only, and `watch` (or --watch) plays the
/// rounds, publishing each open cell's next block once the checkpoint before it is decided
/// and logged. Its files and decisions are `coordinator run`'s.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep file (TOML; see examples/).
    sweep: PathBuf,
    /// Watch the sweep after submitting it (needs --out).
    #[arg(long, requires = "out")]
    watch: bool,
    /// With --watch: where the records go (.jsonl, .csv, .msgpack or .parquet).
    #[arg(long)]
    out: Option<PathBuf>,
    /// What to collect, overriding the sweep file for every cell: `records` (one row per
    /// episode) or `summary` (one mergeable aggregate per job, one row per cell in --out). A
    /// summary sweep has its own id.
    #[arg(long, value_name = "MODE")]
    collect: Option<simfleet::protocol::Collect>,
    /// The sweep's class on a shared fleet: workers take a `high` job whenever one waits, and
    /// a `low` one only when no other does. Overrides the file's `priority`; on a resubmission,
    /// the class the sweep has now stays unless this is given. Change it while the sweep runs
    /// with `coordinator priority`.
    #[arg(long, value_name = "CLASS", value_parser = ["high", "normal", "low"])]
    priority: Option<String>,
    /// The sweep's weight within its class (1 to 1000, default 1): while sweeps of one class
    /// have jobs waiting, each gets job slots in proportion to its share. Overrides the file's
    /// `share`.
    #[arg(long, value_name = "N", value_parser = super::priority::parse_share)]
    share: Option<u32>,
    /// Also publish again the jobs that were published and lost since (the jobs stream purged
    /// or deleted): every job with neither a result nor a message in the queue.
    #[arg(long)]
    republish: bool,
    /// Do not draw progress bars.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    fleet: FleetArgs,
    #[command(flatten)]
    metrics: super::MetricsArgs,
}

/// Publishes the jobs, then watches them with --watch (exit code 1 when a job failed).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings_with(Some(&args.metrics))?;
    let progress = !args.quiet;
    let path = &args.sweep;
    let definition = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let priority = args.priority.as_deref().map(str::parse).transpose().map_err(anyhow::Error::msg)?;
    let sweep = Sweep::parse(&definition, &path.display().to_string())?
        .with_collect(args.collect)
        .with_class(priority, args.share);
    // Stored with its modules named by hash, so that `watch` and `results` read it anywhere.
    let definition = crate::sweep::modules::portable_definition(&definition, &sweep.module_rewrites);
    if let Some(out) = args.out.as_deref().filter(|_| args.watch) {
        // Another process writing --out would stop the watch: say so before publishing.
        drop(fleet::output_lock::OutputLock::acquire(out)?);
    }
    eprint!("{}", crate::llm_tally::estimate(&sweep));
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        let jobs_bar = progress::publish_bar(progress, sweep.job_count());
        let started = std::time::Instant::now();
        let mode = if args.republish { fleet::submit::Mode::Republish } else { fleet::submit::Mode::Once };
        let report = fleet::submit::submit_with(&fleet, &sweep, &definition, mode, &jobs_bar).await?;
        jobs_bar.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "{}: {} jobs ({} episodes): {} published, {} published before, {} already answered, {} dropped as \
             duplicates ({:.0} jobs/s); status {}, priority {}, share {}",
            report.sweep,
            report.jobs,
            sweep.episode_count(),
            report.published,
            report.published_before,
            report.skipped,
            report.duplicates,
            report.published as f64 / secs.max(1e-9),
            format!("{:?}", report.status).to_lowercase(),
            report.priority,
            report.share,
        );
        if sweep.stop.is_some() {
            eprintln!(
                "{}: a stopping sweep: these are its first round's jobs (at most {} episodes in all); `coordinator \
                 watch {} --out FILE` plays the next rounds",
                report.sweep,
                sweep.episode_count(),
                report.sweep
            );
        }
        // The sweep id alone on stdout, for scripts: `id=$(coordinator submit s.toml)`.
        println!("{}", report.sweep);
        match args.out.as_deref().filter(|_| args.watch) {
            Some(out) => watch::follow(&settings, &fleet, &report.sweep, out, progress).await,
            None => Ok(ExitCode::SUCCESS),
        }
    })
}
