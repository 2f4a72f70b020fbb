//! One job message, from delivery to acknowledgement (DESIGN.md, "The protocol" and the error
//! rules of "NATS topology").
//!
//! The order is what makes a worker killed at any instant lose nothing: play, publish the
//! result, wait for the stream's publish ack, and only then `double_ack` the job. A job that
//! cannot be played (undecodable, wrong version, unknown game, invalid, cancelled) is answered
//! with a typed error result and terminated, never retried: retrying would fail the same way.
//! Only transient failures of this worker (the result publish failed, shutdown) give the job
//! back with a NAK.

use std::sync::Arc;
use std::time::Duration;

use async_nats::header::{HeaderMap, NATS_MESSAGE_ID};
use async_nats::jetstream::message::AckKind;
use async_nats::jetstream::{Context, Message};
use simfleet::protocol::{self, JobEnvelope};
use simfleet::topology::{msg_id, parse_msg_id, result_subject};
use simfleet::{Job, JobError, JobErrorKind, JobResult, RunEnv, PROTOCOL_VERSION};
use tokio::sync::{watch, OwnedSemaphorePermit};

use crate::cancellation::SweepStates;
use crate::job_metrics::JobMetrics;

/// What every job task shares.
pub(crate) struct JobContext {
    pub(crate) js: Context,
    pub(crate) env: RunEnv,
    pub(crate) metrics: JobMetrics,
    pub(crate) sweeps: SweepStates,
    /// In-progress acks go out this often while a job runs (a third of the ack wait).
    pub(crate) progress_every: Duration,
    /// How long a job given back after a failed result publish waits before redelivery.
    pub(crate) nak_delay: Duration,
    /// Results being encoded and published, at most one per job slot. A played job takes one
    /// of these before it gives its job slot back, so the next job starts while this result is
    /// published (a Bucket Brigade job plays in milliseconds, about as long as a publish ack
    /// and a pull take), and a slow server cannot make results pile up in memory.
    pub(crate) publishing: Arc<tokio::sync::Semaphore>,
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
        Ok(env) if env.protocol_version != PROTOCOL_VERSION => Decoded::Failed {
            error: JobError {
                kind: JobErrorKind::UnsupportedVersion,
                field: Some("protocol_version".into()),
                value: Some(env.protocol_version.to_string()),
                message: format!("this worker speaks protocol version {PROTOCOL_VERSION}"),
            },
            sweep: env.sweep,
            index: env.index,
            game: String::new(),
        },
        Ok(env) => match protocol::decode::<Job>(payload) {
            Ok(job) => Decoded::Job(Box::new(job)),
            Err(e) => Decoded::Failed {
                sweep: env.sweep,
                index: env.index,
                game: String::new(),
                error: undecodable(e.to_string()),
            },
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

fn error_result(worker: &str, sweep: String, index: u64, job: Option<&Job>, error: JobError) -> JobResult {
    JobResult {
        protocol_version: PROTOCOL_VERSION,
        sweep,
        index,
        worker: worker.to_string(),
        engine_version: String::new(),
        game: job.map(|j| j.game.clone()).unwrap_or_default(),
        scenario: job.map(|j| j.scenario.clone()).unwrap_or_default(),
        policy_set: job.map(|j| j.policy_set.name.clone()).unwrap_or_default(),
        elapsed_seconds: 0.0,
        replays: None,
        records: Vec::new(),
        error: Some(error),
    }
}

/// Handles one delivered job. Holds a job slot (`permit`) until the job is played, then a
/// publishing slot until its result is published and the job acknowledged; `abort` turns true
/// when the drain timeout of a shutdown has passed, and then an unfinished job is given back.
pub(crate) async fn handle(
    ctx: Arc<JobContext>,
    msg: Message,
    mut abort: watch::Receiver<bool>,
    permit: OwnedSemaphorePermit,
) {
    let _in_flight = ctx.metrics.in_flight();
    let delivered = msg.info().map_or(1, |i| i.delivered);
    let decoded = decode(&msg.payload, msg.headers.as_ref());
    if delivered > 1 {
        let game = match &decoded {
            Decoded::Job(job) => job.game.as_str(),
            _ => "",
        };
        ctx.metrics.redelivered(game);
    }
    let job = match decoded {
        Decoded::Unusable(why) => {
            tracing::warn!(subject = %msg.subject, reason = %why, "terminating a job that cannot be answered");
            ctx.metrics.job_failed("", JobErrorKind::Undecodable);
            if let Err(e) = msg.ack_with(AckKind::Term).await {
                tracing::warn!(error = %e, "cannot terminate the job");
            }
            return;
        }
        Decoded::Failed { sweep, index, game, error } => {
            tracing::warn!(sweep, index, kind = %error.kind, error = %error, "answering an unplayable job with an error");
            ctx.metrics.job_failed(&game, error.kind);
            let result = error_result(&ctx.env.worker, sweep, index, None, error);
            answer(&ctx, &msg, &result).await;
            return;
        }
        Decoded::Job(job) => job,
    };
    if ctx.sweeps.is_cancelled(&job.sweep).await {
        tracing::debug!(sweep = job.sweep, index = job.index, "answering a job of a cancelled sweep");
        ctx.metrics.job_failed(&job.game, JobErrorKind::Cancelled);
        let error = JobError::new(JobErrorKind::Cancelled, format!("sweep {} was cancelled", job.sweep));
        let result = error_result(&ctx.env.worker, job.sweep.clone(), job.index, Some(&job), error);
        answer(&ctx, &msg, &result).await;
        return;
    }
    let job: Arc<Job> = Arc::from(job);
    let env = ctx.env.clone();
    let played = Arc::clone(&job);
    // Episodes are CPU-bound synchronous code: on the blocking pool they cannot stall the
    // runtime's threads, which keep acks and pulls flowing.
    let mut work = tokio::task::spawn_blocking(move || simfleet::run_job(&played, &env));
    let start = tokio::time::Instant::now() + ctx.progress_every;
    let mut progress = tokio::time::interval_at(start, ctx.progress_every);
    let aborted = async {
        if abort.wait_for(|a| *a).await.is_err() {
            // The sender is gone only after every task has finished: never abort then.
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(aborted);
    let result = loop {
        tokio::select! {
            done = &mut work => break done,
            _ = progress.tick() => {
                if let Err(e) = msg.ack_with(AckKind::Progress).await {
                    tracing::debug!(error = %e, "in-progress ack failed");
                }
            }
            () = &mut aborted => {
                tracing::info!(sweep = job.sweep, index = job.index, "shutdown: giving an unfinished job back");
                nak(&msg, None).await;
                return;
            }
        }
    };
    // Played: trade the job slot for a publishing slot, so the next job can start now.
    let _publishing = Arc::clone(&ctx.publishing).acquire_owned().await.expect("the semaphore is never closed");
    drop(permit);
    let result = result.unwrap_or_else(|e| {
        let error = JobError::new(JobErrorKind::EnginePanic, format!("the job's task failed: {e}"));
        error_result(&ctx.env.worker, job.sweep.clone(), job.index, Some(&job), error)
    });
    let (result, payload) = encode_fitting(&ctx, &job, result);
    match &result.error {
        None => tracing::debug!(sweep = job.sweep, index = job.index, episodes = result.records.len(), "job played"),
        Some(e) => {
            tracing::warn!(sweep = job.sweep, index = job.index, kind = %e.kind, error = %e, "job failed")
        }
    }
    ctx.metrics.job_played(&job, &result);
    publish_then_ack(&ctx, &msg, &result, payload).await;
}

/// Encodes a played job's result. A result larger than the server's `max_payload` could never
/// be published, and a NAK would only repeat the failure until the job dead-letters, so it is
/// answered instead with a typed `invalid_job` naming `seeds.count`: the sweep asks for too
/// many episodes per job.
fn encode_fitting(ctx: &JobContext, job: &Job, result: JobResult) -> (JobResult, Vec<u8>) {
    let payload = protocol::encode(&result);
    let max = ctx.js.client().server_info().max_payload;
    if payload.len() <= max || max == 0 {
        return (result, payload);
    }
    let error = JobError::invalid(
        "seeds.count",
        job.seeds.count,
        format!(
            "the result is {} bytes, over the server's max_payload of {max} bytes; use fewer episodes per job",
            payload.len()
        ),
    );
    let mut failed = error_result(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error);
    failed.engine_version = result.engine_version;
    failed.elapsed_seconds = result.elapsed_seconds;
    let payload = protocol::encode(&failed);
    (failed, payload)
}

/// Answers with an error result (see [`publish_then_ack`]).
async fn answer(ctx: &JobContext, msg: &Message, result: &JobResult) {
    publish_then_ack(ctx, msg, result, protocol::encode(result)).await;
}

/// Publishes `result`, waits for the publish ack, then acknowledges the job: `double_ack` for a
/// played job, a confirmed `Term` for an error. If the publish fails the job is given back.
async fn publish_then_ack(ctx: &JobContext, msg: &Message, result: &JobResult, payload: Vec<u8>) {
    let mut headers = HeaderMap::new();
    headers.insert(NATS_MESSAGE_ID, msg_id(&result.sweep, result.index).as_str());
    let published = async {
        let ack = ctx.js.publish_with_headers(result_subject(&result.sweep), headers, payload.into()).await?;
        ack.await.map_err(async_nats::Error::from)
    };
    match published.await {
        Ok(ack) if ack.duplicate => {
            tracing::debug!(sweep = result.sweep, index = result.index, "result was a duplicate")
        }
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(sweep = result.sweep, index = result.index, error = %e, "cannot publish the result; giving the job back");
            nak(msg, Some(ctx.nak_delay)).await;
            return;
        }
    }
    let acked = match result.error {
        None => msg.double_ack().await,
        Some(_) => msg.double_ack_with(AckKind::Term).await,
    };
    if let Err(e) = acked {
        // The result is stored; a redelivery will be answered again and the duplicate dropped
        // by message id (and by the coordinator's dedup on job index).
        tracing::warn!(sweep = result.sweep, index = result.index, error = %e, "cannot acknowledge the job");
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
