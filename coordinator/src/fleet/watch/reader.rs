//! The one reader of a watch: results through the durable consumer `watch-<sweep>` until its
//! books are complete or the sweep is cancelled. A plain sweep's ledger and a stopping sweep's
//! round read the same way; what differs is in their [`Books`].
//!
//! Each batch is taken into the books and flushed (the records file written and synced, or the
//! round's results held in memory), and only then is each message of it acknowledged. (Not ack
//! policy *all*: acknowledging the newest result would also acknowledge an older one still
//! waiting to be redelivered from a watcher that was killed, and that job would be lost.) In the
//! pauses: jobs out of deliveries (the DLQ) and a `cancel` fail their jobs, the books do their
//! own housekeeping, the audit gets back what the servers or the file lost, and a line says
//! what the watch waits for. Survives a server restart: the message stream is reopened with a
//! growing pause.

use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::message::Acker;
use async_nats::jetstream::AckKind;
use futures::StreamExt;
use simfleet::names::{result_subject, watch_consumer, SweepStatus};
use simfleet::nats::outage::note;
use simfleet::protocol::JobResult;

use super::super::dlq::DlqReader;
use super::super::failures::FailedJob;
use super::super::large_result::{Arrival, Assembler};
use super::super::Fleet;
use super::audit::Audit;
use super::books::Books;
use super::CONSUMER_INACTIVE;

/// The most results handled between two flushes.
const BATCH: usize = 1000;
/// The most bytes one pull request asks for. Results are large (a Bucket Brigade job of 1000
/// episodes is ~150 KB): without a byte cap a pull of 1000 results is 150 MB in one go, more
/// than the server lets a client fall behind by, and it cuts the connection (slow consumer).
const PULL_BYTES: usize = 8 << 20;
/// How often the DLQ, the sweep's KV state and its counts are looked at.
const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(2);
/// After this long without a result, the watch says what it waits for (and again each time
/// that doubles).
const SAY_WAITING_AFTER: Duration = Duration::from_secs(5);

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

/// The results of one sweep, read book after book (a stopping sweep's rounds).
pub(super) struct Reader {
    id: String,
    messages: Option<pull::Stream>,
    /// Results sent in parts, held until their head comes.
    parts: Assembler,
    pause: Duration,
    dlq: DlqReader,
    audit: Audit,
    last_housekeeping: Instant,
    /// When results last came, and when to say next what the watch waits for.
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

    /// Reads until every job of `books` has its result (or failed), or the sweep is cancelled.
    /// `audit_now`: a resumed file may lack results acknowledged long ago, so the first pause
    /// audits at once.
    pub(super) async fn complete(
        &mut self,
        fleet: &Fleet,
        books: &mut impl Books,
        audit_now: bool,
    ) -> anyhow::Result<()> {
        self.quiet = if audit_now { Instant::now() - super::audit::QUIET } else { Instant::now() };
        self.say_after = SAY_WAITING_AFTER;
        while !books.complete() && !self.cancelled {
            if self.last_housekeeping.elapsed() >= HOUSEKEEPING_EVERY {
                self.last_housekeeping = Instant::now();
                if let Err(e) = self.housekeeping(fleet, books).await {
                    tracing::warn!(error = %e, "housekeeping failed; will retry{}", note(&e));
                }
                continue;
            }
            let Some(messages) = self.open(fleet).await else { continue };
            // Wait for one message, then take whatever else is ready, up to a batch.
            let first = match tokio::time::timeout(HOUSEKEEPING_EVERY, messages.next()).await {
                Err(_) => continue,
                Ok(Some(Ok(m))) => m,
                Ok(None) => {
                    self.reopen_later().await;
                    continue;
                }
                Ok(Some(Err(e))) => {
                    tracing::warn!(error = %e, "reading results failed; reconnecting the consumer{}", note(&e));
                    self.reopen_later().await;
                    continue;
                }
            };
            self.pause = Duration::from_millis(200);
            self.quiet = Instant::now();
            self.say_after = SAY_WAITING_AFTER;
            let ackers = self.batch(books, first).await?;
            // Written and synced to disk (or held) before any of the batch is acknowledged.
            books.flush()?;
            for acker in ackers {
                if let Err(e) = acker.ack_with(AckKind::Ack).await {
                    tracing::debug!(error = %e, "acknowledging a result failed; it comes again and is deduplicated");
                }
            }
            books.after_batch(fleet).await?;
        }
        Ok(())
    }

    /// Takes `first` and whatever else is ready, up to a batch; returns what acknowledges them.
    async fn batch(
        &mut self,
        books: &mut impl Books,
        first: async_nats::jetstream::Message,
    ) -> anyhow::Result<Vec<Acker>> {
        let mut bytes = first.payload.len();
        let mut ackers = self.handle(books, first)?;
        let mut taken = 1;
        while taken < BATCH && bytes < PULL_BYTES {
            let Some(messages) = self.messages.as_mut() else { break };
            match tokio::time::timeout(Duration::from_millis(2), messages.next()).await {
                Ok(Some(Ok(m))) => {
                    bytes += m.payload.len();
                    taken += 1;
                    ackers.extend(self.handle(books, m)?);
                }
                _ => break,
            }
        }
        Ok(ackers)
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
                    self.reopen_later().await;
                    return None;
                }
            }
        }
        self.messages.as_mut()
    }

    /// Drops the message stream and waits a growing pause before it is opened again.
    async fn reopen_later(&mut self) {
        self.messages = None;
        tokio::time::sleep(self.pause).await;
        self.pause = (self.pause * 2).min(Duration::from_secs(5));
    }

    /// Takes one message into the books; returns what acknowledges it (and the parts it
    /// completes) once the batch is flushed. A result sent in parts is taken when its head
    /// comes ([`Assembler`]).
    fn handle(&mut self, books: &mut impl Books, msg: async_nats::jetstream::Message) -> anyhow::Result<Vec<Acker>> {
        let (msg, acker) = msg.split();
        let (payload, mut ackers) = match self.parts.arrive(&msg, acker, |i| books.wants(i)) {
            Arrival::Result(payload, ackers) => (payload, ackers),
            Arrival::Ack(ackers) => return Ok(ackers),
            Arrival::Held => return Ok(Vec::new()),
        };
        match simfleet::protocol::decode::<JobResult>(&payload) {
            Ok(result) if result.sweep == self.id => {
                ackers.extend(self.parts.forget(result.index));
                books.take(result)?;
            }
            Ok(result) => tracing::warn!(sweep = result.sweep, "a result of another sweep on this subject; skipped"),
            Err(e) => tracing::warn!(error = %e, "an undecodable message on the results subject; skipped"),
        }
        Ok(ackers)
    }

    /// Jobs out of deliveries, a cancel, the books' own housekeeping, the audit of missing
    /// jobs, and a line on what the watch waits for.
    async fn housekeeping(&mut self, fleet: &Fleet, books: &mut impl Books) -> anyhow::Result<()> {
        for dead in self.dlq.poll().await? {
            let error =
                format!("no result after {} deliveries: every worker that took it died or timed out", dead.deliveries);
            books.fail(FailedJob { job: dead.index, kind: "max_deliveries".into(), error })?;
        }
        books.flush()?;
        let entry = fleet.entry(&self.id).await?;
        if entry.status == SweepStatus::Cancelled && !books.stopped_at_limit() {
            self.cancelled = true;
            for job in books.missing() {
                books.fail(FailedJob { job, kind: "cancelled".into(), error: "the sweep was cancelled".into() })?;
            }
            return books.flush();
        }
        books.housekeeping(fleet, &entry).await;
        if self.audit.due(self.quiet.elapsed()) {
            if let Err(e) = self.audit.run(fleet, books).await {
                tracing::warn!(error = %e, "auditing the missing jobs failed; will retry{}", note(&e));
            }
        }
        let quiet = self.quiet.elapsed();
        if quiet >= self.say_after && !books.complete() {
            self.say_after *= 2;
            let line = format!(
                "no result for {} s; waiting for {}: queued or playing on workers (lost ones are published again)",
                quiet.as_secs(),
                books.waiting_for()
            );
            books.progress().say(line);
        }
        Ok(())
    }
}
