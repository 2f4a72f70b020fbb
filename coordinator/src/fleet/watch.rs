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
//! Restarting: if the output file exists, its partial tail is cut back to whole jobs
//! ([`crate::records::resume`]), the jobs in it and in the failure log count as done, and the durable
//! consumer carries on where it stopped. If the output file does not exist, the consumer is
//! recreated to read the sweep's results from the start.
//!
//! A sweep with cells that collect summaries is merged per cell in job order
//! ([`crate::cell_table`]) and its summary file written at the end. Its watch always reads the
//! results from the start: they are small (one aggregate per job) and the results stream keeps
//! them, so a restarted watch rebuilds in seconds what a killed one held in memory.

use std::path::Path;
use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::message::Acker;
use async_nats::jetstream::AckKind;
use futures::StreamExt;
use indicatif::ProgressBar;
use simfleet::nats::outage::note;
use simfleet::protocol::{Collect, JobResult};
use simfleet::topology::{result_subject, watch_consumer, SweepEntry, SweepStatus};

use super::dlq::DlqReader;
use super::failures::{FailedJob, FailureLog};
use super::large_result::{Arrival, Assembler};
use super::Fleet;
use crate::cell_table::{self, CellTable};
use crate::records::RecordWriter;
use crate::sweep::Sweep;

/// The most results handled between two flushes.
const BATCH: usize = 1000;
/// The most bytes one pull request asks for. Results are large (a Bucket Brigade job of 1000
/// episodes is ~150 KB): without a byte cap a pull of 1000 results is 150 MB in one go, more
/// than the server lets a client fall behind by, and it cuts the connection (slow consumer).
const PULL_BYTES: usize = 8 << 20;
/// How often the DLQ, the sweep's KV state and its counts are looked at.
const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(2);
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
    /// Whether the sweep was cancelled.
    pub cancelled: bool,
    /// Why the sweep stopped handing out jobs, when its `llm_max_calls` was reached.
    pub llm_stopped: Option<String>,
    /// The summary of every record in the file, when this run wrote them all (a resumed run
    /// leaves it to a read of the file).
    pub summary: Option<crate::summary::Summary>,
    /// Wall time of this run.
    pub elapsed: Duration,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Done,
    Failed,
}

struct Progress<'a> {
    sweep: Sweep,
    states: Vec<State>,
    done: u64,
    failed: u64,
    writer: RecordWriter,
    failures: FailureLog,
    bar: &'a ProgressBar,
    /// The cells' aggregates, when some cells collect summaries.
    table: Option<CellTable>,
    records_written: u64,
    episodes: u64,
    duplicates: u64,
    summary: crate::summary::Summary,
    /// Model calls of the results so far, and why the sweep was stopped at `llm_max_calls`.
    llm_calls: u64,
    llm_stopped: Option<String>,
}

impl Progress<'_> {
    fn finished(&self) -> bool {
        self.done + self.failed >= self.sweep.job_count()
    }

    fn episodes_of(&self, index: u64) -> u64 {
        self.sweep.job(index).map_or(0, |j| j.seeds.count)
    }

    fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        let i = failure.job as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        self.failures.push(&failure)?;
        if let Some(table) = self.table.as_mut() {
            table.skip(&self.sweep, failure.job)?;
        }
        self.states[i] = State::Failed;
        self.failed += 1;
        self.bar.inc(self.episodes_of(failure.job));
        self.bar.println(format!("job {} failed: {}", failure.job, failure.error));
        Ok(())
    }

    fn accept(&mut self, result: JobResult) -> anyhow::Result<()> {
        let i = result.index as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        if let Some(e) = &result.error {
            return self.fail(FailedJob { job: result.index, kind: e.kind.as_str().to_string(), error: e.to_string() });
        }
        self.llm_calls += crate::llm_tally::calls_of(&result);
        let records_cell = self.sweep.cell_of(result.index).is_some_and(|c| c.collect == Collect::Records);
        match self.table.as_mut() {
            Some(table) => table.accept(&self.sweep, &result)?,
            None => self.summary.add_result(&result)?,
        }
        // A summary cell's job answered by a worker older than `collect` comes with records:
        // they count in its aggregate, but do not go into the records file.
        if records_cell {
            self.writer.write_result(&result)?;
            self.records_written += result.records.len() as u64;
        }
        self.episodes += result.episodes();
        self.states[i] = State::Done;
        self.done += 1;
        self.bar.inc(result.episodes());
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        self.writer.flush()?;
        self.failures.flush()?;
        super::metrics::record_progress(&self.sweep.id, self.sweep.job_count(), self.done, self.failed);
        Ok(())
    }
}

/// Watches sweep `id` into `out`, drawing progress on `bar`.
pub async fn watch(fleet: &Fleet, id: &str, out: &Path, bar: &ProgressBar) -> anyhow::Result<WatchReport> {
    let started = Instant::now();
    let entry = fleet.entry(id).await?;
    let sweep = Sweep::parse(&entry.definition, &format!("the definition of {id} in the KV bucket"))?
        .with_collect(entry.collect);
    anyhow::ensure!(sweep.id == id, "the KV entry of {id} holds the definition of another sweep ({})", sweep.id);
    let summaries = sweep.collects_summaries();
    let cells_path = cell_table::summary_path(&sweep, out);
    crate::records::Format::of(&cells_path)?;
    // Before the file is looked at: held until the file is complete, released if this dies.
    let _lock = super::output_lock::OutputLock::acquire(out)?;
    let resume = !summaries && std::fs::metadata(out)?.len() > 0;
    let mut states = vec![State::Pending; sweep.job_count() as usize];
    let (mut done, mut failed) = (0, 0);
    let writer = if resume {
        let found = crate::records::resume(out, |job| sweep.job(job).map_or(0, |j| j.seeds.count))?;
        for &job in found.jobs.keys() {
            if let Some(s) = states.get_mut(job as usize) {
                *s = State::Done;
                done += 1;
            }
        }
        if let Some(cut) = found.cut_description() {
            // Said even with --quiet: the file changed.
            bar.suspend(|| eprintln!("{}: {cut}; resuming", out.display()));
        }
        RecordWriter::append(out, &sweep.games())?
    } else {
        // A fresh file must get every result: start the consumer over.
        let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
        RecordWriter::create(out, &sweep.games())?
    };
    let (failures, known_failures) = FailureLog::open(out, resume)?;
    let table = summaries.then(|| CellTable::new(&sweep));
    for job in known_failures.keys() {
        if let Some(s @ State::Pending) = states.get_mut(*job as usize) {
            *s = State::Failed;
            failed += 1;
        }
    }
    let resumed_jobs = done;
    bar.set_length(sweep.episode_count());
    let mut p = Progress {
        sweep,
        states,
        done,
        failed,
        writer,
        failures,
        bar,
        table,
        records_written: 0,
        episodes: 0,
        duplicates: 0,
        summary: crate::summary::Summary::default(),
        llm_calls: 0,
        llm_stopped: None,
    };
    let already: u64 =
        (0..p.sweep.job_count()).filter(|&i| p.states[i as usize] != State::Pending).map(|i| p.episodes_of(i)).sum();
    bar.set_position(already);
    p.flush()?;
    let mut cancelled = false;
    if !p.finished() {
        cancelled = collect(fleet, id, &mut p).await?;
    }
    p.flush()?;
    if p.finished() {
        // Nothing left to read: the consumer is only server state now.
        let _ = fleet.topology.results.delete_consumer(&watch_consumer(id)).await;
    }
    // Read again: a `cancel` may have changed the status meanwhile.
    if let Ok(now) = fleet.entry(id).await {
        update_entry(fleet, &now, &p, true).await;
    }
    bar.finish_and_clear();
    let Progress {
        sweep, done, writer, records_written, episodes, duplicates, mut summary, table, llm_stopped, ..
    } = p;
    // Completes the file (a Parquet file needs its footer).
    writer.finish()?;
    let mut cells = None;
    // When every cell collects summaries, `out` is the summary file: written over the records
    // writer's empty file.
    if let Some(table) = table {
        let rows = table.rows()?;
        crate::records::cells::write_cells(&cells_path, &rows)?;
        summary = cell_table::summary_of(&rows)?;
        cells = Some((cells_path, rows.len()));
    }
    let mut failures: Vec<FailedJob> = FailureLog::open(out, true)?.1.into_values().collect();
    failures.sort_by_key(|f| f.job);
    Ok(WatchReport {
        sweep: id.to_string(),
        jobs_total: sweep.job_count(),
        jobs_done: done,
        failures,
        resumed_jobs,
        records_written,
        episodes,
        cells,
        duplicates,
        cancelled,
        llm_stopped,
        summary: (resumed_jobs == 0).then_some(summary),
        elapsed: started.elapsed(),
    })
}

async fn consumer(fleet: &Fleet, id: &str) -> anyhow::Result<PullConsumer> {
    let config = pull::Config {
        durable_name: Some(watch_consumer(id)),
        filter_subject: result_subject(id),
        ack_policy: AckPolicy::Explicit,
        // Short: what a killed watch had taken but not acknowledged comes back to the next one
        // this soon. A batch is acknowledged within a second of its arrival, and a result
        // redelivered early is deduplicated by its job index.
        ack_wait: Duration::from_secs(10),
        max_ack_pending: 20_000,
        deliver_policy: DeliverPolicy::All,
        inactive_threshold: CONSUMER_INACTIVE,
        ..Default::default()
    };
    Ok(fleet.topology.results.get_or_create_consumer(&watch_consumer(id), config).await?)
}

/// Reads results until the sweep is complete or cancelled (returns whether it was cancelled).
/// Survives a server restart: the message stream is reopened with a pause.
async fn collect(fleet: &Fleet, id: &str, p: &mut Progress<'_>) -> anyhow::Result<bool> {
    let mut dlq = DlqReader::new(fleet.topology.dlq.clone(), fleet.topology.jobs.clone(), id);
    let mut last_housekeeping = Instant::now() - HOUSEKEEPING_EVERY;
    let entry = fleet.entry(id).await?;
    let mut pause = Duration::from_millis(200);
    let mut parts = Assembler::default();
    loop {
        let messages = match consumer(fleet, id).await {
            Ok(c) => c
                .stream()
                .max_messages_per_batch(BATCH)
                .max_bytes_per_batch(PULL_BYTES)
                .heartbeat(Duration::from_secs(5))
                .messages()
                .await
                .map_err(anyhow::Error::from),
            Err(e) => Err(e),
        };
        let mut messages = match messages {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read results; retrying{}", note(&e));
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        loop {
            if last_housekeeping.elapsed() >= HOUSEKEEPING_EVERY {
                last_housekeeping = Instant::now();
                match housekeeping(fleet, &entry, &mut dlq, p).await {
                    Ok(true) => return Ok(true),
                    Ok(false) => {}
                    Err(e) => tracing::warn!(error = %e, "housekeeping failed; will retry{}", note(&e)),
                }
                if p.finished() {
                    return Ok(false);
                }
            }
            // Wait for one message, then take whatever else is ready, up to a batch.
            let first = match tokio::time::timeout(HOUSEKEEPING_EVERY, messages.next()).await {
                Err(_) => continue,
                Ok(None) => break,
                Ok(Some(Err(e))) => {
                    tracing::warn!(error = %e, "reading results failed; reconnecting the consumer{}", note(&e));
                    break;
                }
                Ok(Some(Ok(m))) => m,
            };
            pause = Duration::from_millis(200);
            // Only the ackers are kept: a result's payload is dropped as soon as it is written.
            let mut bytes = first.payload.len();
            let mut batch = handle(p, &mut parts, first)?;
            let mut taken = 1;
            while taken < BATCH && bytes < PULL_BYTES {
                match tokio::time::timeout(Duration::from_millis(2), messages.next()).await {
                    Ok(Some(Ok(m))) => {
                        bytes += m.payload.len();
                        taken += 1;
                        batch.extend(handle(p, &mut parts, m)?);
                    }
                    _ => break,
                }
            }
            p.flush()?;
            for acker in batch {
                if let Err(e) = acker.ack_with(AckKind::Ack).await {
                    tracing::warn!(error = %e, "acknowledging a result failed; it will come again and be deduplicated");
                }
            }
            if p.llm_stopped.is_none() {
                p.llm_stopped = crate::llm_tally::stop_at_limit(fleet, &p.sweep, p.llm_calls).await?;
            }
            if p.finished() {
                return Ok(false);
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// Writes one result and returns what acknowledges it (once the batch is flushed): a result
/// sent in parts is written when its head comes ([`Assembler`]).
fn handle(
    p: &mut Progress<'_>,
    parts: &mut Assembler,
    msg: async_nats::jetstream::Message,
) -> anyhow::Result<Vec<Acker>> {
    let (msg, acker) = msg.split();
    let (payload, mut ackers) = match parts.arrive(&msg, acker, |i| p.states.get(i as usize) == Some(&State::Pending)) {
        Arrival::Result(payload, ackers) => (payload, ackers),
        Arrival::Ack(ackers) => return Ok(ackers),
        Arrival::Held => return Ok(Vec::new()),
    };
    match simfleet::protocol::decode::<JobResult>(&payload) {
        Ok(result) if result.sweep == p.sweep.id => {
            let index = result.index;
            p.accept(result)?;
            ackers.extend(parts.forget(index));
        }
        Ok(result) => tracing::warn!(sweep = result.sweep, "a result of another sweep on this subject; skipped"),
        Err(e) => tracing::warn!(error = %e, "an undecodable message on the results subject; skipped"),
    }
    Ok(ackers)
}

/// Stuck jobs from the DLQ, the KV counts, and whether the sweep was cancelled.
async fn housekeeping(
    fleet: &Fleet,
    entry: &SweepEntry,
    dlq: &mut DlqReader,
    p: &mut Progress<'_>,
) -> anyhow::Result<bool> {
    for dead in dlq.poll().await? {
        p.fail(FailedJob {
            job: dead.index,
            kind: "max_deliveries".into(),
            error: format!(
                "no result after {} deliveries: every worker that took it died or timed out",
                dead.deliveries
            ),
        })?;
    }
    p.flush()?;
    let now = fleet.entry(&entry.id).await?;
    // Stopped at llm_max_calls: the workers answer every job, so the watch waits for them all.
    if now.status == SweepStatus::Cancelled && p.llm_stopped.is_none() {
        let pending: Vec<u64> = (0..p.sweep.job_count()).filter(|&i| p.states[i as usize] == State::Pending).collect();
        for job in pending {
            p.fail(FailedJob { job, kind: "cancelled".into(), error: "the sweep was cancelled".into() })?;
        }
        p.flush()?;
        return Ok(true);
    }
    update_entry(fleet, &now, p, false).await;
    Ok(false)
}

/// Writes the counts (and `done` at the end) into the sweep's KV entry; best effort. Only
/// those change: a `cancel` or `priority` written since `entry` was read stays.
async fn update_entry(fleet: &Fleet, entry: &SweepEntry, p: &Progress<'_>, at_end: bool) {
    let (done, failed, finished) = (p.done, p.failed, at_end && p.finished());
    if (entry.jobs_done, entry.jobs_failed) == (done, failed) && !finished {
        return;
    }
    let next = |stored: Option<SweepEntry>| {
        let mut next = stored.unwrap_or_else(|| entry.clone());
        next.jobs_done = done;
        next.jobs_failed = failed;
        if finished && next.status == SweepStatus::Submitted {
            next.status = SweepStatus::Done;
        }
        next
    };
    if let Err(e) = fleet.modify_entry(&entry.id, next).await {
        tracing::warn!(error = %e, "cannot update the sweep's KV entry");
    }
}
