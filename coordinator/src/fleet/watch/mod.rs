//! `coordinator watch`: collects a sweep's results into a file until every job has a result or
//! has failed.
//!
//! Results arrive through the durable consumer `watch-<sweep>` (explicit acks). Each batch's
//! records are written contiguously per job and flushed, failures are logged beside the file,
//! and only then is each message of the batch acknowledged. (Not ack policy *all*: acknowledging
//! the newest result would also acknowledge an older one still waiting to be redelivered from a
//! watcher that was killed, and that job would be lost.)
//! So a watcher killed at any instant has lost nothing: what it had not acknowledged comes
//! again, and whatever of it already reached the file is recognised by its job index.
//!
//! Layout: this file sets up and ends a watch; `reader` is the one reader of results, into a
//! watch's `books`: `ledger` (every job of a plain sweep) or `round` (a stopping sweep's round);
//! `audit` finds the jobs still missing that nothing will bring (a result the file lost after it
//! was acknowledged, a job the servers lost) and gets them again. A stopping sweep (`[stop]`) is
//! played round by round by `rounds`, with `stop_log` (the decision log in the KV bucket, and
//! publishing a round).
//!
//! Restarting: if the output file exists, its partial tail is cut back to whole jobs
//! ([`crate::records::resume`]), the jobs in it and in the failure log count as done, and the durable
//! consumer carries on where it stopped. If the output file does not exist, the consumer is
//! recreated to read the sweep's results from the start.
//!
//! Results go to the [`crate::collector`]. A sweep with cells that collect summaries is merged
//! per cell in job order and its summary file written at the end. Its watch always reads the
//! results from the start: they are small (one aggregate per job) and the results stream keeps
//! them, so a restarted watch rebuilds in seconds what a killed one held in memory.

use std::path::Path;
use std::time::{Duration, Instant};

use simfleet::names::{watch_consumer, SweepEntry, SweepStatus};

use self::ledger::{Ledger, State};
use super::failures::{FailedJob, FailureLog};
use super::Fleet;
use crate::collector::{Collector, FailureFile, Output};
use crate::progress::Progress;
use crate::sweep::Sweep;

mod audit;
mod books;
mod ledger;
mod reader;
mod round;
mod rounds;
pub mod stop_log;

/// An unused watch consumer is removed by the server after this long.
const CONSUMER_INACTIVE: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a watch did.
#[derive(Debug)]
pub struct WatchReport {
    /// The sweep id.
    pub sweep: String,
    /// Jobs in the sweep.
    pub jobs_total: u64,
    /// Jobs with records in the file (this run and before).
    pub jobs_done: u64,
    /// Failed jobs, by index.
    pub failures: Vec<FailedJob>,
    /// Jobs found in the file when this run started.
    pub resumed_jobs: u64,
    /// Records written by this run.
    pub records_written: u64,
    /// Episodes collected by this run (recorded or summarised).
    pub episodes: u64,
    /// Where the summary file went and its rows, when cells collected summaries.
    pub cells: Option<(std::path::PathBuf, usize)>,
    /// Duplicate results dropped by this run.
    pub duplicates: u64,
    /// Jobs this run published again because the servers had lost them (no result, no job
    /// message).
    pub replayed: u64,
    /// Results this run read again from the results stream: acknowledged earlier, missing from
    /// the file.
    pub reread: u64,
    /// Whether the sweep was cancelled.
    pub cancelled: bool,
    /// Why the sweep stopped handing out jobs, when its `llm_max_calls` or `llm_max_dollars` was
    /// reached.
    pub llm_stopped: Option<String>,
    /// The summary of every record in the file, when this run wrote them all (a resumed run
    /// leaves it to a read of the file).
    pub summary: Option<crate::summary::Summary>,
    /// Wall time of this run.
    pub elapsed: Duration,
    /// The sweep, as its KV entry defined it when the watch began (read once: a KV read at the
    /// end could meet a replica that lags behind and fail a complete watch).
    pub definition: Sweep,
    /// A stopping sweep's decisions and what they saved.
    pub stop: Option<StopWatch>,
}

/// What the watch of a stopping sweep (`[stop]`) adds to its report.
#[derive(Debug)]
pub struct StopWatch {
    /// The decisions, the savings and the core-seconds, as `run` prints them.
    pub report: crate::stop::report::StopReport,
    /// Folds found in the sweep's decision log at the start, each checked against its replay.
    pub logged: usize,
    /// Jobs this watch published and the server stored: its rounds after the first, and the
    /// jobs of a resumed round that were neither queued nor answered.
    pub published: u64,
}

/// Watches sweep `id` into `out`, drawing progress on stderr when `progress` is set.
pub async fn watch(fleet: &Fleet, id: &str, out: &Path, progress: bool) -> anyhow::Result<WatchReport> {
    let started = Instant::now();
    let entry = fleet.entry(id).await?;
    fleet.fetch_modules(&entry.definition).await?;
    let sweep = Sweep::parse(&entry.definition, &format!("the definition of {id} in the KV bucket"))?
        .with_collect(entry.collect);
    anyhow::ensure!(sweep.id == id, "the KV entry of {id} holds the definition of another sweep ({})", sweep.id);
    if sweep.stop.is_some() {
        return rounds::watch(fleet, id, out, Progress::new(progress), (entry, sweep), started).await;
    }
    // Checked before the lock is taken, as `run` checks it before playing.
    crate::records::AnyFormat::of(&crate::collector::cell_merge::summary_path(&sweep, out))?;
    // Before the file is looked at: held until the file is complete, released if this dies.
    let _lock = super::output_lock::OutputLock::acquire(out)?;
    let mut p = open(fleet, id, out, sweep, Progress::new(progress)).await?;
    let resumed_jobs = p.done;
    p.flush()?;
    let mut reader = reader::Reader::new(fleet, id);
    // A resumed file may lack results acknowledged long ago: audit at once.
    reader.complete(fleet, &mut p, true).await?;
    let cancelled = reader.cancelled;
    p.flush()?;
    if p.finished() {
        // Nothing left to read: the consumer is only server state now.
        let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    }
    // Read again: a `cancel` may have changed the status meanwhile.
    if let Ok(now) = fleet.entry(id).await {
        update_entry(fleet, &now, &p, true).await;
    }
    let Ledger { done, collector, duplicates, replayed, reread, llm_stopped, .. } = p;
    let definition = collector.sweep().expect("a watch knows its sweep").clone();
    let c = collector.finish()?;
    // Every failure, this run's and those logged by the runs before it.
    let mut failures: Vec<FailedJob> = FailureLog::open(out, true)?.1.into_values().collect();
    failures.sort_by_key(|f| f.job);
    Ok(WatchReport {
        sweep: id.to_string(),
        jobs_total: definition.job_count(),
        jobs_done: done,
        failures,
        resumed_jobs,
        records_written: c.records,
        episodes: c.episodes,
        cells: c.cells,
        duplicates,
        replayed,
        reread,
        cancelled,
        llm_stopped,
        // A resumed run leaves the table to a read of the whole file.
        summary: (resumed_jobs == 0).then_some(c.summary),
        elapsed: started.elapsed(),
        definition,
        stop: None,
    })
}

/// The ledger of a plain sweep's watch: a records file found at `out` is resumed (its partial
/// tail cut back to whole jobs, its jobs and its logged failures done); otherwise the file is
/// written from scratch and the consumer started over. A summary sweep always starts over:
/// its results are small and the stream keeps them.
async fn open(fleet: &Fleet, id: &str, out: &Path, sweep: Sweep, progress: Progress) -> anyhow::Result<Ledger> {
    let resume = !sweep.collects_summaries() && std::fs::metadata(out)?.len() > 0;
    let mut states = vec![State::Pending; sweep.job_count() as usize];
    let (mut done, mut failed) = (0, 0);
    if resume {
        let found = crate::records::resume(out, &sweep.id, |job| sweep.job(job).map_or(0, |j| j.seeds.count))?;
        for &job in found.jobs.keys() {
            if let Some(s) = states.get_mut(job as usize) {
                *s = State::Done;
                done += 1;
            }
        }
        if let Some(cut) = found.cut_description() {
            // Said even with --quiet: the file changed.
            eprintln!("{}: {cut}; resuming", out.display());
        }
        for job in FailureLog::open(out, true)?.1.keys() {
            if let Some(s @ State::Pending) = states.get_mut(*job as usize) {
                *s = State::Failed;
                failed += 1;
            }
        }
    } else {
        // A fresh file must get every result: start the consumer over.
        let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    }
    let already: u64 = (0..sweep.job_count())
        .filter(|&i| states[i as usize] != State::Pending)
        .map(|i| sweep.job(i).map_or(0, |j| j.seeds.count))
        .sum();
    let (output, failure_file) = match resume {
        true => (Output::Append, FailureFile::Kept),
        false => (Output::Create, FailureFile::Fresh),
    };
    progress.resume_at(already);
    let mut collector = Collector::create(Some(sweep), out, output, failure_file, None, progress)?;
    // The one round of a plain sweep: every job, published by `submit`.
    let _ = collector.next_round();
    Ok(Ledger { states, done, failed, collector, duplicates: 0, replayed: 0, reread: 0, llm_stopped: None })
}

/// Writes the counts (and `done` at the end) into the sweep's KV entry; best effort. Only
/// those change: a `cancel` or `priority` written since `entry` was read stays.
async fn update_entry(fleet: &Fleet, entry: &SweepEntry, p: &Ledger, at_end: bool) {
    let (done, failed, finished) = (p.done, p.failed, at_end && p.finished());
    // Stopped at its model-call limit: the sweep ends `cancelled`, which says it was cut short.
    let stopped = p.llm_stopped.is_some();
    if (entry.jobs_done, entry.jobs_failed) == (done, failed) && !finished {
        return;
    }
    let next = |stored: Option<SweepEntry>| {
        let mut next = stored.unwrap_or_else(|| entry.clone());
        next.jobs_done = done;
        next.jobs_failed = failed;
        if finished && next.status == SweepStatus::Submitted {
            next.status = if stopped { SweepStatus::Cancelled } else { SweepStatus::Done };
        }
        next
    };
    if let Err(e) = fleet.modify_entry(&entry.id, next).await {
        tracing::warn!(error = %e, "cannot update the sweep's KV entry");
    }
}
