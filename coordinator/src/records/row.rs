//! The exported episode row: the `EpisodeRecord` fields prepended with where it came from
//! (`sweep, job, game, engine_version, scenario, policy_set`). Every export format and the
//! summary read these same names.

use serde::{Deserialize, Serialize};
use simfleet::protocol::{EpisodeRecord, JobResult, Stats, StatsMap};
use simfleet::GameKind;

/// One exported row, borrowing from a [`JobResult`] (what writers serialise).
#[derive(Clone, Copy, Serialize)]
pub struct RowRef<'a> {
    /// Sweep id.
    pub sweep: &'a str,
    /// Job index.
    pub job: u64,
    /// Game id.
    pub game: &'a str,
    /// `"<crate semver>+<rules_version>"`.
    pub engine_version: &'a str,
    /// Scenario spec string as written in the sweep.
    pub scenario: &'a str,
    /// Policy set name.
    pub policy_set: &'a str,
    /// Episode seed.
    pub seed: u64,
    /// Outcome label.
    pub outcome: &'a str,
    /// Episode length.
    pub length: u32,
    /// Cut by a length limit.
    pub truncated: bool,
    /// Team reward.
    pub team_reward: f64,
    /// Per-seat rewards.
    pub agent_rewards: &'a [f64],
    /// Trajectory hash.
    pub trajectory_hash: &'a str,
    /// Game stats: typed stats stay typed, so the line formats write them without building
    /// their map (CSV and Parquet read them as a map, built once per record).
    pub stats: &'a Stats,
}

impl<'a> RowRef<'a> {
    /// The row of `record` in `result`.
    pub fn new(result: &'a JobResult, record: &'a EpisodeRecord) -> RowRef<'a> {
        RowRef {
            sweep: &result.sweep,
            job: result.index,
            game: &result.game,
            engine_version: &result.engine_version,
            scenario: &result.scenario,
            policy_set: &result.policy_set,
            seed: record.seed,
            outcome: &record.outcome,
            length: record.length,
            truncated: record.truncated,
            team_reward: record.team_reward,
            agent_rewards: &record.agent_rewards,
            trajectory_hash: &record.trajectory_hash,
            stats: &record.stats,
        }
    }
}

/// One exported row, owned (what readers produce).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Sweep id.
    pub sweep: String,
    /// Job index.
    pub job: u64,
    /// Game id.
    pub game: String,
    /// Engine version.
    pub engine_version: String,
    /// Scenario spec string.
    pub scenario: String,
    /// Policy set name.
    pub policy_set: String,
    /// Episode seed.
    pub seed: u64,
    /// Outcome label.
    pub outcome: String,
    /// Episode length.
    pub length: u32,
    /// Cut by a length limit.
    pub truncated: bool,
    /// Team reward.
    pub team_reward: f64,
    /// Per-seat rewards.
    pub agent_rewards: Vec<f64>,
    /// Trajectory hash.
    pub trajectory_hash: String,
    /// Game stats.
    #[serde(default)]
    pub stats: StatsMap,
}

impl Row {
    /// The episode record the row was exported from (its cell's identity and job left behind).
    pub fn into_record(self) -> EpisodeRecord {
        EpisodeRecord {
            seed: self.seed,
            outcome: self.outcome,
            length: self.length,
            truncated: self.truncated,
            team_reward: self.team_reward,
            agent_rewards: self.agent_rewards,
            trajectory_hash: self.trajectory_hash,
            stats: self.stats.into(),
        }
    }
}

/// The scalar columns, in export order (`agent_rewards`, `trajectory_hash` and the stats follow).
pub const SCALAR_COLUMNS: [&str; 11] = [
    "sweep",
    "job",
    "game",
    "engine_version",
    "scenario",
    "policy_set",
    "seed",
    "outcome",
    "length",
    "truncated",
    "team_reward",
];

/// The stats columns of a sweep's games (CSV and Parquet): every stats key of each game, in game
/// order, once.
pub fn stat_columns(games: &[GameKind]) -> Vec<&'static str> {
    let mut cols: Vec<&'static str> = Vec::new();
    for g in games {
        for k in g.info().stat_keys {
            if !cols.contains(k) {
                cols.push(k);
            }
        }
    }
    cols
}
