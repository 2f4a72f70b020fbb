//! `coordinator run SWEEP --out FILE`: play a sweep in-process ([`crate::embedded`]), then print
//! the summary table, the throughput and any failed jobs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::embedded::{self, RunReport};
use crate::stop::report::StopFile;

/// Play a sweep in-process on all cores (no server needed), write every episode record to
/// --out, then print the summary table. Results are identical to a fleet run.
///
/// Cells with `llm` seats: before playing, each is printed with its expected model calls,
/// prompt and completion tokens, and, for models the sweep file's `[[llm_prices]]` prices, its
/// expected and most dollars; `llm_max_calls` and `llm_max_dollars` start no further model job
/// once the measured calls or spend reach them (exit 1, saying which); after playing, each
/// cell's calls, failed calls and fallbacks are printed, and more than
/// `llm_max_fallback_share` (default 0.05) of a cell's decisions falling back exits 1
/// (docs/llm.md).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep file (TOML; see examples/).
    sweep: PathBuf,
    /// Output file; the format follows the extension: .jsonl, .csv, .msgpack or .parquet.
    #[arg(long)]
    out: PathBuf,
    /// What to collect, overriding the sweep file for every cell: `records` (one row per
    /// episode) or `summary` (one mergeable aggregate per job, one row per cell in --out).
    #[arg(long, value_name = "MODE")]
    collect: Option<simfleet::protocol::Collect>,
    /// Threads to play on [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// Do not draw a progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Plays the sweep; exit code 1 when a job failed, or when more of a cell's `llm` decisions fell
/// back to the scripted policy than the sweep's `llm_max_fallback_share` (default 5%).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.sweep)
        .map_err(|e| anyhow::anyhow!("cannot read the sweep file {}: {e}", args.sweep.display()))?;
    let sweep = crate::sweep::Sweep::parse(&text, &args.sweep.display().to_string())?.with_collect(args.collect);
    eprint!("{}", crate::llm_tally::estimate(&sweep));
    let report = embedded::play(&args.sweep, &args.out, args.threads, !args.quiet, args.collect)?;
    print_report(&report, &args.out);
    print!("{}", crate::wasm_tally::table(&sweep, &report.summary));
    let models_ok = crate::llm_tally::check(&sweep, &args.out)?;
    Ok(if report.failures.is_empty() && models_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Prints a run's summary, failures and throughput to stdout.
fn print_report(report: &RunReport, out: &Path) {
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{}", report.summary.table());
    let secs = report.elapsed.as_secs_f64();
    let rate = report.episodes as f64 / secs.max(1e-9);
    match &report.cells {
        None => {
            let _ = writeln!(
                stdout,
                "\n{} episodes written to {} in {secs:.1} s ({rate:.0} episodes/s)",
                report.records,
                out.display()
            );
        }
        Some((path, rows)) => {
            let _ = writeln!(
                stdout,
                "\n{} episodes summarised into {rows} cells in {} in {secs:.1} s ({rate:.0} episodes/s)",
                report.episodes,
                path.display()
            );
            if report.records > 0 {
                let _ =
                    writeln!(stdout, "{} records of the records cells written to {}", report.records, out.display());
            }
        }
    }
    if let Some(stop) = &report.stop {
        print_stop(&mut stdout, stop, out);
    }
    if !report.failures.is_empty() {
        let _ = writeln!(stdout, "\n{} job(s) failed:", report.failures.len());
        for f in &report.failures {
            let _ = writeln!(stdout, "  job {}: {}", f.job, f.error);
        }
    }
}

/// A stopping sweep's decisions table, the episodes and core-seconds lines, and where the
/// decisions went: what `run` and `watch` print at the end.
pub(super) fn print_stop(stdout: &mut impl Write, stop: &crate::stop::report::StopReport, out: &Path) {
    let _ = write!(stdout, "\n{}", stop.table());
    let _ = writeln!(stdout, "\n{}\n{}", stop.episodes_line(), stop.core_seconds_line());
    let _ = writeln!(stdout, "decisions and the log of every look in {}", StopFile::path(out).display());
    if stop.empty {
        let _ = writeln!(
            stdout,
            "warning: an interval disagreed with an earlier look of the same question: the normal approximation does not hold there"
        );
    }
}
