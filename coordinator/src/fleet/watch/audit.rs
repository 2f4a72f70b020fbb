//! End-to-end completeness: `watch` knows from the sweep's definition which jobs it still lacks,
//! and checks that each of them is on its way. A missing job is
//!
//! - **answered but lost from the file**: its result is in the results stream at or below the
//!   watch consumer's ack floor, so it was acknowledged once (the file was cut after a crash or a
//!   power loss, or was cut by hand). It is read again from the stream and written.
//! - **on its way**: its result is in the stream above the ack floor (the consumer delivers it),
//!   or its job is still in the jobs stream (waiting, or playing on a worker).
//! - **lost**: neither a result nor a job message (a purged jobs stream, a result the results
//!   stream lost, a follower that became leader without it). Once that has lasted longer than
//!   the sweep's ack wait times its deliveries plus [`MARGIN`] (so a job between the result's
//!   store and its ack is never taken for lost), it is published again with a message id of its
//!   own (`.r<ms>`), which its result carries too, so the servers' duplicate windows drop
//!   neither. Records are deterministic, so playing a job again is always safe, and the ledger's
//!   dedup by job index keeps each job once in the file.
//!
//! An audit lists the sweep's result headers (no payloads) and, only when some missing job has
//! no result, the jobs stream's per-subject count and then its messages: it runs when results
//! have stopped coming for a while, and less often the longer nothing is found.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use futures::StreamExt;
use simfleet::names::{job_subject, msg_id, result_subject, sweep_consumer_name, sweep_jobs_filter, watch_consumer};
use simfleet::protocol::JobResult;

use super::super::{metrics, msg_ids, Fleet};
use super::books::Books;

/// Past the ack wait × deliveries, how long a job with no trace waits before it is replayed.
pub(super) const MARGIN: Duration = Duration::from_secs(5);
/// Results must have stopped coming for this long before an audit.
pub(super) const QUIET: Duration = Duration::from_secs(3);
/// The first pause between audits, doubled while they find nothing, up to [`LONGEST`].
const FIRST: Duration = Duration::from_secs(3);
const LONGEST: Duration = Duration::from_secs(60);

/// The audit's memory between runs.
pub(super) struct Audit {
    /// Missing jobs with no result and no job message, and since when.
    traceless: HashMap<u64, Instant>,
    next: Instant,
    every: Duration,
}

/// What one audit did.
#[derive(Default)]
pub(super) struct Found {
    pub(super) reread: u64,
    pub(super) replayed: u64,
    /// Missing jobs with no trace yet, not replayed yet.
    pub(super) traceless: usize,
}

impl Audit {
    pub(super) fn new() -> Audit {
        Audit { traceless: HashMap::new(), next: Instant::now(), every: FIRST }
    }

    /// Whether an audit is due, results having stopped `quiet` ago.
    pub(super) fn due(&self, quiet: Duration) -> bool {
        quiet >= QUIET && Instant::now() >= self.next
    }

    /// Re-reads the results the file lost and replays the jobs that were lost.
    pub(super) async fn run(&mut self, fleet: &Fleet, ledger: &mut impl Books) -> anyhow::Result<Found> {
        let mut found = Found::default();
        let missing = ledger.missing();
        if missing.is_empty() {
            return Ok(found);
        }
        let id = ledger.sweep_id().to_string();
        let floor = match fleet.topology.results.consumer_info(watch_consumer(&id)).await {
            Ok(info) => info.ack_floor.stream_sequence,
            Err(_) => 0,
        };
        let answered = result_sequences(fleet, &id).await?;
        for &job in &missing {
            let Some(&seq) = answered.get(&job) else { continue };
            if seq > floor {
                continue;
            }
            let payload = whole_result(fleet, seq).await?;
            let result: JobResult = simfleet::protocol::decode(&payload)?;
            if result.sweep == id && result.index == job && ledger.is_pending(job) {
                tracing::warn!(sweep = id, job, "a result acknowledged earlier is not in the file: read again");
                ledger.reread(result)?;
                found.reread += 1;
                metrics::count_reread(&id);
            }
        }
        if found.reread > 0 {
            ledger.flush()?;
        }
        let no_result: BTreeSet<u64> =
            missing.into_iter().filter(|j| ledger.is_pending(*j) && !answered.contains_key(j)).collect();
        self.traceless.retain(|j, _| no_result.contains(j));
        if !no_result.is_empty() {
            let alive = queued_jobs(fleet, &id, no_result.len()).await?;
            let (ack_wait, deliveries) = limits(fleet, &id).await;
            let grace = ack_wait * deliveries + MARGIN;
            for &job in &no_result {
                if alive.as_ref().is_none_or(|a| a.contains(&job)) {
                    self.traceless.remove(&job);
                    continue;
                }
                let since = *self.traceless.entry(job).or_insert_with(Instant::now);
                if since.elapsed() >= grace {
                    replay(fleet, ledger, job).await?;
                    ledger.replayed();
                    found.replayed += 1;
                    metrics::count_replayed(&id);
                    // Lost again, it is replayed again after another grace.
                    self.traceless.insert(job, Instant::now());
                }
            }
        }
        found.traceless = self.traceless.len();
        self.every = if found.reread + found.replayed > 0 || found.traceless > 0 {
            FIRST
        } else {
            (self.every * 2).min(LONGEST)
        };
        self.next = Instant::now() + self.every;
        Ok(found)
    }
}

/// The stream sequence of each job's result (the first one stored).
/// The encoded result stored at `seq`: the message itself, or, for the head of a result sent in
/// parts, its parts put together (they precede the head in the stream: the worker confirms them
/// all before publishing it).
async fn whole_result(fleet: &Fleet, seq: u64) -> anyhow::Result<Vec<u8>> {
    use simfleet::nats::result_parts::{Head, Part};
    let results = &fleet.topology.results;
    let msg = results.get_raw_message(seq).await?;
    let Some(head) = Head::of(Some(&msg.headers)) else {
        return Ok(msg.payload.to_vec());
    };
    let mut parts: Vec<Option<Vec<u8>>> = vec![None; head.n as usize];
    let mut found = 0;
    // Other results may sit between the parts and their head: look back a bounded way.
    let mut at = seq;
    while found < head.n && at > 1 && seq - at <= 64 * u64::from(head.n) + 1024 {
        at -= 1;
        let Ok(m) = results.get_raw_message(at).await else { continue };
        if let Some(part) = Part::of(Some(&m.headers)).filter(|p| p.attempt == head.attempt) {
            if let Some(slot @ None) = parts.get_mut(part.k as usize) {
                *slot = Some(m.payload.to_vec());
                found += 1;
            }
        }
    }
    anyhow::ensure!(
        found == head.n,
        "the result at {seq} was sent in {} parts; {found} are left in the stream",
        head.n
    );
    let whole: Vec<u8> = parts.into_iter().flatten().flatten().collect();
    anyhow::ensure!(whole.len() as u64 == head.bytes, "the parts of the result at {seq} do not add up");
    Ok(whole)
}

async fn result_sequences(fleet: &Fleet, id: &str) -> anyhow::Result<BTreeMap<u64, u64>> {
    let mut answered = BTreeMap::new();
    msg_ids::for_each_header(&fleet.topology.results, &result_subject(id), true, |msg| {
        if let (Some(job), Some(info)) = (msg_ids::index_of(msg.headers.as_ref(), id), msg.info().ok()) {
            answered.entry(job).or_insert(info.stream_sequence);
        }
    })
    .await?;
    Ok(answered)
}

/// The jobs of sweep `id` in the jobs stream, or `None` when it holds at least `wanted`
/// messages of the sweep (then none can be taken for lost yet, and the stream is not walked).
async fn queued_jobs(fleet: &Fleet, id: &str, wanted: usize) -> anyhow::Result<Option<BTreeSet<u64>>> {
    let mut subjects = fleet.topology.jobs.info_with_subjects(sweep_jobs_filter(id)).await?;
    let mut held = 0;
    while let Some(next) = subjects.next().await {
        held += next?.1;
    }
    if held >= wanted {
        return Ok(None);
    }
    if held == 0 {
        return Ok(Some(Default::default()));
    }
    Ok(Some(msg_ids::queued(&fleet.topology.jobs, &sweep_jobs_filter(id), id, 0).await?))
}

/// The sweep consumer's ack wait and deliveries (the workers set them), else the coordinator's.
async fn limits(fleet: &Fleet, id: &str) -> (Duration, u32) {
    let fallback = (fleet.config.ack_wait, fleet.config.max_deliver.max(1) as u32);
    match fleet.topology.jobs.clone().consumer_info(sweep_consumer_name(id)).await {
        Ok(info) if info.config.max_deliver > 0 => (info.config.ack_wait, info.config.max_deliver as u32),
        Ok(info) => (info.config.ack_wait, fallback.1),
        Err(_) => fallback,
    }
}

/// Publishes job `index` again with a message id of its own.
async fn replay(fleet: &Fleet, ledger: &impl Books, index: u64) -> anyhow::Result<()> {
    let job = ledger.job(index).ok_or_else(|| anyhow::anyhow!("job {index} is not in the sweep"))?;
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis();
    let id = format!("{}.r{stamp}", msg_id(&job.sweep, job.index));
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(async_nats::header::NATS_MESSAGE_ID, id.as_str());
    let payload = simfleet::protocol::encode(&job);
    fleet.js.publish_with_headers(job_subject(&job.game, &job.sweep), headers, payload.into()).await?.await?;
    tracing::warn!(sweep = job.sweep, job = index, msg_id = id, "no result and no job message: published again");
    ledger
        .progress()
        .bar()
        .println(format!("job {index}: lost by the servers (no result, no job message); published again"));
    Ok(())
}
