//! Embedded mode: `coordinator run` plays a sweep in-process on all cores with the same
//! `run_job` the workers use, so its records are identical to a fleet run.
//!
//! Threads claim job indexes from a shared counter, play each job and `prepare` its result
//! (e.g. encode its rows: work that would otherwise pile up on the one writer); the caller's
//! thread puts the prepared results back in job order through a bounded reorder window, so the
//! output file is the same for any thread count and memory stays flat however long the sweep is.
//! [`play`] drives it, round by round, into the [`Collector`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use simfleet::protocol::Collect;
use simfleet::{JobResult, RunEnv};

use crate::collector::failures::FailedJob;
use crate::collector::{Collector, FailureFile, Output, Prepared};
use crate::llm_spend::SpendGate;
use crate::progress::Progress;
use crate::stop::block::Stopping;
use crate::summary::Summary;
use crate::sweep::Sweep;

/// Figures of a finished run.
#[derive(Debug)]
pub struct RunReport {
    /// The summary table.
    pub summary: Summary,
    /// Failed jobs, in job order.
    pub failures: Vec<FailedJob>,
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

/// Plays the sweep file at `sweep_path` on `threads` threads (default: every core) and writes
/// every record to `out`, in job order, with a progress bar on stderr when `progress` is set.
/// `collect` (`run --collect`) overrides the file's for every cell. Cells that collect
/// summaries are merged per cell, in job order, into a summary file
/// ([`crate::collector::cell_merge::summary_path`]). A stopping sweep plays round by round,
/// each round's results delivered in job order, then folded.
pub fn play(
    sweep_path: &Path,
    out: &Path,
    threads: Option<usize>,
    progress: bool,
    collect: Option<Collect>,
) -> anyhow::Result<RunReport> {
    let sweep = Sweep::load(sweep_path)?.with_collect(collect);
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stopping = sweep.stop.is_some().then(|| Stopping::new(&sweep).expect("a sweep with [stop] has a plan"));
    let gate = SpendGate::of(&sweep);
    let mut collector = Collector::create(
        Some(sweep.clone()),
        out,
        Output::Create,
        FailureFile::None,
        stopping,
        Progress::new(progress),
    )?;
    let env = RunEnv { chat: crate::llm::llm_transport(), worker: "embedded".into(), agents: None };
    let started = Instant::now();
    // Rows are encoded, each job summarised, on the thread that played it: the collector only
    // appends bytes in job order, so it keeps up with every core.
    let encoder = collector.encoder();
    let stamps = sweep.has_wasm;
    let prepare = |mut r: JobResult| {
        if stamps {
            crate::sweep::modules::stamp(&sweep, &mut r);
        }
        Prepared::of(r, encoder.as_ref())
    };
    while let Some(round) = collector.next_round() {
        let job = |i: u64| round.job(&sweep, i);
        let play = Play { threads, env: &env, gate: gate.as_ref() };
        run_jobs(round.len(), &job, &play, &prepare, &mut |_, prepared: anyhow::Result<Prepared>| {
            collector.deliver_prepared(prepared?)
        })?;
        collector.end_round()?;
    }
    let c = collector.finish()?;
    Ok(RunReport {
        summary: c.summary,
        failures: c.failures,
        records: c.records,
        episodes: c.episodes,
        cells: c.cells,
        elapsed: started.elapsed(),
        stop: c.stop,
    })
}

/// How jobs are played: on how many threads, in which environment, under which model spend
/// limit.
pub struct Play<'a> {
    /// Threads.
    pub threads: usize,
    /// The environment (the model transport).
    pub env: &'a RunEnv,
    /// The sweep's `llm_max_calls` / `llm_max_dollars`, when it has them.
    pub gate: Option<&'a SpendGate<'a>>,
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

/// Plays jobs `0..total` given by `job` as `play` says, turns each result into a `T` with
/// `prepare` on the thread that played it, and hands them to `sink` in job order (a sink index
/// is a position in that range).
pub fn run_jobs<T: Send>(
    total: u64,
    job: &(dyn Fn(u64) -> Option<simfleet::protocol::Job> + Sync),
    play: &Play<'_>,
    prepare: &(dyn Fn(JobResult) -> T + Sync),
    sink: &mut dyn ResultSink<T>,
) -> anyhow::Result<()> {
    let (env, gate) = (play.env, play.gate);
    let threads = play.threads.max(1);
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
                if tx.send((i, prepare(crate::llm::run_job(&job, env, gate)))).is_err() {
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
