//! `coordinator watch ID --out FILE`: collect a submitted sweep's results into a file
//! ([`crate::fleet::watch`]) with a progress bar, then print the summary and any failed jobs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{print_failures, runtime, FleetArgs};
use crate::fleet::{self, Fleet, FleetSettings};
use crate::progress;

/// Collect a submitted sweep's results into --out with a progress bar (episodes/s, ETA),
/// until every job has a result or has failed; then print the summary and any failed jobs.
/// Run it again with the same --out after an interruption: it resumes where it stopped.
///
/// A stopping sweep (`[stop]`) is played round by round: when every job of a round has its
/// result, its records are written in job order, every cell's checkpoint is decided, the
/// decisions are logged under `<sweep>.stop` in the sweeps KV bucket, and the next round's
/// jobs are published; at the end it prints the decisions and what they saved, as
/// `coordinator run` does, and writes FILE's `<stem>.stop.json`. Run again, it reads every
/// result from the start, checks each logged decision against its replay (a difference is an
/// error naming the group and the checkpoint), and rewrites FILE from scratch.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id that `submit` printed.
    id: String,
    /// Output file (.jsonl, .csv or .msgpack; .parquet cannot be resumed). Failed jobs go to
    /// FILE.failed.jsonl.
    #[arg(long)]
    out: PathBuf,
    /// Do not draw a progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    fleet: FleetArgs,
    #[command(flatten)]
    metrics: super::MetricsArgs,
}

/// Watches the sweep to its end; exit code 1 when a job failed.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings_with(Some(&args.metrics))?;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        follow(&settings, &fleet, &args.id, &args.out, !args.quiet).await
    })
}

/// Watches sweep `id` into `out` on an open connection (`watch`, and `submit --watch`).
pub(super) async fn follow(
    settings: &FleetSettings,
    fleet: &Fleet,
    id: &str,
    out: &Path,
    progress: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(addr) = settings.metrics_listen {
        let bound = fleet::metrics::serve(addr).await?;
        eprintln!("serving simfleet_sweep_jobs on http://{bound}/metrics");
    }
    // Stopped by ctrl-c or SIGTERM: what was written is synced and acknowledged batch by batch,
    // so the same command later resumes; 130, as shells report an interrupted command.
    let report = tokio::select! {
        report = fleet::watch::watch(fleet, id, out, progress) => report?,
        () = interrupted() => {
            eprintln!("watch interrupted; run the same command again to resume {}", out.display());
            return Ok(ExitCode::from(130));
        }
    };
    if let Some(addr) = settings.metrics_listen {
        // The final counts are recorded; let Prometheus see them before the listener goes away.
        if progress {
            eprintln!(
                "waiting up to {} s for Prometheus to scrape the final counts from {addr} (--metrics-listen)",
                fleet::metrics::FINAL_SCRAPE_TIMEOUT.as_secs()
            );
        }
        fleet::metrics::await_next_scrape(fleet::metrics::FINAL_SCRAPE_TIMEOUT).await;
    }
    print_report(&report, out)?;
    let wasm = match &report.summary {
        Some(s) => crate::wasm_tally::table(&report.definition, s),
        None => crate::wasm_tally::table_of_file(&report.definition, out)?,
    };
    print!("{wasm}");
    // Model calls, failures and fallbacks of the cells with `llm` seats; too many fallbacks fail.
    let models_ok = crate::llm_tally::check(&report.definition, out)?;
    Ok(if report.failures.is_empty() && models_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Prints a watch's end: the summary table (read from the file when the watch resumed it),
/// what was written, what was recovered, a stopping sweep's decisions, the failures.
fn print_report(report: &fleet::watch::WatchReport, out: &Path) -> anyhow::Result<()> {
    let secs = report.elapsed.as_secs_f64();
    let table = match &report.summary {
        Some(s) => s.table(),
        None => super::summary::summarise(&crate::records::Input::file(out)?)?.table(),
    };
    // A sweep cancelled before any result has no cells: no table of none.
    if !table.trim().is_empty() && report.jobs_done > 0 {
        print!("{table}");
    }
    match &report.cells {
        None => println!(
            "\n{}: {} of {} jobs written to {} ({} records this run in {:.1} s, {} records/s; {} found in the file at start; {} duplicate results dropped)",
            report.sweep,
            report.jobs_done,
            report.jobs_total,
            out.display(),
            report.records_written,
            secs,
            progress::plain_rate(report.records_written as f64 / secs.max(1e-9)),
            report.resumed_jobs,
            report.duplicates,
        ),
        Some((path, rows)) => println!(
            "\n{}: {} of {} jobs summarised into {rows} cells in {} ({} episodes in {:.1} s, {} episodes/s; {} records of records cells in {}; {} duplicate results dropped)",
            report.sweep,
            report.jobs_done,
            report.jobs_total,
            path.display(),
            report.episodes,
            secs,
            progress::plain_rate(report.episodes as f64 / secs.max(1e-9)),
            report.records_written,
            out.display(),
            report.duplicates,
        ),
    }
    if report.replayed + report.reread > 0 {
        println!(
            "recovered from the servers' losses: {} jobs published again (no result, no job message), {} results read again from the results stream (acknowledged earlier, missing from the file)",
            report.replayed, report.reread
        );
    }
    if let Some(stop) = &report.stop {
        super::run::print_stop(&mut std::io::stdout().lock(), &stop.report, out);
        let key = fleet::watch::stop_log::key(&report.sweep);
        match stop.logged {
            0 => println!("every look logged under {key} in the sweeps bucket"),
            n => println!("resumed: {n} logged looks under {key} in the sweeps bucket replayed, each equal to its log"),
        }
        println!("{} jobs published by this watch", stop.published);
    }
    if report.cancelled {
        println!("the sweep was cancelled");
    }
    if let Some(why) = &report.llm_stopped {
        println!("{why}");
    }
    print_failures(&report.failures);
    if !report.failures.is_empty() {
        println!("(also in {})", fleet::failures::FailureLog::path_for(out).display());
    }
    Ok(())
}

/// Completes on ctrl-c or SIGTERM.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
