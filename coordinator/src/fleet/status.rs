//! `coordinator status [ID]`: a sweep's state from any machine, from the KV entry, the
//! streams' per-subject message counts and the sweep's consumer: its class and share, its jobs
//! waiting and in flight, and the share of the fleet's jobs in flight it has now; then the
//! limits the sweeps' consumers run under, as the server has them.

use std::collections::BTreeMap;

use async_nats::jetstream::stream::Stream;
use futures::TryStreamExt;
use simfleet::names::{result_subject, sweep_consumer_name, Priority, SweepStatus, JOBS_FILTER, RESULTS_FILTER};

use super::Fleet;
use crate::table::{self, Align};

/// One sweep's state.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepState {
    /// Sweep id.
    pub id: String,
    /// Lifecycle state in the KV bucket.
    pub status: SweepStatus,
    /// Its class.
    pub priority: Priority,
    /// Its weight within the class.
    pub share: u32,
    /// Jobs waiting for a worker (its consumer's pending count).
    pub waiting: u64,
    /// Jobs delivered and not yet answered.
    pub in_flight: u64,
    /// Its part of every sweep's jobs in flight now, 0 to 1: the share of the fleet it gets.
    pub fleet_share: f64,
    /// Jobs in the sweep.
    pub jobs_total: u64,
    /// Episodes in the sweep (a stopping sweep's cap).
    pub episodes_total: u64,
    /// A stopping sweep's episodes played so far, as its `watch` counted them.
    pub episodes_played: Option<u64>,
    /// Jobs in the queue: waiting, or delivered and not yet acknowledged.
    pub queued: u64,
    /// Jobs with a result in the results stream (error results included; each job once,
    /// however many parts or duplicates its result came in).
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
    let results = counts(&fleet.topology.results, RESULTS_FILTER).await?;
    let mut states = Vec::new();
    for e in entries {
        let queued = queued.get(&e.id).copied().unwrap_or(0);
        // Only a sweep with jobs in the queue has any waiting or in flight.
        let (waiting, in_flight) = match queued {
            0 => (0, 0),
            _ => match fleet.topology.jobs.consumer_info(sweep_consumer_name(&e.id)).await {
                Ok(info) => (info.num_pending, info.num_ack_pending as u64),
                Err(_) => (queued, 0),
            },
        };
        // Messages are not jobs: a large result comes in parts, a redelivered job may answer
        // twice. Its distinct job ids, read from the headers alone, are.
        let answered = match results.get(&e.id) {
            None | Some(0) => 0,
            Some(_) => {
                super::msg_ids::indexes(&fleet.topology.results, &result_subject(&e.id), &e.id).await?.len() as u64
            }
        };
        states.push(SweepState {
            queued,
            answered,
            priority: e.priority,
            share: e.share,
            waiting,
            in_flight,
            fleet_share: 0.0,
            id: e.id,
            status: e.status,
            jobs_total: e.jobs_total,
            episodes_total: e.episodes_total,
            episodes_played: e.episodes_played,
            watched_done: e.jobs_done,
            watched_failed: e.jobs_failed,
        });
    }
    let all: u64 = states.iter().map(|s| s.in_flight).sum();
    for s in &mut states {
        s.fleet_share = if all == 0 { 0.0 } else { s.in_flight as f64 / all as f64 };
    }
    Ok(states)
}

/// The limits of the sweeps' consumers as the server has them (workers set them to their
/// configuration), read off one sweep's consumer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsumerState {
    /// The sweep whose consumer was read.
    pub sweep: String,
    /// How long a delivered job may go without an ack (in-progress acks extend it).
    pub ack_wait: std::time::Duration,
    /// Deliveries of a job before its max-deliveries advisory (the DLQ).
    pub max_deliver: i64,
    /// Jobs of one sweep delivered and not yet acknowledged, fleet-wide, at most.
    pub max_ack_pending: i64,
}

/// The limits of the first of `states`' sweeps with a consumer (queued jobs first); `None`
/// when none has one.
pub async fn consumer(fleet: &Fleet, states: &[SweepState]) -> Option<ConsumerState> {
    let mut order: Vec<&SweepState> = states.iter().collect();
    order.sort_by_key(|s| std::cmp::Reverse(s.queued));
    for s in order {
        if let Ok(info) = fleet.topology.jobs.consumer_info(sweep_consumer_name(&s.id)).await {
            return Some(ConsumerState {
                sweep: s.id.clone(),
                ack_wait: info.config.ack_wait,
                max_deliver: info.config.max_deliver,
                max_ack_pending: info.config.max_ack_pending,
            });
        }
    }
    None
}

impl std::fmt::Display for ConsumerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sweeps' consumers (as {}'s): ack_wait_seconds {}, max_deliver {}, max_ack_pending {} (the most jobs \
             of one sweep in flight fleet-wide)",
            sweep_consumer_name(&self.sweep),
            self.ack_wait.as_secs(),
            self.max_deliver,
            self.max_ack_pending,
        )
    }
}

/// The states as a table.
pub fn table(states: &[SweepState]) -> String {
    use Align::{Left as L, Right as R};
    let head = [
        "sweep",
        "status",
        "priority",
        "share",
        "jobs",
        "episodes",
        "waiting",
        "in flight",
        "fleet share",
        "answered",
        "written",
        "failed",
        "progress",
    ];
    let rows: Vec<[String; 13]> = states
        .iter()
        .map(|s| {
            let share = |n: u64| if s.jobs_total == 0 { 1.0 } else { n.min(s.jobs_total) as f64 / s.jobs_total as f64 };
            // Done: a result or a failure, as the watch counted them (the stream's answers
            // before any watch has). A cancelled sweep's unplayed jobs fail as `cancelled`:
            // its progress is what was played.
            let counted = s.watched_done + s.watched_failed > 0;
            let progress = match s.status {
                SweepStatus::Cancelled => {
                    let played = if counted { s.watched_done } else { s.answered };
                    format!("{:.1}% cancelled", 100.0 * share(played))
                }
                _ => format!(
                    "{:.1}%",
                    100.0 * share(if counted { s.watched_done + s.watched_failed } else { s.answered })
                ),
            };
            [
                s.id.clone(),
                format!("{:?}", s.status).to_lowercase(),
                s.priority.to_string(),
                s.share.to_string(),
                s.jobs_total.to_string(),
                // A stopping sweep plays fewer than its cap: played, and the cap apart.
                match s.episodes_played {
                    Some(played) => format!("{played} (cap {})", s.episodes_total),
                    None => s.episodes_total.to_string(),
                },
                s.waiting.to_string(),
                s.in_flight.to_string(),
                format!("{:.1}%", 100.0 * s.fleet_share),
                s.answered.to_string(),
                s.watched_done.to_string(),
                s.watched_failed.to_string(),
                progress,
            ]
        })
        .collect();
    let mut out = table::render(&head, &[L, L, L, R, R, R, R, R, R, R, R, R, R], &rows);
    if states.is_empty() {
        out.push_str("(no sweeps on this server)\n");
    }
    out
}
