//! `coordinator status [ID]`: a sweep's state from any machine, from the KV entry and the
//! streams' per-subject message counts, and the workers' consumer: the limits the fleet runs
//! under, as the server has them.

use std::collections::BTreeMap;

use async_nats::jetstream::stream::Stream;
use futures::TryStreamExt;
use simfleet::topology::{SweepStatus, JOBS_FILTER, RESULTS_FILTER, WORKERS_CONSUMER};

use super::Fleet;
use crate::table::{self, Align};

/// One sweep's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepState {
    /// Sweep id.
    pub id: String,
    /// Lifecycle state in the KV bucket.
    pub status: SweepStatus,
    /// Jobs in the sweep.
    pub jobs_total: u64,
    /// Episodes in the sweep.
    pub episodes_total: u64,
    /// Jobs in the queue: waiting, or delivered and not yet acknowledged.
    pub queued: u64,
    /// Results in the results stream (error results included).
    pub answered: u64,
    /// Jobs a `watch` has written (as of its last update).
    pub watched_done: u64,
    /// Jobs a `watch` has seen fail.
    pub watched_failed: u64,
}

/// Message counts per sweep (the last subject token) of `stream` under `filter`.
async fn counts(stream: &Stream, filter: &str) -> anyhow::Result<BTreeMap<String, u64>> {
    let mut out = BTreeMap::new();
    let mut subjects = stream.info_with_subjects(filter).await?;
    while let Some((subject, count)) = subjects.try_next().await? {
        let sweep = subject.rsplit('.').next().unwrap_or_default().to_string();
        *out.entry(sweep).or_default() += count as u64;
    }
    Ok(out)
}

/// The state of sweep `id`, or of every sweep the KV bucket knows.
pub async fn status(fleet: &Fleet, id: Option<&str>) -> anyhow::Result<Vec<SweepState>> {
    let entries = match id {
        Some(id) => vec![fleet.entry(id).await?],
        None => fleet.entries().await?,
    };
    let queued = counts(&fleet.topology.jobs, JOBS_FILTER).await?;
    let answered = counts(&fleet.topology.results, RESULTS_FILTER).await?;
    Ok(entries
        .into_iter()
        .map(|e| SweepState {
            queued: queued.get(&e.id).copied().unwrap_or(0),
            answered: answered.get(&e.id).copied().unwrap_or(0),
            id: e.id,
            status: e.status,
            jobs_total: e.jobs_total,
            episodes_total: e.episodes_total,
            watched_done: e.jobs_done,
            watched_failed: e.jobs_failed,
        })
        .collect())
}

/// The workers' consumer as the server has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsumerState {
    /// How long a delivered job may go without an ack (in-progress acks extend it).
    pub ack_wait: std::time::Duration,
    /// Deliveries of a job before its max-deliveries advisory (the DLQ).
    pub max_deliver: i64,
    /// Jobs delivered and not yet acknowledged, fleet-wide, at most.
    pub max_ack_pending: i64,
    /// Jobs delivered and not yet acknowledged now.
    pub in_flight: u64,
    /// Jobs waiting for a worker now.
    pub waiting: u64,
}

/// The workers' consumer's limits and load.
pub async fn consumer(fleet: &Fleet) -> anyhow::Result<ConsumerState> {
    let info = fleet.topology.jobs.consumer_info(WORKERS_CONSUMER).await?;
    Ok(ConsumerState {
        ack_wait: info.config.ack_wait,
        max_deliver: info.config.max_deliver,
        max_ack_pending: info.config.max_ack_pending,
        in_flight: info.num_ack_pending as u64,
        waiting: info.num_pending,
    })
}

impl std::fmt::Display for ConsumerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "workers' consumer {WORKERS_CONSUMER}: ack_wait_seconds {}, max_deliver {}, max_ack_pending {} \
             (the most jobs in flight fleet-wide); now {} in flight, {} waiting",
            self.ack_wait.as_secs(),
            self.max_deliver,
            self.max_ack_pending,
            self.in_flight,
            self.waiting
        )
    }
}

/// The states as a table.
pub fn table(states: &[SweepState]) -> String {
    use Align::{Left as L, Right as R};
    let head = ["sweep", "status", "jobs", "episodes", "queued", "answered", "written", "failed", "progress"];
    let rows: Vec<[String; 9]> = states
        .iter()
        .map(|s| {
            let share = if s.jobs_total == 0 { 1.0 } else { s.answered.min(s.jobs_total) as f64 / s.jobs_total as f64 };
            [
                s.id.clone(),
                format!("{:?}", s.status).to_lowercase(),
                s.jobs_total.to_string(),
                s.episodes_total.to_string(),
                s.queued.to_string(),
                s.answered.to_string(),
                s.watched_done.to_string(),
                s.watched_failed.to_string(),
                format!("{:.1}%", 100.0 * share),
            ]
        })
        .collect();
    let mut out = table::render(&head, &[L, L, R, R, R, R, R, R, R], &rows);
    if states.is_empty() {
        out.push_str("(no sweeps on this server)\n");
    }
    out
}
