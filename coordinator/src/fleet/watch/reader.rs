//! A stopping sweep's watch reading results until its round is complete: every result of the
//! sweep from the start of the results stream (a fresh durable consumer), acknowledged as soon
//! as it is in memory (a restarted watch reads them all again), with the pauses' housekeeping:
//! jobs out of deliveries (the DLQ) and a `cancel` fail their jobs, and the audit republishes
//! jobs the servers lost, so a round never waits forever.

use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::pull;
use async_nats::jetstream::AckKind;
use futures::StreamExt;
use simfleet::names::SweepStatus;
use simfleet::nats::outage::note;
use simfleet::protocol::JobResult;

use super::super::dlq::DlqReader;
use super::super::large_result::{Arrival, Assembler};
use super::super::Fleet;
use super::audit::Audit;
use super::collect::{consumer, BATCH, HOUSEKEEPING_EVERY, PULL_BYTES, SAY_WAITING_AFTER};
use super::round::Round;

/// The results of one sweep, read round after round.
pub(super) struct Reader {
    id: String,
    messages: Option<pull::Stream>,
    parts: Assembler,
    pause: Duration,
    dlq: DlqReader,
    audit: Audit,
    last_housekeeping: Instant,
    /// When results last came, and when to say next what the round waits for.
    quiet: Instant,
    say_after: Duration,
    /// Whether the sweep was found cancelled.
    pub(super) cancelled: bool,
}

impl Reader {
    pub(super) fn new(fleet: &Fleet, id: &str) -> Reader {
        Reader {
            id: id.to_string(),
            messages: None,
            parts: Assembler::default(),
            pause: Duration::from_millis(200),
            dlq: DlqReader::new(fleet.topology.dlq.clone(), fleet.topology.jobs.clone(), id),
            audit: Audit::new(),
            last_housekeeping: Instant::now() - HOUSEKEEPING_EVERY,
            quiet: Instant::now(),
            say_after: SAY_WAITING_AFTER,
            cancelled: false,
        }
    }

    /// Reads until every job of `round` has its result (or failed).
    pub(super) async fn complete(&mut self, fleet: &Fleet, round: &mut Round) -> anyhow::Result<()> {
        self.quiet = Instant::now();
        self.say_after = SAY_WAITING_AFTER;
        while !round.complete() {
            if self.last_housekeeping.elapsed() >= HOUSEKEEPING_EVERY {
                self.last_housekeeping = Instant::now();
                if let Err(e) = self.housekeeping(fleet, round).await {
                    tracing::warn!(error = %e, "housekeeping failed; will retry{}", note(&e));
                }
                if round.complete() {
                    break;
                }
            }
            let Some(messages) = self.open(fleet).await else { continue };
            let first = match tokio::time::timeout(HOUSEKEEPING_EVERY, messages.next()).await {
                Err(_) => continue,
                Ok(None) => {
                    self.messages = None;
                    continue;
                }
                Ok(Some(Err(e))) => {
                    tracing::warn!(error = %e, "reading results failed; reconnecting the consumer{}", note(&e));
                    self.messages = None;
                    continue;
                }
                Ok(Some(Ok(m))) => m,
            };
            self.pause = Duration::from_millis(200);
            self.quiet = Instant::now();
            self.say_after = SAY_WAITING_AFTER;
            self.handle(round, first).await;
            // Whatever else is ready, up to a batch.
            for _ in 1..BATCH {
                let Some(messages) = self.messages.as_mut() else { break };
                match tokio::time::timeout(Duration::from_millis(2), messages.next()).await {
                    Ok(Some(Ok(m))) => self.handle(round, m).await,
                    _ => break,
                }
            }
        }
        Ok(())
    }

    /// The message stream, opened again after a failure (with a growing pause).
    async fn open(&mut self, fleet: &Fleet) -> Option<&mut pull::Stream> {
        if self.messages.is_none() {
            let opened = match consumer(fleet, &self.id).await {
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
            match opened {
                Ok(m) => self.messages = Some(m),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read results; retrying{}", note(&e));
                    tokio::time::sleep(self.pause).await;
                    self.pause = (self.pause * 2).min(Duration::from_secs(5));
                    return None;
                }
            }
        }
        self.messages.as_mut()
    }

    /// Takes one message into the round and acknowledges it (and the parts it completes).
    async fn handle(&mut self, round: &mut Round, msg: async_nats::jetstream::Message) {
        let (msg, acker) = msg.split();
        let ackers = match self.parts.arrive(&msg, acker, |i| round.wants(i)) {
            Arrival::Result(payload, mut ackers) => {
                match simfleet::protocol::decode::<JobResult>(&payload) {
                    Ok(result) if result.sweep == self.id => {
                        ackers.extend(self.parts.forget(result.index));
                        round.take(result);
                    }
                    Ok(result) => {
                        tracing::warn!(sweep = result.sweep, "a result of another sweep on this subject; skipped")
                    }
                    Err(e) => tracing::warn!(error = %e, "an undecodable message on the results subject; skipped"),
                }
                ackers
            }
            Arrival::Ack(ackers) => ackers,
            Arrival::Held => Vec::new(),
        };
        for acker in ackers {
            if let Err(e) = acker.ack_with(AckKind::Ack).await {
                tracing::debug!(error = %e, "acknowledging a result failed; it comes again and is deduplicated");
            }
        }
    }

    /// Jobs out of deliveries, a cancel, the audit of missing jobs, and a line on what the
    /// round waits for.
    async fn housekeeping(&mut self, fleet: &Fleet, round: &mut Round) -> anyhow::Result<()> {
        for dead in self.dlq.poll().await? {
            let why =
                format!("no result after {} deliveries: every worker that took it died or timed out", dead.deliveries);
            round.fail(dead.index, "max_deliveries", why);
        }
        if fleet.entry(&self.id).await?.status == SweepStatus::Cancelled {
            self.cancelled = true;
            for job in super::audit::Books::missing(round) {
                round.fail(job, "cancelled", "the sweep was cancelled".into());
            }
            return Ok(());
        }
        if self.audit.due(self.quiet.elapsed()) {
            self.audit.run(fleet, round).await?;
        }
        let quiet = self.quiet.elapsed();
        if quiet >= self.say_after && !round.complete() {
            self.say_after *= 2;
            let line = format!(
                "no result for {} s; this round waits for {}: queued or playing on workers (lost ones are published again)",
                quiet.as_secs(),
                round.describe_missing()
            );
            round.progress.say(line);
        }
        Ok(())
    }
}
