//! The commands that need no server: `run`, `summary`, `replay`, `list`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simfleet::protocol::{Job, SeedRange};
use simfleet::{GameKind, JobResult, RunEnv};

use crate::export::RecordWriter;
use crate::summary::Summary;
use crate::sweep::Sweep;

/// A progress bar counting episodes, with episodes/s and ETA; hidden when stderr is not a
/// terminal (logs and CI output stay clean).
pub fn episode_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} episodes  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid"),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// A failed job, as listed at the end of a run.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Job index.
    pub index: u64,
    /// The error, displayed.
    pub error: String,
}

/// A played job, prepared on the thread that played it.
enum Played {
    /// Its rows, encoded for the output file, and its summary.
    Encoded { bytes: Vec<u8>, rows: u64, summary: Summary },
    /// The result itself: an error, or rows only the writer can place (Parquet).
    Result(JobResult),
}

/// Figures of a finished run.
#[derive(Debug)]
pub struct RunReport {
    /// The summary table.
    pub summary: Summary,
    /// Failed jobs.
    pub failures: Vec<Failure>,
    /// Records written.
    pub records: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// `coordinator run SWEEP --out F [--threads N]`: plays the sweep in-process and writes every
/// record to `out`, in job order.
pub fn run(sweep_path: &Path, out: &Path, threads: Option<usize>, progress: bool) -> anyhow::Result<RunReport> {
    let sweep = Sweep::load(sweep_path)?;
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut writer =
        RecordWriter::create(out, &sweep.games()).with_context(|| format!("cannot write {}", out.display()))?;
    let bar = if progress { episode_bar(sweep.episode_count()) } else { ProgressBar::hidden() };
    let env = RunEnv { chat: llm_transport(), worker: "embedded".into() };
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    // Rows are encoded, and each job summarised, on the thread that played it: the writer
    // only appends bytes in job order, so it keeps up with every core.
    let encoder = writer.encoder();
    let prepare = |r: JobResult| -> anyhow::Result<Played> {
        match &encoder {
            Some(enc) if r.error.is_none() => {
                let mut bytes = Vec::with_capacity(r.records.len() * 256);
                let rows = enc.encode_result(&r, &mut bytes)?;
                let mut summary = Summary::default();
                summary.add_result(&r)?;
                Ok(Played::Encoded { bytes, rows, summary })
            }
            _ => Ok(Played::Result(r)),
        }
    };
    crate::embedded::run(&sweep, threads, &env, &prepare, &mut |index, played: anyhow::Result<Played>| {
        match played? {
            Played::Encoded { bytes, rows, summary: part } => {
                writer.write_encoded(&bytes, rows)?;
                summary.merge(&part)?;
                bar.inc(rows);
            }
            Played::Result(r) => {
                if let Some(e) = &r.error {
                    failures.push(Failure { index, error: e.to_string() });
                    bar.inc(sweep.job(index).map_or(0, |j| j.seeds.count));
                    return Ok(());
                }
                writer.write_result(&r)?;
                summary.add_result(&r)?;
                bar.inc(r.records.len() as u64);
            }
        }
        Ok(())
    })?;
    // finish, not flush: a Parquet file is complete only once its footer is written.
    let records = writer.finish()?;
    bar.finish_and_clear();
    Ok(RunReport { summary, failures, records, elapsed: started.elapsed() })
}

/// The HTTP(S) transport for `llm` seats, shared by the whole process ([`crate::llm`]).
pub fn llm_transport() -> Option<std::sync::Arc<dyn simfleet::llm::ChatTransport>> {
    Some(crate::llm::transport())
}

/// Prints a run's summary, failures and throughput to stdout.
pub fn print_report(report: &RunReport, out: &Path) {
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{}", report.summary.table());
    let secs = report.elapsed.as_secs_f64();
    let _ = writeln!(
        stdout,
        "\n{} episodes written to {} in {:.1} s ({:.0} episodes/s)",
        report.records,
        out.display(),
        secs,
        report.records as f64 / secs.max(1e-9)
    );
    if !report.failures.is_empty() {
        let _ = writeln!(stdout, "\n{} job(s) failed:", report.failures.len());
        for f in &report.failures {
            let _ = writeln!(stdout, "  job {}: {}", f.index, f.error);
        }
    }
}

/// `coordinator summary FILE`.
pub fn summary(file: &Path) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    let mut mixed = None;
    let cut = crate::import::for_each_row(file, |_, row| {
        if mixed.is_none() {
            if let Err(e) = summary.add_row(&row) {
                mixed = Some(e);
            }
        }
    })?;
    if let Some(e) = mixed {
        return Err(e.into());
    }
    if cut.is_some() {
        eprintln!("warning: {} ends with a partial record, which was skipped", file.display());
    }
    Ok(summary)
}

/// `coordinator replay SWEEP --scenario S --policy-set P --seed N [--records FILE]`: one
/// episode's JSON replay; with `records`, answered from the recorded exchanges ([`crate::llm`]).
pub fn replay(
    sweep_path: &Path,
    game: Option<GameKind>,
    scenario: &str,
    policy_set: &str,
    seed: u64,
    records: Option<&Path>,
) -> anyhow::Result<String> {
    let sweep = Sweep::load(sweep_path)?;
    let cells = sweep.find_cell(game, scenario, policy_set);
    let cell = match cells.as_slice() {
        [c] => *c,
        [] => {
            let known: Vec<String> =
                sweep.cells.iter().map(|c| format!("{} / {} / {}", c.game, c.scenario, c.policy_set.name)).collect();
            bail!(
                "the sweep has no cell with scenario {scenario:?} and policy set {policy_set:?}; its cells (game / scenario / policy set):\n  {}",
                known.join("\n  ")
            )
        }
        _ => bail!("several games have scenario {scenario:?} and policy set {policy_set:?}: add --game"),
    };
    let job = Job {
        protocol_version: simfleet::PROTOCOL_VERSION,
        sweep: sweep.id.clone(),
        index: 0,
        game: cell.game.as_str().into(),
        scenario: cell.scenario.clone(),
        policy_set: cell.policy_set.clone(),
        seeds: SeedRange { start: seed, count: 1 },
        replay: true,
    };
    if let Some(records) = records {
        let r = crate::llm::replay_recorded(&job, records)?;
        eprintln!(
            "replayed from {}: the record matches byte for byte; {} model call(s) answered from it, none made",
            records.display(),
            r.calls
        );
        return Ok(r.replay);
    }
    let result = simfleet::run_job(&job, &RunEnv { chat: llm_transport(), worker: "replay".into() });
    if let Some(e) = result.error {
        bail!("the episode could not be played: {e}");
    }
    result.replays.and_then(|mut r| r.pop()).context("the engine returned no replay")
}

/// Writes `text` to `out`, or to stdout when `out` is `None`.
pub fn write_text(text: &str, out: Option<&PathBuf>) -> anyhow::Result<()> {
    match out {
        Some(path) => {
            std::fs::write(path, format!("{text}\n")).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{text}")?;
            Ok(())
        }
    }
}
