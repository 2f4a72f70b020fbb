//! One job message, from delivery to acknowledgement (docs/protocol.md, and "A job's life on a
//! worker" in docs/topology.md).
//!
//! The order is what makes a worker killed at any instant lose nothing: play, publish the
//! result, wait for the stream's publish ack, and only then acknowledge the job. A job that
//! cannot be played (undecodable, wrong version, unknown game, invalid, cancelled) is answered
//! with a typed error result and terminated, never retried: retrying would fail the same way.
//! Only transient failures of this worker (the result publish failed, shutdown) give the job
//! back with a NAK.

use std::sync::Arc;
use std::time::Duration;

use async_nats::header::{HeaderMap, NATS_MESSAGE_ID};
use async_nats::jetstream::message::AckKind;
use async_nats::jetstream::{Context, Message};
use simfleet::names::{msg_id, parse_msg_id, result_subject};
use simfleet::protocol::{self, JobEnvelope};
use simfleet::{Job, JobError, JobErrorKind, JobResult, RunEnv};
use tokio::sync::watch;

use crate::cancellation::SweepStates;
use crate::job_metrics::JobMetrics;
use crate::player::{Encoded, Players};
use crate::reservation::{self, Reservation};

/// What every job task shares.
pub(crate) struct JobContext {
    pub(crate) js: Context,
    pub(crate) env: RunEnv,
    pub(crate) metrics: Arc<JobMetrics>,
    pub(crate) sweeps: SweepStates,
    /// The play threads and their queue.
    pub(crate) players: Players,
    /// In-progress acks go out this often while a job waits or plays (a third of the ack wait).
    pub(crate) progress_every: Duration,
    /// How long a job given back after a failed result publish waits before redelivery.
    pub(crate) nak_delay: Duration,
}

/// Where the worker is in its life; job tasks watch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    /// Pulling and playing.
    Running,
    /// Shutdown: queued jobs go back to the queue, jobs playing finish.
    Draining,
    /// The drain timeout passed: unfinished jobs go back too.
    Aborting,
}

/// A job message, decoded as far as it goes.
#[derive(Debug)]
enum Decoded {
    /// A job of our protocol version.
    Job(Box<Job>),
    /// Not playable, but we know where to answer.
    Failed { sweep: String, index: u64, game: String, error: JobError },
    /// No sweep and index anywhere: nothing to answer.
    Unusable(String),
}

/// Sweep ids become subject tokens, message ids and KV keys: only `[A-Za-z0-9_-]` is safe.
fn usable_sweep(sweep: &str) -> bool {
    !sweep.is_empty()
        && sweep.len() <= 128
        && sweep.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn decode(payload: &[u8], headers: Option<&HeaderMap>) -> Decoded {
    let undecodable = |why: String| JobError::new(JobErrorKind::Undecodable, why);
    match protocol::decode::<JobEnvelope>(payload) {
        Ok(env) if !usable_sweep(&env.sweep) => Decoded::Unusable(format!("sweep id {:?} is not usable", env.sweep)),
        Ok(env) => match protocol::check_version(env.protocol_version)
            .and_then(|()| protocol::decode::<Job>(payload).map_err(|e| undecodable(e.to_string())))
        {
            Ok(job) => Decoded::Job(Box::new(job)),
            Err(error) => Decoded::Failed { sweep: env.sweep, index: env.index, game: String::new(), error },
        },
        Err(e) => {
            let id = headers.and_then(|h| h.get(NATS_MESSAGE_ID)).map(|v| v.as_str().to_string());
            match id.as_deref().and_then(parse_msg_id) {
                Some((sweep, index)) if usable_sweep(sweep) => Decoded::Failed {
                    sweep: sweep.to_string(),
                    index,
                    game: String::new(),
                    error: undecodable(e.to_string()),
                },
                _ => Decoded::Unusable(format!("{e}, and no usable Nats-Msg-Id header ({id:?})")),
            }
        }
    }
}

/// Handles one delivered job. Holds an intake slot (`permit`) from delivery until the job is
/// answered, which bounds the results in memory too. Queues the job for the play threads and
/// keeps it alive with in-progress acks until its encoded result comes back, then publishes it.
/// A job still queued when shutdown starts goes back to the queue at once; one playing goes
/// back only when the drain timeout has passed (`stage`).
pub(crate) async fn handle(
    ctx: Arc<JobContext>,
    msg: Message,
    stage: watch::Receiver<Stage>,
    permit: crate::schedule::IntakeSlot,
) {
    let Some(job) = decoded(&ctx, &msg).await else { return };
    let model_job = simfleet::runner::has_llm_seats(&job);
    if !admitted(&ctx, &msg, &job, model_job).await {
        return;
    }
    match crate::modules::ready(&ctx.js, &job).await {
        Ok(()) => {}
        Err(crate::modules::NotReady::Refuse(error)) => return refuse(&ctx, &msg, &job, error).await,
        Err(crate::modules::NotReady::Retry(why)) => {
            tracing::warn!(sweep = %job.sweep, index = job.index, error = %why, "giving a job back: its module cannot be fetched yet");
            return nak(&msg, Some(ctx.nak_delay)).await;
        }
    }
    let (sweep, index) = (job.sweep.clone(), job.index);
    let mut claim = ctx.players.queue(Arc::from(job), permit);
    let Some(encoded) = played(&ctx, &msg, &mut claim, stage, model_job, (&sweep, index)).await else { return };
    publish_then_ack(&ctx, &msg, encoded).await;
    // The claim holds the job's slot until the result is published.
    drop(claim);
}

/// The delivered job, decoded; `None` when it cannot be played, once it is answered with a
/// typed error (or terminated, with nowhere to answer).
async fn decoded(ctx: &JobContext, msg: &Message) -> Option<Box<Job>> {
    let delivered = msg.info().map_or(1, |i| i.delivered);
    let decoded = decode(&msg.payload, msg.headers.as_ref());
    if delivered > 1 {
        let game = match &decoded {
            Decoded::Job(job) => job.game.as_str(),
            _ => "",
        };
        ctx.metrics.redelivered(game);
    }
    match decoded {
        Decoded::Unusable(why) => {
            tracing::warn!(subject = %msg.subject, reason = %why, "terminating a job that cannot be answered");
            ctx.metrics.job_failed("", JobErrorKind::Undecodable);
            if let Err(e) = msg.ack_with(AckKind::Term).await {
                tracing::warn!(error = %e, "cannot terminate the job");
            }
            None
        }
        Decoded::Failed { sweep, index, game, error } => {
            tracing::warn!(sweep, index, kind = %error.kind, error = %error, "answering an unplayable job with an error");
            ctx.metrics.job_failed(&game, error.kind);
            let result = JobResult::failed(&ctx.env.worker, sweep, index, None, error);
            answer(ctx, msg, &result).await;
            None
        }
        Decoded::Job(job) => Some(job),
    }
}

/// Whether `job` may be played now: not if its sweep was cancelled or reached its
/// `llm_max_calls` (answered `cancelled`), nor if its model calls cannot be reserved (given
/// back). A model job's calls are reserved here, fleet-wide, before it is queued.
async fn admitted(ctx: &JobContext, msg: &Message, job: &Job, model_job: bool) -> bool {
    let state = ctx.sweeps.state(&job.sweep).await;
    let (sweep, index) = (job.sweep.as_str(), job.index);
    if state.cancelled {
        tracing::debug!(sweep, index, "answering a job of a cancelled sweep");
        let error = JobError::new(JobErrorKind::Cancelled, format!("sweep {sweep} was cancelled"));
        refuse(ctx, msg, job, error).await;
        return false;
    }
    if model_job && !state.known {
        // Its sweep's `llm_max_calls` is unknown: playing could spend past it, refusing could
        // lose work, so the job goes back to the queue for a later try.
        tracing::warn!(sweep, index, "cannot read the sweep's state; giving a job with llm seats back");
        nak(msg, Some(ctx.nak_delay)).await;
        return false;
    }
    let (true, Some(max)) = (model_job, state.llm_max_calls) else { return true };
    let calls = simfleet::llm::estimate::expected_job_calls(job);
    match reservation::reserve(ctx.sweeps.kv(), sweep, max, calls).await {
        Ok(Reservation::Granted { reserved }) => {
            tracing::debug!(sweep, index, calls, reserved, "reserved the job's model calls");
            true
        }
        Ok(Reservation::Refused { reserved }) => {
            tracing::debug!(sweep, index, reserved, "llm_max_calls reached; answering the job cancelled");
            let why = format!(
                "sweep {sweep} reached its llm_max_calls of {max} ({reserved} model calls reserved by the \
                 workers' jobs), so this job was not played"
            );
            refuse(ctx, msg, job, JobError::new(JobErrorKind::Cancelled, why)).await;
            false
        }
        Err(e) => {
            // The server did not answer: neither play past the limit nor lose the job.
            let outage = simfleet::nats::outage::note(&e);
            tracing::warn!(sweep, index, error = %e, "cannot reserve the job's model calls; giving it back{outage}");
            nak(msg, Some(ctx.nak_delay)).await;
            false
        }
    }
}

/// Waits for the queued job's encoded result, keeping it alive with in-progress acks; `None`
/// when it went back to the queue (the play threads dropped it, or shutdown).
async fn played(
    ctx: &JobContext,
    msg: &Message,
    claim: &mut crate::player::Claim,
    stage: watch::Receiver<Stage>,
    model_job: bool,
    (sweep, index): (&str, u64),
) -> Option<Encoded> {
    // A job with `llm` seats may wait here behind others for minutes: its sweep's state is read
    // again while it waits, so that the I/O threads see a stop before they start it.
    let mut recheck = tokio::time::interval(crate::cancellation::QUEUED_MODEL_JOB_RECHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let start = tokio::time::Instant::now() + ctx.progress_every;
    let mut progress = tokio::time::interval_at(start, ctx.progress_every);
    let stopping = reached(stage.clone(), Stage::Draining);
    let aborted = reached(stage, Stage::Aborting);
    tokio::pin!(stopping, aborted);
    let mut draining = false;
    loop {
        tokio::select! {
            biased;
            done = &mut claim.done => match done {
                Ok(encoded) => return Some(encoded),
                Err(_) => {
                    tracing::warn!(sweep, index, "the play threads dropped the job; giving it back");
                    nak(msg, None).await;
                    return None;
                }
            },
            () = &mut stopping, if !draining => {
                draining = true;
                if claim.withdraw() {
                    tracing::debug!(sweep, index, "shutdown: giving a queued job back");
                    nak(msg, None).await;
                    return None;
                }
            }
            () = &mut aborted => {
                tracing::info!(sweep, index, "shutdown: giving an unfinished job back");
                nak(msg, None).await;
                return None;
            }
            _ = recheck.tick(), if model_job && claim.queued() => {
                ctx.sweeps.state_within(sweep, crate::cancellation::QUEUED_MODEL_JOB_RECHECK).await;
            }
            _ = progress.tick() => {
                if let Err(e) = msg.ack_with(AckKind::Progress).await {
                    tracing::debug!(error = %e, "in-progress ack failed");
                }
            }
        }
    }
}

/// Answers `job` with `error` without playing it.
async fn refuse(ctx: &JobContext, msg: &Message, job: &Job, error: JobError) {
    ctx.metrics.job_failed(&job.game, error.kind);
    let result = JobResult::failed(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error);
    answer(ctx, msg, &result).await;
}

/// Completes once the worker reaches `stage`.
async fn reached(mut stage: watch::Receiver<Stage>, at: Stage) {
    if stage.wait_for(|s| *s >= at).await.is_err() {
        // The sender is gone only after every task has finished: never complete then.
        std::future::pending::<()>().await;
    }
}

/// Answers with an error result (see [`publish_then_ack`]).
async fn answer(ctx: &JobContext, msg: &Message, result: &JobResult) {
    publish_then_ack(ctx, msg, Encoded::new(result)).await;
}

/// Publishes `result` (in parts when it is over the server's `max_payload`:
/// [`crate::large_result`]), waits for the publish ack, then acknowledges the job: an ack for a
/// played job, a `Term` for an error. If the publish fails the job is given back.
///
/// The acknowledgement is not confirmed (no `double_ack`): the result is stored by then, and an
/// ack lost on the way (a server restart) only brings the job back after the ack wait, to be
/// answered again and dropped as a duplicate by message id and by the coordinator's dedup on
/// job index, which is all a confirmation would have let us log. Waiting for it cost a round
/// trip per job, about a fifth of the worker's messaging CPU per job (BENCHMARKS.md, "Per-job
/// overhead through the worker").
async fn publish_then_ack(ctx: &JobContext, msg: &Message, result: Encoded) {
    let Encoded { sweep, index, failed, payload } = result;
    let max_payload = ctx.js.client().server_info().max_payload;
    // The job's own message id: a job published again (`.r<ms>`) is not a duplicate.
    let id = result_msg_id(msg, &sweep, index);
    let published = async {
        if crate::large_result::needs_parts(payload.len(), max_payload) {
            return crate::large_result::publish(&ctx.js, &sweep, index, &id, payload, max_payload).await;
        }
        let mut headers = HeaderMap::new();
        headers.insert(NATS_MESSAGE_ID, id.as_str());
        let ack = ctx.js.publish_with_headers(result_subject(&sweep), headers, payload.into()).await?;
        ack.await.map_err(async_nats::Error::from)
    };
    match published.await {
        Ok(ack) if ack.duplicate => tracing::debug!(sweep, index, "result was a duplicate"),
        Ok(_) => {}
        Err(e) => {
            let outage = simfleet::nats::outage::note(&e);
            tracing::warn!(sweep, index, error = %e, "cannot publish the result; giving the job back{outage}");
            nak(msg, Some(ctx.nak_delay)).await;
            return;
        }
    }
    let acked = msg.ack_with(if failed { AckKind::Term } else { AckKind::Ack }).await;
    if let Err(e) = acked {
        // The result is stored; a redelivery will be answered again and the duplicate dropped.
        tracing::warn!(sweep, index, error = %e, "cannot acknowledge the job");
    }
}

/// The result's message id: the job's own when it names this job, so a job published again
/// (`submit --republish`, or `watch` replaying a lost job, with a `.r<n>` suffix) is answered
/// with a result the server's duplicate window does not drop as the lost one's duplicate.
fn result_msg_id(msg: &Message, sweep: &str, index: u64) -> String {
    let own = msg.headers.as_ref().and_then(|h| h.get(NATS_MESSAGE_ID)).map(|v| v.as_str());
    match own {
        Some(id) if parse_msg_id(id) == Some((sweep, index)) => id.to_string(),
        _ => msg_id(sweep, index),
    }
}

/// Gives a job back to the queue, after `delay` if given.
pub(crate) async fn nak(msg: &Message, delay: Option<Duration>) {
    if let Err(e) = msg.ack_with(AckKind::Nak(delay)).await {
        tracing::warn!(error = %e, "cannot NAK the job; it returns after the ack wait");
    }
}

#[cfg(test)]
mod tests {
    use simfleet::PROTOCOL_VERSION;

    use super::*;

    #[test]
    fn garbage_without_header_is_unusable_and_with_header_is_answerable() {
        assert!(matches!(decode(b"\xff\x00garbage", None), Decoded::Unusable(_)));
        let mut h = HeaderMap::new();
        h.insert(NATS_MESSAGE_ID, "bb-0123456789ab.7");
        match decode(b"\xff\x00garbage", Some(&h)) {
            Decoded::Failed { sweep, index, error, .. } => {
                assert_eq!((sweep.as_str(), index, error.kind), ("bb-0123456789ab", 7, JobErrorKind::Undecodable));
            }
            other => panic!("{other:?}"),
        }
        h.insert(NATS_MESSAGE_ID, "bad sweep.7");
        assert!(matches!(decode(b"", Some(&h)), Decoded::Unusable(_)));
    }

    #[test]
    fn other_versions_are_typed_errors() {
        let env = JobEnvelope { protocol_version: 99, sweep: "s-1".into(), index: 3 };
        match decode(&protocol::encode(&env), None) {
            Decoded::Failed { error, index: 3, .. } => assert_eq!(error.kind, JobErrorKind::UnsupportedVersion),
            other => panic!("{other:?}"),
        }
        let env = JobEnvelope { protocol_version: PROTOCOL_VERSION, sweep: "s-1".into(), index: 4 };
        match decode(&protocol::encode(&env), None) {
            Decoded::Failed { error, index: 4, .. } => assert_eq!(error.kind, JobErrorKind::Undecodable),
            other => panic!("{other:?}"),
        }
    }
}
