//! Names of the NATS JetStream topology (docs/topology.md) and the sweep entry kept in
//! the KV bucket. Names only: the I/O is `nats` (feature `nats`), shared by worker and coordinator.

use serde::{Deserialize, Serialize};

/// Work-queue stream of jobs.
pub const JOBS_STREAM: &str = "SIMFLEET_JOBS";
/// Filter of every job subject.
pub const JOBS_FILTER: &str = "simfleet.jobs.>";
/// Prefix of each sweep's durable pull consumer on [`JOBS_STREAM`] (see [`sweep_consumer_name`]).
pub const SWEEP_CONSUMER_PREFIX: &str = "simfleet-sweep-";
/// Limits-retention stream of results.
pub const RESULTS_STREAM: &str = "SIMFLEET_RESULTS";
/// Filter of every result subject.
pub const RESULTS_FILTER: &str = "simfleet.results.>";
/// Stream capturing max-deliveries advisories of the sweeps' consumers.
pub const DLQ_STREAM: &str = "SIMFLEET_DLQ";
/// The advisory subjects captured by [`DLQ_STREAM`]: every consumer of the jobs stream.
pub const DLQ_SUBJECT: &str = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.SIMFLEET_JOBS.*";
/// KV bucket of sweep definitions and states.
pub const SWEEPS_BUCKET: &str = "simfleet_sweeps";

/// The object store bucket of the sweeps' `wasm:` modules, each named by its SHA-256.
pub const MODULES_BUCKET: &str = "simfleet_modules";

/// `simfleet.jobs.<game>.<sweep>`.
pub fn job_subject(game: &str, sweep: &str) -> String {
    format!("simfleet.jobs.{game}.{sweep}")
}

/// `simfleet.jobs.*.<sweep>`: every job of one sweep (for purge and pending counts).
pub fn sweep_jobs_filter(sweep: &str) -> String {
    format!("simfleet.jobs.*.{sweep}")
}

/// The sweep a job subject belongs to (`simfleet.jobs.<game>.<sweep>` → `<sweep>`).
pub fn sweep_of_job_subject(subject: &str) -> Option<&str> {
    let mut tokens = subject.split('.');
    match (tokens.next(), tokens.next(), tokens.next(), tokens.next(), tokens.next()) {
        (Some("simfleet"), Some("jobs"), Some(_), Some(sweep), None) if !sweep.is_empty() => Some(sweep),
        _ => None,
    }
}

/// `simfleet-sweep-<sweep>`: the durable pull consumer of one sweep's jobs. One per sweep, not
/// one for the fleet, so workers choose which sweep to pull from next (priorities and fair
/// share, docs/topology.md "Sharing the fleet"); the jobs stream is a work queue, whose
/// consumers may not overlap, and these filters never do.
pub fn sweep_consumer_name(sweep: &str) -> String {
    format!("{SWEEP_CONSUMER_PREFIX}{sweep}")
}

/// `simfleet.results.<sweep>`.
pub fn result_subject(sweep: &str) -> String {
    format!("simfleet.results.{sweep}")
}

/// `watch-<sweep>`: the durable consumer `watch` reads results through.
pub fn watch_consumer(sweep: &str) -> String {
    format!("watch-{sweep}")
}

/// `<sweep>.llm_calls`: the key in [`SWEEPS_BUCKET`] of the model calls the workers reserved
/// for a sweep with `llm_max_calls` (a decimal number, raised with a compare-and-set on its
/// revision before each model job starts). Not a [`SweepEntry`]: readers of the bucket's
/// entries skip it.
pub fn llm_calls_key(sweep: &str) -> String {
    format!("{sweep}.llm_calls")
}

/// `Nats-Msg-Id` of a job and of its result: `<sweep>.<index>`.
pub fn msg_id(sweep: &str, index: u64) -> String {
    format!("{sweep}.{index}")
}

/// Splits a `Nats-Msg-Id` back into sweep and index (`None` if it is not ours). A deliberate
/// re-queue appends `.r<n>`, which is ignored here.
pub fn parse_msg_id(id: &str) -> Option<(&str, u64)> {
    let mut parts = id.split('.');
    let sweep = parts.next().filter(|s| !s.is_empty())?;
    let index = parts.next()?.parse().ok()?;
    Some((sweep, index))
}

/// Lifecycle of a sweep in the KV bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepStatus {
    /// Jobs are (being) published.
    Submitted,
    /// Every job has a result or has failed.
    Done,
    /// `coordinator cancel` was run: workers answer its jobs with `cancelled`.
    Cancelled,
}

/// A sweep's class on a shared fleet: workers take a job of a higher class whenever one is
/// waiting; within a class, sweeps share the job slots by their [`SweepEntry::share`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Served only when no normal or high job waits.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Served before every other class.
    High,
}

impl Priority {
    /// Every class, highest first.
    pub const ALL: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

    /// `high`, `normal` or `low`.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
        }
    }
}

impl std::fmt::Display for Priority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Priority {
    type Err = String;

    fn from_str(s: &str) -> Result<Priority, String> {
        Priority::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown priority {s:?}: expected high, normal or low"))
    }
}

/// The share of a sweep without `share`: every sweep of a class gets as many slots.
pub const DEFAULT_SHARE: u32 = 1;

fn default_share() -> u32 {
    DEFAULT_SHARE
}

/// The value stored under the sweep id in [`SWEEPS_BUCKET`] (JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepEntry {
    /// Sweep id.
    pub id: String,
    /// The sweep's `name`.
    pub name: String,
    /// Lifecycle state.
    pub status: SweepStatus,
    /// Its class on the fleet (`priority` in the sweep file, `submit --priority`, changed
    /// while it runs by `coordinator priority`).
    #[serde(default)]
    pub priority: Priority,
    /// Its weight within its class (`share`, `submit --share`): a sweep of share 2 gets twice
    /// the job slots of a sweep of share 1 while both have jobs waiting.
    #[serde(default = "default_share")]
    pub share: u32,
    /// Number of jobs.
    pub jobs_total: u64,
    /// Number of episodes.
    pub episodes_total: u64,
    /// Jobs with a result so far (updated by `watch`).
    #[serde(default)]
    pub jobs_done: u64,
    /// Jobs failed so far (updated by `watch`).
    #[serde(default)]
    pub jobs_failed: u64,
    /// A stopping sweep's episodes played so far (updated by `watch`); absent for other sweeps,
    /// whose `episodes_total` is what they play. A stopping sweep's `episodes_total` is its cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episodes_played: Option<u64>,
    /// The sweep file as submitted, so any machine can rebuild the expansion.
    pub definition: String,
    /// `submit --collect`: the collect mode that overrides the file's for every cell, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collect: Option<crate::protocol::Collect>,
    /// What `submit` has published so far (absent in entries written before it was recorded:
    /// a resubmission then checks every job against the queue and the results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<PublishRecord>,
    /// The sweep file's `llm_max_calls`: workers reserve each model job's expected calls under
    /// [`llm_calls_key`] before starting it and answer it `cancelled` once the reservations
    /// reach this (absent: no limit, and in entries written before the field existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_max_calls: Option<u64>,
}

/// How far `coordinator submit` got, in publish order (job index order), written into the
/// sweep's entry as publishing proceeds so a resubmission, however late, publishes only what
/// was never published. Written only forward: a writer holding an older copy of the entry
/// never moves it back (the coordinator's `Fleet::put_entry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishRecord {
    /// Every job with a lower index was stored by the jobs stream (or already had a result).
    pub below: u64,
    /// Jobs from `below` up to (not including) this index may have been published: a submit
    /// writes it before publishing them. Beyond it nothing was ever published.
    pub up_to: u64,
    /// Every job from `below` on that the jobs stream stored has a higher stream sequence, so a
    /// resubmission finds the uncertain ones by reading the stream from here.
    pub after_seq: u64,
}

impl PublishRecord {
    /// The record of a sweep of `jobs` jobs published in full.
    pub fn complete(jobs: u64) -> PublishRecord {
        PublishRecord { below: jobs, up_to: jobs, after_seq: 0 }
    }

    /// Whether every job of a sweep of `jobs` jobs was published.
    pub fn is_complete(&self, jobs: u64) -> bool {
        self.below >= jobs
    }

    /// The later of two records of the same sweep (each field only moves forward, except
    /// `after_seq`, which belongs to `below`).
    pub fn max(self, other: PublishRecord) -> PublishRecord {
        let after_seq = match self.below.cmp(&other.below) {
            std::cmp::Ordering::Less => other.after_seq,
            std::cmp::Ordering::Greater => self.after_seq,
            std::cmp::Ordering::Equal => self.after_seq.min(other.after_seq),
        };
        PublishRecord { below: self.below.max(other.below), up_to: self.up_to.max(other.up_to), after_seq }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msg_ids_round_trip() {
        let id = msg_id("bb-0123456789ab", 42);
        assert_eq!(parse_msg_id(&id), Some(("bb-0123456789ab", 42)));
        assert_eq!(parse_msg_id("bb-0123456789ab.42.r1"), Some(("bb-0123456789ab", 42)));
        assert_eq!(parse_msg_id("garbage"), None);
    }

    #[test]
    fn job_subjects_name_their_sweep() {
        assert_eq!(sweep_of_job_subject(&job_subject("trolley", "t-1")), Some("t-1"));
        assert_eq!(sweep_of_job_subject("simfleet.jobs.trolley"), None);
        assert_eq!(sweep_of_job_subject("simfleet.results.x.y"), None);
        assert_eq!(sweep_of_job_subject("simfleet.jobs.a.b.c"), None);
    }

    #[test]
    fn entries_without_a_class_are_normal_with_share_one() {
        let json = r#"{"id":"s","name":"n","status":"submitted","jobs_total":1,"episodes_total":1,"definition":""}"#;
        let entry: SweepEntry = serde_json::from_str(json).unwrap();
        assert_eq!((entry.priority, entry.share), (Priority::Normal, 1));
        assert_eq!("high".parse::<Priority>(), Ok(Priority::High));
        assert!("urgent".parse::<Priority>().unwrap_err().contains("high, normal or low"));
        assert!(Priority::High > Priority::Normal && Priority::Normal > Priority::Low);
    }
}
