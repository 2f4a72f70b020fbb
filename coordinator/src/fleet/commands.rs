//! The fleet commands as `main.rs` calls them: connect, draw progress, print what happened.
//! Each takes the resolved [`FleetSettings`] and returns the process exit code.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use super::{cancel, results, status, submit, watch, Fleet, FleetSettings};
use crate::commands::episode_bar;
use crate::sweep::Sweep;

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")
}

fn bar(show: bool, total: u64) -> ProgressBar {
    if show {
        episode_bar(total)
    } else {
        ProgressBar::hidden()
    }
}

/// `submit SWEEP [--watch --out F]`.
pub fn submit(
    settings: &FleetSettings,
    path: &Path,
    watch_out: Option<&Path>,
    progress: bool,
) -> anyhow::Result<ExitCode> {
    let definition = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let sweep = Sweep::parse(&definition, &path.display().to_string())?;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(settings).await?;
        let jobs_bar = if progress { ProgressBar::new(sweep.job_count()) } else { ProgressBar::hidden() };
        jobs_bar.set_style(
            ProgressStyle::with_template("{spinner} publishing {wide_bar} {human_pos}/{human_len} jobs  {per_sec}")
                .expect("the template is valid"),
        );
        let started = std::time::Instant::now();
        let report = submit::submit(&fleet, &sweep, &definition, &jobs_bar).await?;
        jobs_bar.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "{}: {} jobs ({} episodes): {} published, {} already answered, {} dropped as duplicates ({:.0} jobs/s)",
            report.sweep,
            report.jobs,
            sweep.episode_count(),
            report.published,
            report.skipped,
            report.duplicates,
            report.published as f64 / secs.max(1e-9)
        );
        // The sweep id alone on stdout, for scripts: `id=$(coordinator submit s.toml)`.
        println!("{}", report.sweep);
        match watch_out {
            Some(out) => watch_on(settings, &fleet, &report.sweep, out, progress).await,
            None => Ok(ExitCode::SUCCESS),
        }
    })
}

/// `watch ID --out F`.
pub fn watch(settings: &FleetSettings, id: &str, out: &Path, progress: bool) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let fleet = Fleet::connect(settings).await?;
        watch_on(settings, &fleet, id, out, progress).await
    })
}

async fn watch_on(
    settings: &FleetSettings,
    fleet: &Fleet,
    id: &str,
    out: &Path,
    progress: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(addr) = settings.metrics_listen {
        let bound = super::metrics::serve(addr).await?;
        eprintln!("serving simfleet_sweep_jobs on http://{bound}/metrics");
    }
    let bar = bar(progress, 0);
    let report = watch::watch(fleet, id, out, &bar).await?;
    if settings.metrics_listen.is_some() {
        // The final counts are recorded; let Prometheus see them before the listener goes away.
        super::metrics::await_next_scrape(super::metrics::FINAL_SCRAPE_TIMEOUT).await;
    }
    let secs = report.elapsed.as_secs_f64();
    let table = match &report.summary {
        Some(s) => s.table(),
        None => crate::commands::summary(out)?.table(),
    };
    print!("{table}");
    println!(
        "\n{}: {} of {} jobs written to {} ({} records this run in {:.1} s, {:.0} records/s; {} found in the file at start; {} duplicate results dropped)",
        report.sweep,
        report.jobs_done,
        report.jobs_total,
        out.display(),
        report.records_written,
        secs,
        report.records_written as f64 / secs.max(1e-9),
        report.resumed_jobs,
        report.duplicates,
    );
    if report.cancelled {
        println!("the sweep was cancelled");
    }
    print_failures(&report.failures);
    if !report.failures.is_empty() {
        println!("(also in {})", super::failures::FailureLog::path_for(out).display());
    }
    Ok(if report.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print_failures(failures: &[super::failures::FailedJob]) {
    if failures.is_empty() {
        return;
    }
    println!("\n{} job(s) failed:", failures.len());
    for f in failures {
        println!("  job {}: {} ({})", f.job, f.error, f.kind);
    }
}

/// `status [ID]`.
pub fn status(settings: &FleetSettings, id: Option<&str>) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let fleet = Fleet::connect(settings).await?;
        print!("{}", status::table(&status::status(&fleet, id).await?));
        Ok(ExitCode::SUCCESS)
    })
}

/// `results ID --out F`.
pub fn results(settings: &FleetSettings, id: &str, out: &Path, progress: bool) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let fleet = Fleet::connect(settings).await?;
        let report = results::export(&fleet, id, out, &bar(progress, 0)).await?;
        let total = report.jobs_total.map_or_else(|| "?".to_string(), |t| t.to_string());
        println!(
            "{id}: {} records of {} jobs (of {total}) written to {}; {} failed; {} duplicates skipped",
            report.records,
            report.jobs,
            out.display(),
            report.failures.len(),
            report.duplicates
        );
        print_failures(&report.failures);
        Ok(ExitCode::SUCCESS)
    })
}

/// `cancel ID`.
pub fn cancel(settings: &FleetSettings, id: &str) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let fleet = Fleet::connect(settings).await?;
        let report = cancel::cancel(&fleet, id).await?;
        println!(
            "{id}: cancelled; {} queued job(s) removed; jobs already taken are answered `cancelled`",
            report.purged
        );
        Ok(ExitCode::SUCCESS)
    })
}
