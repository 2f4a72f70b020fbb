//! `watch` of a stopping sweep (`[stop]`): it plays the rounds. `submit` published the first
//! round's jobs; each time a round's results are all in, the watch writes the round's records
//! in job order (so the file is `run`'s, byte for byte), folds every group's checkpoint
//! ([`Stopping::fold_round`]), logs the new folds under `<sweep>.stop` in the sweeps bucket
//! (compare-and-set, [`stop_log`]) and only then publishes the next round's jobs.
//!
//! A watch started again reads every result from the start of the stream, replays the rounds
//! against the logged folds ([`Stopping::resume`]: a fold that differs is an error naming its
//! group and checkpoint), rewrites the output from scratch, and publishes the jobs of the
//! current round that are neither queued nor answered. The seeds played are a function of the
//! sweep file and the results alone: a round's jobs are fixed by the folds before it, never by
//! timing.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use simfleet::names::{watch_consumer, SweepEntry, SweepStatus};

use super::super::Fleet;
use super::reader::Reader;
use super::round::Round;
use super::{stop_log, WatchReport};
use crate::collector::{Collector, FailureFile, Output, RoundJobs};
use crate::progress::Progress;
use crate::stop::block::Stopping;
use crate::sweep::Sweep;

/// Plays stopping sweep `sweep` (id `id`) round by round into `out`.
pub(super) async fn watch(
    fleet: &Fleet,
    id: &str,
    out: &Path,
    progress: Progress,
    (entry, sweep): (SweepEntry, Sweep),
    started: Instant,
) -> anyhow::Result<WatchReport> {
    crate::records::AnyFormat::of(&crate::collector::cell_merge::summary_path(&sweep, out))?;
    let _lock = super::super::output_lock::OutputLock::acquire(out)?;
    let (log, mut revision) = stop_log::read(fleet, id).await?;
    let logged = log.folds.len();
    let stopping = Stopping::resume(&sweep, log).expect("a sweep with [stop] has a plan");
    // Every result from the start: the rounds are rebuilt from them.
    let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    let mut round = Round::new(id, progress.clone());
    let mut collector =
        Collector::create(Some(sweep.clone()), out, Output::Create, FailureFile::Fresh, Some(stopping), progress)?;
    let mut reader = Reader::new(fleet, id);
    let mut published = 0;
    while !reader.cancelled {
        let Some(RoundJobs::Listed(jobs)) = collector.next_round() else { break };
        round.begin(jobs);
        let held: BTreeSet<u64> = round.results.keys().copied().collect();
        let jobs: Vec<_> = round.jobs.values().collect();
        published += stop_log::publish(fleet, id, &jobs, &held).await?;
        counts(fleet, &entry, &collector, false).await;
        reader.complete(fleet, &mut round, false).await?;
        // Delivered in job order, as `run` does.
        for (index, r) in std::mem::take(&mut round.results) {
            match round.notes.remove(&index) {
                Some(note) => collector.fail(note)?,
                None => collector.deliver(r)?,
            }
        }
        let logged_more =
            collector.end_round().with_context(|| format!("sweep {id}: the decision log {}", stop_log::key(id)))?;
        if let Some(stopping) = collector.stopping().filter(|_| logged_more) {
            // Logged before the next round's jobs go out: a restarted watch finds every decision
            // that chose a published job.
            stop_log::write(fleet, id, &stopping.log, &mut revision).await?;
        }
        collector.flush()?;
    }
    counts(fleet, &entry, &collector, true).await;
    let c = collector.finish()?;
    let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    let report = c.stop.context("a stopping sweep ends with its decisions")?;
    Ok(WatchReport {
        sweep: id.to_string(),
        jobs_total: c.jobs_total,
        jobs_done: c.jobs_done,
        failures: c.failures,
        resumed_jobs: 0,
        records_written: c.records,
        episodes: c.episodes,
        cells: c.cells,
        duplicates: round.duplicates,
        replayed: round.replayed,
        reread: round.reread,
        cancelled: reader.cancelled,
        llm_stopped: None,
        summary: Some(c.summary),
        elapsed: started.elapsed(),
        definition: sweep,
        stop: Some(super::StopWatch { report, logged, published }),
    })
}

/// Writes the counts into the sweep's KV entry (the jobs published so far are its total), and
/// `done` at the end; best effort, leaving a `cancel` or `priority` written meanwhile.
async fn counts(fleet: &Fleet, entry: &SweepEntry, collector: &Collector, at_end: bool) {
    let tally = collector.tally();
    let (total, done, failed) = (tally.jobs_total, tally.jobs_done, tally.jobs_failed);
    let next = |stored: Option<SweepEntry>| {
        let mut next = stored.unwrap_or_else(|| entry.clone());
        next.jobs_total = next.jobs_total.max(total);
        next.jobs_done = done;
        next.jobs_failed = failed;
        next.episodes_played = Some(tally.episodes);
        if at_end && next.status == SweepStatus::Submitted {
            next.status = SweepStatus::Done;
        }
        next
    };
    if let Err(e) = fleet.modify_entry(&entry.id, next).await {
        tracing::warn!(error = %e, "cannot update the sweep's KV entry");
    }
}
