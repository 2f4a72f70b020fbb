//! `coordinator submit`: publishes a sweep's jobs and its KV entry.
//!
//! Submitting is idempotent. Each job goes out with `Nats-Msg-Id = <sweep>.<index>`, so the
//! server drops a job it saw within its duplicate window; beyond the window, jobs that already
//! have a result are skipped by reading the message ids of the sweep's result subject first.
//! (The queue itself cannot be scanned: a work-queue stream refuses a second consumer that
//! overlaps the workers'. A job resubmitted after the window while its first copy still waits
//! is played twice, and its second result is dropped by message id and by `watch`'s dedup on
//! the job index: wasted work, never a duplicate record.) Publishing is pipelined: up to [`ACKS_IN_FLIGHT`] publish acks are awaited at
//! once, which is what makes tens of thousands of jobs per second possible over one connection.
//!
//! Because it is idempotent, a submit interrupted by a JetStream outage (a server restarting, a
//! leader election, a cluster without quorum) simply starts over once JetStream answers, and
//! says so while it waits (`simfleet::nats::outage`).

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use async_nats::jetstream::context::PublishError;
use async_nats::jetstream::publish::PublishAck;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use indicatif::ProgressBar;
use simfleet::nats::outage::{is_transient, WAITING};
use simfleet::topology::{job_subject, msg_id, result_subject, SweepEntry, SweepStatus};

use super::{scan, Fleet};
use crate::sweep::Sweep;

/// Publish acks awaited at once.
pub const ACKS_IN_FLIGHT: usize = 4096;

/// What a submit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitReport {
    /// The sweep id.
    pub sweep: String,
    /// Jobs in the sweep.
    pub jobs: u64,
    /// Jobs published now.
    pub published: u64,
    /// Jobs skipped because they already have a result.
    pub skipped: u64,
    /// Jobs the server dropped as duplicates (same message id within its window).
    pub duplicates: u64,
}

/// Publishes every job of `sweep` not yet answered, waiting out JetStream outages. `definition`
/// is the sweep file's text, stored in the KV entry so `watch` and `status` work from any
/// machine.
pub async fn submit(fleet: &Fleet, sweep: &Sweep, definition: &str, bar: &ProgressBar) -> anyhow::Result<SubmitReport> {
    // Jobs published by attempts an outage interrupted: the next attempt sees them again as
    // duplicates, which they are not.
    let mut earlier = 0;
    loop {
        bar.reset();
        match submit_once(fleet, sweep, definition, bar).await {
            Ok(mut report) => {
                report.duplicates = report.duplicates.saturating_sub(earlier);
                report.published += earlier;
                return Ok(report);
            }
            Err(failed) if is_transient(&failed.error) => {
                earlier += failed.published;
                tracing::warn!(
                    operation = "submitting the jobs",
                    error = format!("{:#}", failed.error),
                    "{WAITING}; the submit starts over then (jobs already published are dropped as duplicates)"
                );
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(failed) => return Err(failed.error),
        }
    }
}

/// How long an interrupted submit waits before it starts over.
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_secs(2);

/// A submit attempt that failed, and how many jobs it had published.
struct Interrupted {
    error: anyhow::Error,
    published: u64,
}

impl<E: Into<anyhow::Error>> From<E> for Interrupted {
    fn from(e: E) -> Interrupted {
        Interrupted { error: e.into(), published: 0 }
    }
}

async fn submit_once(
    fleet: &Fleet,
    sweep: &Sweep,
    definition: &str,
    bar: &ProgressBar,
) -> Result<SubmitReport, Interrupted> {
    let previous = match fleet.topology.sweeps.get(&sweep.id).await? {
        Some(bytes) => serde_json::from_slice::<SweepEntry>(&bytes).ok(),
        None => None,
    };
    fleet
        .put_entry(&SweepEntry {
            id: sweep.id.clone(),
            name: sweep.name.clone(),
            status: SweepStatus::Submitted,
            jobs_total: sweep.job_count(),
            episodes_total: sweep.episode_count(),
            jobs_done: previous.as_ref().map_or(0, |p| p.jobs_done),
            jobs_failed: previous.as_ref().map_or(0, |p| p.jobs_failed),
            definition: definition.to_string(),
            collect: sweep.collect_override,
        })
        .await?;
    let skip = scan::indexes(&fleet.topology.results, &result_subject(&sweep.id), &sweep.id).await?;
    bar.set_length(sweep.job_count());
    let mut report = SubmitReport {
        sweep: sweep.id.clone(),
        jobs: sweep.job_count(),
        published: 0,
        skipped: skip.len() as u64,
        duplicates: 0,
    };
    bar.inc(report.skipped);
    let mut acks: FuturesUnordered<AckFuture> = FuturesUnordered::new();
    let interrupted = |error: anyhow::Error, report: &SubmitReport| Interrupted { error, published: report.published };
    for job in sweep.jobs().filter(|j| !skip.contains(&j.index)) {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(async_nats::header::NATS_MESSAGE_ID, msg_id(&job.sweep, job.index).as_str());
        let payload = simfleet::protocol::encode(&job);
        let subject = job_subject(&job.game, &job.sweep);
        let ack = match fleet.js.publish_with_headers(subject, headers, payload.into()).await {
            Ok(ack) => ack,
            Err(e) => return Err(interrupted(e.into(), &report)),
        };
        acks.push(Box::pin(ack.into_future()));
        while acks.len() >= ACKS_IN_FLIGHT {
            settle(acks.next().await, &mut report, bar).map_err(|e| interrupted(e, &report))?;
        }
    }
    while !acks.is_empty() {
        settle(acks.next().await, &mut report, bar).map_err(|e| interrupted(e, &report))?;
    }
    Ok(report)
}

type AckFuture = Pin<Box<dyn Future<Output = Result<PublishAck, PublishError>> + Send>>;

fn settle(
    ack: Option<Result<PublishAck, PublishError>>,
    report: &mut SubmitReport,
    bar: &ProgressBar,
) -> anyhow::Result<()> {
    if let Some(ack) = ack {
        let ack = ack.map_err(|e| anyhow::anyhow!("the server did not take a job: {e}"))?;
        if ack.duplicate {
            report.duplicates += 1;
        } else {
            report.published += 1;
        }
        bar.inc(1);
    }
    Ok(())
}
