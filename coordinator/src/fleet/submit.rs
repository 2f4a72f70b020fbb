//! `coordinator submit`: publishes a sweep's jobs and its KV entry.
//!
//! Submitting is idempotent at any delay. The sweep's KV entry carries a publish record
//! ([`PublishRecord`]), written as publishing proceeds: every job below `below` was stored by the
//! jobs stream, jobs from `below` to `up_to` may have been (the record says so before they go
//! out), and nothing beyond `up_to` ever was. A resubmission, 2 seconds or 2 days later,
//! publishes only what was never published: it skips everything below `below`, checks the few
//! uncertain jobs against the queue (message gets by subject from `after_seq`) and the results,
//! and publishes the rest. A resubmitted finished sweep keeps its status. Each job still goes
//! out with `Nats-Msg-Id = <sweep>.<index>`, so the server drops one it saw within its
//! duplicate window: a second line of defence.
//!
//! Jobs that were published and then lost (a purged stream) are not republished by a plain
//! resubmission: [`Mode::Republish`] (`submit --republish`) does that, publishing every job that
//! has neither a result nor a message in the queue, with a message id of its own (`.r<time>`)
//! so the duplicate window does not drop it.
//!
//! Before publishing, each records cell is probed ([`payload`]): a sweep whose results would be
//! over the server's `max_payload` is refused, naming the cells and the episodes per job that
//! would fit, instead of being played and answered `invalid_job` job by job.
//!
//! Publishing is pipelined: up to [`ACKS_IN_FLIGHT`] publish acks are awaited at once, which is
//! what makes tens of thousands of jobs per second possible over one connection. A submit
//! interrupted by a JetStream outage (a server restarting, a leader election, a cluster without
//! quorum) starts over once JetStream answers, from its record, and says so while it waits
//! (`simfleet::nats::outage`).

use std::collections::{BTreeMap, BTreeSet};
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use async_nats::jetstream::context::PublishError;
use async_nats::jetstream::publish::PublishAck;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use indicatif::ProgressBar;
use simfleet::names::{
    job_subject, msg_id, result_subject, sweep_jobs_filter, Priority, PublishRecord, SweepEntry, SweepStatus,
};
use simfleet::nats::outage::{is_transient, wait_out, WAITING};
use simfleet::nats::topology::{sweep_consumer, LimitsOwner};

use super::{msg_ids, payload, Fleet};
use crate::sweep::Sweep;

/// Publish acks awaited at once, and jobs the publish record announces at a time (`up_to`).
pub const ACKS_IN_FLIGHT: usize = 4096;

/// What a submit publishes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Only jobs never published (the publish record, then the queue and results).
    #[default]
    Once,
    /// Also jobs published before and lost since (a purged stream): every job with neither a
    /// result nor a message in the queue.
    Republish,
}

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
    /// Jobs skipped because an earlier submit published them (the publish record, or the queue).
    pub published_before: u64,
    /// Jobs the server dropped as duplicates (same message id within its window).
    pub duplicates: u64,
    /// The sweep's status after the submit.
    pub status: SweepStatus,
    /// Its class after the submit.
    pub priority: Priority,
    /// Its share after the submit.
    pub share: u32,
}

/// Publishes every job of `sweep` never published, waiting out JetStream outages. `definition`
/// is the sweep file's text, stored in the KV entry so `watch` and `status` work from any
/// machine.
pub async fn submit(fleet: &Fleet, sweep: &Sweep, definition: &str, bar: &ProgressBar) -> anyhow::Result<SubmitReport> {
    submit_with(fleet, sweep, definition, Mode::Once, bar).await
}

/// [`submit`], publishing what `mode` says.
pub async fn submit_with(
    fleet: &Fleet,
    sweep: &Sweep,
    definition: &str,
    mode: Mode,
    bar: &ProgressBar,
) -> anyhow::Result<SubmitReport> {
    // Results over one message: said before a job goes out (they arrive in parts). Playing the
    // probes blocks this task for a moment (tenths of a second for most sweeps), before anything
    // else runs on the connection.
    let max_payload = fleet.js.client().server_info().max_payload;
    let over = payload::oversized(sweep, max_payload);
    if !over.is_empty() {
        bar.suspend(|| eprintln!("{}", payload::warning(&over, max_payload)));
    }
    // Jobs published by attempts an outage interrupted: the next attempt finds them published.
    let mut earlier = 0;
    loop {
        bar.reset();
        match submit_once(fleet, sweep, definition, mode, bar).await {
            Ok(mut report) => {
                report.published_before = report.published_before.saturating_sub(earlier);
                report.published += earlier;
                return Ok(report);
            }
            Err(failed) if is_transient(&failed.error) => {
                earlier += failed.published;
                tracing::warn!(
                    operation = "submitting the jobs",
                    error = format!("{:#}", failed.error),
                    "{WAITING}; the submit starts over then, from its publish record"
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

/// The publish record as publishing proceeds: which jobs are settled (stored by the stream, or
/// known to need nothing) above `below`, and the stream sequences of those stored.
struct Progress {
    record: PublishRecord,
    /// Settled jobs at or above `record.below`, with the stream sequence of those published now.
    settled: BTreeMap<u64, Option<u64>>,
    /// `after_seq` stays put until `below` passes the jobs an earlier submit left uncertain:
    /// some of them are in the stream below the sequences this one sees.
    hold_until: u64,
    /// The highest stream sequence among the jobs below `below` published now.
    seq: u64,
}

impl Progress {
    fn settle(&mut self, index: u64, seq: Option<u64>) {
        self.settled.insert(index, seq);
        self.advance();
    }

    /// Moves `below` over the settled jobs it reaches.
    fn advance(&mut self) {
        while let Some(seq) = self.settled.remove(&self.record.below) {
            self.seq = self.seq.max(seq.unwrap_or(0));
            self.record.below += 1;
        }
        if self.record.below >= self.hold_until {
            self.record.after_seq = self.record.after_seq.max(self.seq);
        }
    }
}

async fn submit_once(
    fleet: &Fleet,
    sweep: &Sweep,
    definition: &str,
    mode: Mode,
    bar: &ProgressBar,
) -> Result<SubmitReport, Interrupted> {
    // Modules first: a job must never reach a worker before the module it names.
    let modules: Vec<(&str, &[u8])> = sweep.modules.iter().map(|m| (m.hash.as_str(), &*m.bytes)).collect();
    simfleet::nats::modules::put(&fleet.js, &modules, fleet.config.replicas).await?;
    let plan = Plan::read(fleet, sweep, mode).await?;
    let (total, previous) = (plan.total, plan.previous.as_ref());
    let mut report = SubmitReport {
        sweep: sweep.id.clone(),
        jobs: total,
        published: 0,
        skipped: (plan.start..total).filter(|i| plan.answered.contains(i)).count() as u64,
        published_before: 0,
        duplicates: 0,
        status: match (previous, mode) {
            (Some(p), Mode::Republish) if plan.publish.is_empty() => p.status,
            (Some(p), Mode::Once) => p.status,
            _ => SweepStatus::Submitted,
        },
        priority: Priority::default(),
        share: 1,
    };
    report.published_before = total - plan.publish.len() as u64 - report.skipped;
    // A resubmission keeps the class the sweep has now (`coordinator priority` may have moved
    // it) unless --priority or --share say otherwise.
    (report.priority, report.share) = match previous {
        Some(p) if !sweep.class_given => (p.priority, p.share),
        _ => (sweep.priority, sweep.share),
    };
    let (status, priority, share) = (report.status, report.priority, report.share);
    let entry = |record: PublishRecord| SweepEntry {
        id: sweep.id.clone(),
        name: sweep.name.clone(),
        status,
        priority,
        share,
        // A stopping sweep's watch raises it as it publishes rounds.
        jobs_total: previous.filter(|_| plan.round.is_some()).map_or(total, |p| p.jobs_total.max(total)),
        episodes_total: sweep.episode_count(),
        jobs_done: previous.map_or(0, |p| p.jobs_done),
        jobs_failed: previous.map_or(0, |p| p.jobs_failed),
        episodes_played: previous.and_then(|p| p.episodes_played),
        definition: definition.to_string(),
        published: Some(record),
        collect: sweep.collect_override,
        llm_max_calls: sweep.llm_max_calls,
    };
    publish(fleet, sweep, &plan, mode, &entry, report, bar).await
}

/// What a submit finds before it publishes: the jobs (a stopping sweep's first round only),
/// the sweep's entry as stored, and which jobs need publishing.
struct Plan {
    /// A stopping sweep's first round; `None` for a plain sweep (every job).
    round: Option<Vec<simfleet::protocol::Job>>,
    total: u64,
    previous: Option<SweepEntry>,
    stream_seq: u64,
    /// Where publishing starts, the jobs an earlier submit left uncertain, and the stream
    /// sequence after which they are looked for.
    start: u64,
    uncertain: std::ops::Range<u64>,
    after_seq: u64,
    /// Jobs with a result, and uncertain jobs still queued: neither is published again.
    answered: BTreeSet<u64>,
    queued: BTreeSet<u64>,
    publish: Vec<u64>,
}

impl Plan {
    async fn read(fleet: &Fleet, sweep: &Sweep, mode: Mode) -> Result<Plan, Interrupted> {
        // A stopping sweep publishes the jobs of its first round only: `watch` publishes each
        // next round once the checkpoint before it is folded and logged (`fleet::watch::rounds`).
        // Its first round's jobs are numbered 0.. like a plain sweep's, so the publish record
        // holds.
        let round: Option<Vec<simfleet::protocol::Job>> =
            crate::stop::block::Stopping::new(sweep).map(|mut s| s.round_jobs(sweep));
        let total = round.as_ref().map_or(sweep.job_count(), |r| r.len() as u64);
        let previous = match wait_out("reading the sweep's KV entry", || fleet.topology.sweeps.get(&sweep.id)).await? {
            Some(bytes) => serde_json::from_slice::<SweepEntry>(&bytes).ok(),
            None => None,
        };
        let stream_seq =
            wait_out("reading the jobs stream", || fleet.topology.jobs.get_info()).await?.state.last_sequence;
        // Which jobs may have been published already (checked against the queue and the
        // results), from which stream sequence on, and where publishing starts.
        let (start, uncertain, after_seq) = match (mode, previous.as_ref().map(|p| p.published)) {
            (Mode::Republish, _) | (Mode::Once, Some(None)) => (0, 0..total, 0),
            (Mode::Once, Some(Some(r))) => (r.below.min(total), r.below.min(total)..r.up_to.min(total), r.after_seq),
            (Mode::Once, None) => (0, 0..0, stream_seq),
        };
        let (answered, queued) = if uncertain.is_empty() {
            (BTreeSet::new(), BTreeSet::new())
        } else {
            let answered = msg_ids::indexes(&fleet.topology.results, &result_subject(&sweep.id), &sweep.id).await?;
            let filter = sweep_jobs_filter(&sweep.id);
            (answered, msg_ids::queued(&fleet.topology.jobs, &filter, &sweep.id, after_seq).await?)
        };
        // Jobs published before and still queued, and jobs with a result, need nothing.
        let queued: BTreeSet<u64> = queued.into_iter().filter(|i| uncertain.contains(i)).collect();
        let publish: Vec<u64> = (start..total).filter(|i| !answered.contains(i) && !queued.contains(i)).collect();
        Ok(Plan { round, total, previous, stream_seq, start, uncertain, after_seq, answered, queued, publish })
    }

    fn job(&self, sweep: &Sweep, index: u64) -> Option<simfleet::protocol::Job> {
        match &self.round {
            Some(r) => r.get(index as usize).cloned(),
            None => sweep.job(index),
        }
    }
}

/// Publishes the plan's jobs, each announced in the entry's publish record (`entry`) before
/// it goes out, at most [`ACKS_IN_FLIGHT`] unconfirmed, and the record completed at the end.
async fn publish(
    fleet: &Fleet,
    sweep: &Sweep,
    plan: &Plan,
    mode: Mode,
    entry: &dyn Fn(PublishRecord) -> SweepEntry,
    mut report: SubmitReport,
    bar: &ProgressBar,
) -> Result<SubmitReport, Interrupted> {
    let total = plan.total;
    let mut progress = Progress {
        record: PublishRecord {
            below: plan.start,
            up_to: plan.start.max(plan.uncertain.end),
            after_seq: plan.after_seq,
        },
        settled: plan.answered.range(plan.start..).chain(&plan.queued).map(|&i| (i, None)).collect(),
        hold_until: plan.uncertain.end,
        seq: plan.stream_seq,
    };
    progress.advance();
    fleet.put_entry(&entry(progress.record)).await?;
    // The sweep's consumer before its first job, so no job waits for a worker to create it.
    sweep_consumer(&fleet.topology.jobs, &fleet.config, &sweep.id, LimitsOwner::Coordinator)
        .await
        .map_err(anyhow::Error::from)?;
    bar.set_length(total);
    bar.inc(total - plan.publish.len() as u64);
    let republish_suffix = match mode {
        Mode::Republish => {
            format!(".r{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs())
        }
        Mode::Once => String::new(),
    };
    let mut acks: FuturesUnordered<AckFuture> = FuturesUnordered::new();
    let interrupted = |error: anyhow::Error, report: &SubmitReport| Interrupted { error, published: report.published };
    for &index in &plan.publish {
        if index >= progress.record.up_to {
            // Announce the next jobs before any of them goes out.
            progress.record.up_to = (index + ACKS_IN_FLIGHT as u64).min(total);
            fleet.record_published(&entry(progress.record)).await.map_err(|e| interrupted(e, &report))?;
        }
        let job = plan.job(sweep, index).expect("an index of the sweep");
        let mut headers = async_nats::HeaderMap::new();
        let id = msg_id(&job.sweep, job.index) + &republish_suffix;
        headers.insert(async_nats::header::NATS_MESSAGE_ID, id.as_str());
        let payload = simfleet::protocol::encode(&job);
        let subject = job_subject(&job.game, &job.sweep);
        let ack = match fleet.js.publish_with_headers(subject, headers, payload.into()).await {
            Ok(ack) => ack,
            Err(e) => return Err(interrupted(e.into(), &report)),
        };
        acks.push(Box::pin(async move { (index, ack.into_future().await) }));
        while acks.len() >= ACKS_IN_FLIGHT {
            settle(acks.next().await, &mut report, &mut progress, bar).map_err(|e| interrupted(e, &report))?;
        }
    }
    while !acks.is_empty() {
        settle(acks.next().await, &mut report, &mut progress, bar).map_err(|e| interrupted(e, &report))?;
    }
    debug_assert!(progress.record.is_complete(total), "{:?}", progress.record);
    fleet.record_published(&entry(PublishRecord::complete(total))).await.map_err(|e| interrupted(e, &report))?;
    Ok(report)
}

type AckFuture = Pin<Box<dyn Future<Output = (u64, Result<PublishAck, PublishError>)> + Send>>;

fn settle(
    ack: Option<(u64, Result<PublishAck, PublishError>)>,
    report: &mut SubmitReport,
    progress: &mut Progress,
    bar: &ProgressBar,
) -> anyhow::Result<()> {
    if let Some((index, ack)) = ack {
        let ack = ack.map_err(|e| anyhow::anyhow!("the server did not take job {index}: {e}"))?;
        if ack.duplicate {
            report.duplicates += 1;
        } else {
            report.published += 1;
        }
        progress.settle(index, Some(ack.sequence));
        bar.inc(1);
    }
    Ok(())
}
