//! Reading results through the durable consumer `watch-<sweep>` until the sweep is complete or
//! cancelled, with the housekeeping (DLQ, KV counts, cancel) and the audit in the pauses.

use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::message::Acker;
use async_nats::jetstream::AckKind;
use futures::StreamExt;
use simfleet::names::{result_subject, watch_consumer, SweepEntry, SweepStatus};
use simfleet::nats::outage::note;
use simfleet::protocol::JobResult;

use super::super::dlq::DlqReader;
use super::super::failures::FailedJob;
use super::super::large_result::{Arrival, Assembler};
use super::super::Fleet;
use super::audit::Audit;
use super::ledger::Ledger;
use super::{update_entry, CONSUMER_INACTIVE};

/// The most results handled between two flushes.
pub(super) const BATCH: usize = 1000;
/// The most bytes one pull request asks for. Results are large (a Bucket Brigade job of 1000
/// episodes is ~150 KB): without a byte cap a pull of 1000 results is 150 MB in one go, more
/// than the server lets a client fall behind by, and it cuts the connection (slow consumer).
pub(super) const PULL_BYTES: usize = 8 << 20;
/// How often the DLQ, the sweep's KV state and its counts are looked at.
pub(super) const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(2);
/// After this long without a result, `watch` says which jobs it waits for (and again each time
/// that doubles).
pub(super) const SAY_WAITING_AFTER: Duration = Duration::from_secs(5);

pub(super) async fn consumer(fleet: &Fleet, id: &str) -> anyhow::Result<PullConsumer> {
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

/// When results last came, and when `watch` last said what it waits for.
struct Quiet {
    since: Instant,
    say_after: Duration,
}

impl Quiet {
    fn arrived(&mut self) {
        self.since = Instant::now();
        self.say_after = SAY_WAITING_AFTER;
    }

    /// Says which jobs are still missing, once per doubling of the silence.
    fn maybe_say(&mut self, p: &Ledger) {
        let quiet = self.since.elapsed();
        if quiet < self.say_after || p.finished() {
            return;
        }
        self.say_after *= 2;
        let line = format!(
            "no result for {} s; waiting for {}: queued or playing on workers (lost ones are published again)",
            quiet.as_secs(),
            p.describe_missing()
        );
        p.collector.progress().say(line);
    }
}

/// Reads results until the sweep is complete or cancelled (returns whether it was cancelled).
/// Survives a server restart: the message stream is reopened with a pause.
pub(super) async fn collect(fleet: &Fleet, id: &str, p: &mut Ledger) -> anyhow::Result<bool> {
    let mut dlq = DlqReader::new(fleet.topology.dlq.clone(), fleet.topology.jobs.clone(), id);
    let mut last_housekeeping = Instant::now() - HOUSEKEEPING_EVERY;
    let mut audit = Audit::new();
    // A resumed file may lack results acknowledged long ago: audit at once.
    let mut quiet = Quiet { since: Instant::now() - super::audit::QUIET, say_after: SAY_WAITING_AFTER };
    let entry = fleet.entry(id).await?;
    let mut pause = Duration::from_millis(200);
    // Results sent in parts, held until their head comes.
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
                if audit.due(quiet.since.elapsed()) {
                    if let Err(e) = audit.run(fleet, p).await {
                        tracing::warn!(error = %e, "auditing the missing jobs failed; will retry{}", note(&e));
                    }
                }
                quiet.maybe_say(p);
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
            quiet.arrived();
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
            // Written and synced to disk before any of the batch is acknowledged.
            p.flush()?;
            for acker in batch {
                if let Err(e) = acker.ack_with(AckKind::Ack).await {
                    tracing::warn!(error = %e, "acknowledging a result failed; it will come again and be deduplicated");
                }
            }
            if p.llm_stopped.is_none() {
                p.llm_stopped = crate::llm_tally::stop_at_limit(fleet, p.sweep(), p.collector.spend()).await?;
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
fn handle(p: &mut Ledger, parts: &mut Assembler, msg: async_nats::jetstream::Message) -> anyhow::Result<Vec<Acker>> {
    let (msg, acker) = msg.split();
    let (payload, mut ackers) = match parts.arrive(&msg, acker, |i| p.is_pending(i)) {
        Arrival::Result(payload, ackers) => (payload, ackers),
        Arrival::Ack(ackers) => return Ok(ackers),
        Arrival::Held => return Ok(Vec::new()),
    };
    match simfleet::protocol::decode::<JobResult>(&payload) {
        Ok(result) if result.sweep == p.sweep().id => {
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
async fn housekeeping(fleet: &Fleet, entry: &SweepEntry, dlq: &mut DlqReader, p: &mut Ledger) -> anyhow::Result<bool> {
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
    // Stopped at llm_max_calls or llm_max_dollars: the workers answer every job, so the watch waits for them all.
    if now.status == SweepStatus::Cancelled && p.llm_stopped.is_none() {
        for job in p.missing() {
            p.fail(FailedJob { job, kind: "cancelled".into(), error: "the sweep was cancelled".into() })?;
        }
        p.flush()?;
        return Ok(true);
    }
    update_entry(fleet, &now, p, false).await;
    Ok(false)
}
