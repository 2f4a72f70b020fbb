//! Embedded mode: `coordinator run` plays a sweep in-process on all cores with the same
//! `run_job` the workers use, so its records are identical to a fleet run.
//!
//! Threads claim job indexes from a shared counter, play each job and `prepare` its result
//! (e.g. encode its rows: work that would otherwise pile up on the one writer); the caller's
//! thread puts the prepared results back in job order through a bounded reorder window, so the
//! output file is the same for any thread count and memory stays flat however long the sweep is.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use simfleet::{JobResult, RunEnv};

use crate::sweep::Sweep;

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
    let threads = threads.max(1);
    let total = sweep.job_count();
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
                let Some(job) = sweep.job(i) else { break };
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
