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
use indicatif::ProgressBar;
use simfleet::names::{watch_consumer, SweepEntry, SweepStatus};
use simfleet::protocol::Collect;

use super::super::failures::{FailedJob, FailureLog};
use super::super::Fleet;
use super::reader::Reader;
use super::round::Round;
use super::{stop_log, WatchReport};
use crate::cell_table;
use crate::records::RecordWriter;
use crate::stop::block::Stopping;
use crate::stop::report::{StopFile, StopReport};
use crate::summary::Summary;
use crate::sweep::Sweep;

/// Plays stopping sweep `sweep` (id `id`) round by round into `out`.
pub(super) async fn watch(
    fleet: &Fleet,
    id: &str,
    out: &Path,
    bar: &ProgressBar,
    (entry, sweep): (SweepEntry, Sweep),
    started: Instant,
) -> anyhow::Result<WatchReport> {
    let cells_path = cell_table::summary_path(&sweep, out);
    crate::records::AnyFormat::of(&cells_path)?;
    let _lock = super::super::output_lock::OutputLock::acquire(out)?;
    let (log, mut revision) = stop_log::read(fleet, id).await?;
    let logged = log.folds.len();
    let mut stopping = Stopping::resume(&sweep, log).expect("a sweep with [stop] has a plan");
    // Every result from the start: the rounds are rebuilt from them.
    let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    let records_out = sweep.cells.iter().any(|c| c.collect == Collect::Records);
    let mut writer = match records_out {
        true => {
            Some(RecordWriter::create(out, &sweep.games()).with_context(|| format!("cannot write {}", out.display()))?)
        }
        false => None,
    };
    let (mut failure_log, _) = FailureLog::open(out, false)?;
    bar.set_length(sweep.episode_count());
    let mut round = Round::new(id, bar);
    let mut reader = Reader::new(fleet, id);
    let (mut summary, mut failures, mut episodes, mut records_written) = (Summary::default(), Vec::new(), 0, 0);
    let (mut jobs_total, mut jobs_done, mut published) = (0, 0, 0);
    loop {
        let jobs = stopping.round_jobs(&sweep);
        if jobs.is_empty() || reader.cancelled {
            break;
        }
        jobs_total += jobs.len() as u64;
        round.begin(jobs);
        let held: BTreeSet<u64> = round.results.keys().copied().collect();
        let jobs: Vec<_> = round.jobs.values().collect();
        published += stop_log::publish(fleet, id, &jobs, &held).await?;
        counts(fleet, &entry, jobs_total, jobs_done, failures.len() as u64, false).await;
        reader.complete(fleet, &mut round).await?;
        // Counted and written in job order, as `run` does.
        for r in round.results.values() {
            stopping.accept(r)?;
        }
        for (&index, r) in &round.results {
            if let Some(e) = &r.error {
                let note = round.notes.get(&index).cloned();
                let failed = note.unwrap_or_else(|| FailedJob {
                    job: index,
                    kind: e.kind.as_str().to_string(),
                    error: e.to_string(),
                });
                failure_log.push(&failed)?;
                failures.push(failed);
                continue;
            }
            jobs_done += 1;
            if r.summary.is_none() {
                writer.as_mut().context("a records job in a sweep of summary cells")?.write_result(r)?;
                summary.add_result(r)?;
                records_written += r.records.len() as u64;
            }
            episodes += r.episodes();
        }
        let before = stopping.log.folds.len();
        stopping.fold_round().with_context(|| format!("sweep {id}: the decision log {}", stop_log::key(id)))?;
        if stopping.log.folds.len() > before {
            // Logged before the next round's jobs go out: a restarted watch finds every decision
            // that chose a published job.
            stop_log::write(fleet, id, &stopping.log, &mut revision).await?;
        }
        if let Some(w) = writer.as_mut() {
            w.flush()?;
        }
        failure_log.flush()?;
    }
    let records = match writer {
        Some(w) => w.finish()?,
        None => 0,
    };
    debug_assert_eq!(records, records_written);
    let mut cells = None;
    let rows = stopping.rows(&sweep);
    if !rows.is_empty() {
        crate::records::cells::write_cells(&cells_path, &rows)
            .with_context(|| format!("cannot write {}", cells_path.display()))?;
        summary.merge(&cell_table::summary_of(&rows)?)?;
        cells = Some((cells_path, rows.len()));
    }
    let report = StopReport::of(&stopping);
    let log_path = StopFile::path(out);
    let text = serde_json::to_string_pretty(&StopFile::of(&sweep.id, &stopping, &report))?;
    std::fs::write(&log_path, text + "\n").with_context(|| format!("cannot write {}", log_path.display()))?;
    counts(fleet, &entry, jobs_total, jobs_done, failures.len() as u64, true).await;
    let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    bar.finish_and_clear();
    Ok(WatchReport {
        sweep: id.to_string(),
        jobs_total,
        jobs_done,
        failures,
        resumed_jobs: 0,
        records_written,
        episodes,
        cells,
        duplicates: round.duplicates,
        replayed: round.replayed,
        reread: round.reread,
        cancelled: reader.cancelled,
        llm_stopped: None,
        summary: Some(summary),
        elapsed: started.elapsed(),
        definition: sweep,
        stop: Some(super::StopWatch { report, logged, published }),
    })
}

/// Writes the counts into the sweep's KV entry (the jobs published so far are its total), and
/// `done` at the end; best effort, leaving a `cancel` or `priority` written meanwhile.
async fn counts(fleet: &Fleet, entry: &SweepEntry, total: u64, done: u64, failed: u64, at_end: bool) {
    let next = |stored: Option<SweepEntry>| {
        let mut next = stored.unwrap_or_else(|| entry.clone());
        next.jobs_total = next.jobs_total.max(total);
        next.jobs_done = done;
        next.jobs_failed = failed;
        if at_end && next.status == SweepStatus::Submitted {
            next.status = SweepStatus::Done;
        }
        next
    };
    if let Err(e) = fleet.modify_entry(&entry.id, next).await {
        tracing::warn!(error = %e, "cannot update the sweep's KV entry");
    }
}
