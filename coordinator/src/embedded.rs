//! Embedded mode: `coordinator run` plays a sweep in-process on all cores with the same
//! `run_job` the workers use, so its records are identical to a fleet run.
//!
//! Threads claim job indexes from a shared counter, play each job and `prepare` its result
//! (e.g. encode its rows: work that would otherwise pile up on the one writer); the caller's
//! thread puts the prepared results back in job order through a bounded reorder window, so the
//! output file is the same for any thread count and memory stays flat however long the sweep is.
//! [`play`] drives it into a results file and a summary.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::ProgressBar;
use simfleet::protocol::Collect;
use simfleet::{JobResult, RunEnv};

use crate::cell_table::{self, CellTable};
use crate::records::RecordWriter;
use crate::stop::block::Stopping;
use crate::stop::report::{StopFile, StopReport};
use crate::summary::Summary;
use crate::sweep::Sweep;

/// A failed job, as listed at the end of a run.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Job index.
    pub index: u64,
    /// The error, displayed.
    pub error: String,
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
    /// Episodes played (recorded or summarised).
    pub episodes: u64,
    /// Where the summary file went, and its rows, when cells collected summaries.
    pub cells: Option<(std::path::PathBuf, usize)>,
    /// Wall time.
    pub elapsed: Duration,
    /// What a stopping sweep (`[stop]`) decided and saved.
    pub stop: Option<crate::stop::report::StopReport>,
}

/// A played job, prepared on the thread that played it.
enum Played {
    /// Its rows, encoded for the output file, and its summary.
    Encoded { bytes: Vec<u8>, rows: u64, summary: Summary },
    /// The result itself: an error, or rows only the writer can place (Parquet).
    Result(JobResult),
}

/// Plays the sweep file at `sweep_path` on `threads` threads (default: every core) and writes
/// every record to `out`, in job order, with a progress bar on stderr when `progress` is set.
/// `collect` (`run --collect`) overrides the file's for every cell. Cells that collect
/// summaries are merged per cell, in job order, into a summary file
/// ([`cell_table::summary_path`]).
pub fn play(
    sweep_path: &Path,
    out: &Path,
    threads: Option<usize>,
    progress: bool,
    collect: Option<Collect>,
) -> anyhow::Result<RunReport> {
    let sweep = Sweep::load(sweep_path)?.with_collect(collect);
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if sweep.stop.is_some() {
        return play_stopping(&sweep, out, threads, progress);
    }
    let summaries = sweep.collects_summaries();
    let records_out = sweep.cells.iter().any(|c| c.collect == Collect::Records);
    let cells_path = cell_table::summary_path(&sweep, out);
    // Refused before anything is played, as a records file of an unknown format is.
    crate::records::AnyFormat::of(&cells_path)?;
    let mut writer = match records_out {
        true => {
            Some(RecordWriter::create(out, &sweep.games()).with_context(|| format!("cannot write {}", out.display()))?)
        }
        false => None,
    };
    let mut table = summaries.then(|| CellTable::new(&sweep));
    let bar = if progress { crate::progress::episode_bar(sweep.episode_count()) } else { ProgressBar::hidden() };
    let env = RunEnv { chat: crate::llm::llm_transport(), worker: "embedded".into() };
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    let mut episodes = 0;
    // Rows are encoded, each job summarised, and summary results aggregated on the thread that
    // played it: the writer only appends bytes in job order, so it keeps up with every core.
    let encoder = writer.as_ref().and_then(RecordWriter::encoder);
    // A summary job's result comes summarised from the play loop (`simfleet::run_job`).
    let prepare = |r: JobResult| -> anyhow::Result<Played> {
        match &encoder {
            Some(enc) if r.error.is_none() && r.summary.is_none() && !summaries => {
                let mut bytes = Vec::with_capacity(r.records.len() * 256);
                let rows = enc.encode_result(&r, &mut bytes)?;
                let mut summary = Summary::default();
                summary.add_result(&r)?;
                Ok(Played::Encoded { bytes, rows, summary })
            }
            _ => Ok(Played::Result(r)),
        }
    };
    run(&sweep, threads, &env, &prepare, &mut |index, played: anyhow::Result<Played>| {
        match played? {
            Played::Encoded { bytes, rows, summary: part } => {
                writer.as_mut().expect("records are encoded for a writer").write_encoded(&bytes, rows)?;
                summary.merge(&part)?;
                episodes += rows;
                bar.inc(rows);
            }
            Played::Result(r) => {
                if let Some(table) = table.as_mut() {
                    table.accept(&sweep, &r)?;
                }
                if let Some(e) = &r.error {
                    failures.push(Failure { index, error: e.to_string() });
                    bar.inc(sweep.job(index).map_or(0, |j| j.seeds.count));
                    return Ok(());
                }
                if r.summary.is_none() {
                    if let Some(w) = writer.as_mut() {
                        w.write_result(&r)?;
                    }
                }
                if table.is_none() {
                    summary.add_result(&r)?;
                }
                episodes += r.episodes();
                bar.inc(r.episodes());
            }
        }
        Ok(())
    })?;
    // finish, not flush: a Parquet file is complete only once its footer is written.
    let records = match writer {
        Some(w) => w.finish()?,
        None => 0,
    };
    let mut cells = None;
    if let Some(table) = table {
        let rows = table.rows()?;
        crate::records::cells::write_cells(&cells_path, &rows)
            .with_context(|| format!("cannot write {}", cells_path.display()))?;
        summary = cell_table::summary_of(&rows)?;
        cells = Some((cells_path, rows.len()));
    }
    bar.finish_and_clear();
    Ok(RunReport { summary, failures, records, episodes, cells, elapsed: started.elapsed(), stop: None })
}

/// Plays a stopping sweep: each round plays the next block of every open group (in parallel,
/// handed over in job order), then folds every group's checkpoint; the records (records cells)
/// go to `out` in that order, the summary cells' rows to the summary file.
fn play_stopping(sweep: &Sweep, out: &Path, threads: usize, progress: bool) -> anyhow::Result<RunReport> {
    let mut stopping = Stopping::new(sweep).expect("a sweep with [stop] has a plan");
    let records_out = sweep.cells.iter().any(|c| c.collect == Collect::Records);
    let cells_path = cell_table::summary_path(sweep, out);
    crate::records::AnyFormat::of(&cells_path)?;
    let mut writer = match records_out {
        true => {
            Some(RecordWriter::create(out, &sweep.games()).with_context(|| format!("cannot write {}", out.display()))?)
        }
        false => None,
    };
    let bar = if progress { crate::progress::episode_bar(sweep.episode_count()) } else { ProgressBar::hidden() };
    let env = RunEnv { chat: crate::llm::llm_transport(), worker: "embedded".into() };
    let started = Instant::now();
    let (mut summary, mut failures, mut episodes) = (Summary::default(), Vec::new(), 0);
    loop {
        let jobs = stopping.round_jobs(sweep);
        if jobs.is_empty() {
            break;
        }
        let job = |i: u64| jobs.get(i as usize).cloned();
        run_jobs(jobs.len() as u64, &job, threads, &env, &|r| r, &mut |_, r: JobResult| {
            stopping.accept(&r)?;
            if let Some(e) = &r.error {
                failures.push(Failure { index: r.index, error: e.to_string() });
                return Ok(());
            }
            if r.summary.is_none() {
                writer.as_mut().expect("records jobs have a writer").write_result(&r)?;
                summary.add_result(&r)?;
            }
            episodes += r.episodes();
            bar.inc(r.episodes());
            Ok(())
        })?;
        stopping.fold_round()?;
    }
    let records = match writer {
        Some(w) => w.finish()?,
        None => 0,
    };
    let mut cells = None;
    let rows = stopping.rows(sweep);
    if !rows.is_empty() {
        crate::records::cells::write_cells(&cells_path, &rows)
            .with_context(|| format!("cannot write {}", cells_path.display()))?;
        summary.merge(&cell_table::summary_of(&rows)?)?;
        cells = Some((cells_path, rows.len()));
    }
    bar.finish_and_clear();
    let report = StopReport::of(&stopping);
    let log_path = StopFile::path(out);
    let text = serde_json::to_string_pretty(&StopFile::of(&sweep.id, &stopping, &report))?;
    std::fs::write(&log_path, text + "\n").with_context(|| format!("cannot write {}", log_path.display()))?;
    let stop = Some(report);
    Ok(RunReport { summary, failures, records, episodes, cells, elapsed: started.elapsed(), stop })
}

/// Receives prepared results in job order.
pub trait ResultSink<T> {
    /// Called once per job, in increasing job index. An error stops the run.
    fn accept(&mut self, index: u64, prepared: T) -> anyhow::Result<()>;
}

impl<T, F: FnMut(u64, T) -> anyhow::Result<()>> ResultSink<T> for F {
    fn accept(&mut self, index: u64, prepared: T) -> anyhow::Result<()> {
        self(index, prepared)
    }
}

/// The lowest job index not yet handed to the sink; threads wait while they are too far ahead.
struct Window {
    written: Mutex<u64>,
    moved: Condvar,
}

/// Plays every job of `sweep` on `threads` threads, turns each result into a `T` with `prepare`
/// on the thread that played it, and hands them to `sink` in job order.
pub fn run<T: Send>(
    sweep: &Sweep,
    threads: usize,
    env: &RunEnv,
    prepare: &(dyn Fn(JobResult) -> T + Sync),
    sink: &mut dyn ResultSink<T>,
) -> anyhow::Result<()> {
    run_jobs(sweep.job_count(), &|i| sweep.job(i), threads, env, prepare, sink)
}

/// [`run`] over jobs `0..total` given by `job` (a sink index is a position in that range).
pub fn run_jobs<T: Send>(
    total: u64,
    job: &(dyn Fn(u64) -> Option<simfleet::protocol::Job> + Sync),
    threads: usize,
    env: &RunEnv,
    prepare: &(dyn Fn(JobResult) -> T + Sync),
    sink: &mut dyn ResultSink<T>,
) -> anyhow::Result<()> {
    let threads = threads.max(1);
    // Each thread may run this many jobs ahead of the writer: enough to keep every core busy
    // when job durations vary, small enough that buffered results stay a few megabytes.
    let ahead = (threads * 8) as u64;
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let window = Window { written: Mutex::new(0), moved: Condvar::new() };
    let (tx, rx) = mpsc::sync_channel::<(u64, T)>(threads * 2);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, window) = (&next, &stop, &window);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total || stop.load(Ordering::Relaxed) {
                    break;
                }
                {
                    // The mutex guards only a counter; waiting here is what bounds memory.
                    let mut written = window.written.lock().expect("window lock");
                    while i >= *written + ahead && !stop.load(Ordering::Relaxed) {
                        written = window.moved.wait(written).expect("window lock");
                    }
                }
                let Some(job) = job(i) else { break };
                if tx.send((i, prepare(crate::llm::run_job(&job, env)))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<u64, T> = BTreeMap::new();
        let mut expect = 0u64;
        let outcome = (|| -> anyhow::Result<()> {
            for (index, prepared) in rx.iter() {
                pending.insert(index, prepared);
                while let Some(r) = pending.remove(&expect) {
                    sink.accept(expect, r)?;
                    expect += 1;
                    *window.written.lock().expect("window lock") = expect;
                    window.moved.notify_all();
                }
            }
            Ok(())
        })();
        if outcome.is_err() {
            stop.store(true, Ordering::Relaxed);
            window.moved.notify_all();
            // Drain so no thread blocks on a full channel.
            for _ in rx.iter() {}
        }
        outcome
    })?;
    Ok(())
}
