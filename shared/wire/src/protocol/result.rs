//! [`JobResult`]: a worker's answer to one job.

use serde::{Deserialize, Serialize};

use super::{check_version, EpisodeRecord, Job, JobError, PROTOCOL_VERSION};
use crate::aggregate::{CellAggregate, Paired};

/// A worker's answer to one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// [`PROTOCOL_VERSION`] of the worker.
    pub protocol_version: u32,
    /// Sweep id of the job.
    pub sweep: String,
    /// Job index.
    pub index: u64,
    /// Which worker played it (its id; not part of the determinism contract).
    pub worker: String,
    /// `"<crate semver>+<rules_version>"`; empty when the game is unknown.
    pub engine_version: String,
    /// Game id, scenario string and policy set name of the job (empty when undecodable), so a
    /// result can be exported without the sweep definition.
    #[serde(default)]
    pub game: String,
    /// Scenario spec string as written.
    #[serde(default)]
    pub scenario: String,
    /// Policy set name.
    #[serde(default)]
    pub policy_set: String,
    /// Wall time the worker spent, in seconds (not part of the determinism contract).
    pub elapsed_seconds: f64,
    /// One JSON replay per seed, when the job asked.
    #[serde(default)]
    pub replays: Option<Vec<String>>,
    /// One record per seed, in seed order; empty on error and in a summary result.
    pub records: Vec<EpisodeRecord>,
    /// The aggregate of the job's episodes, when the job collected a summary. Not written when
    /// absent, so a records result encodes as it did before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Box<CellAggregate>>,
    /// The aggregates of a summary job's paired policy sets and the moments of the per-seed
    /// differences between every two of its sets ([`Job::paired`]). Not written when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Box<Paired>>,
    /// Set when the job failed; then `records` is empty and `summary` absent.
    pub error: Option<JobError>,
}

impl JobResult {
    /// An answer from `worker` to job `index` of `sweep`, with no engine version, records or
    /// error yet. The game, scenario and policy set name come from `job` when it decoded (empty
    /// otherwise), so that even a failure can be exported and counted per game. It speaks the
    /// job's protocol version when this build speaks it, else this build's newest.
    pub fn empty(worker: &str, sweep: String, index: u64, job: Option<&Job>) -> JobResult {
        let version = job.map(|j| j.protocol_version).filter(|v| check_version(*v).is_ok());
        JobResult {
            protocol_version: version.unwrap_or(PROTOCOL_VERSION),
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
            summary: None,
            paired: None,
            error: None,
        }
    }

    /// Episodes this result answers for: its records, or its summary's episodes (those of its
    /// paired policy sets included).
    pub fn episodes(&self) -> u64 {
        let paired = self.paired.as_ref().map_or(0, |p| p.cells.iter().map(|c| c.summary.episodes).sum());
        self.summary.as_ref().map_or(self.records.len() as u64, |s| s.episodes) + paired
    }

    /// The answer to a job that failed with `error` (see [`JobResult::empty`]): no records.
    pub fn failed(worker: &str, sweep: String, index: u64, job: Option<&Job>, error: JobError) -> JobResult {
        JobResult { error: Some(error), ..JobResult::empty(worker, sweep, index, job) }
    }
}
