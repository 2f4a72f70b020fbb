//! The episode record (spec §10): how a finished town maps onto `EpisodeRecord`.

use serde_json::Value;

use crate::protocol::{EpisodeRecord, StatsMap};

use super::house::{count, House};
use super::scenario::Scenario;
use super::state::Town;

/// The win outcome: at least [`SUCCESS_MIN_SAVED`] houses Safe at the end.
pub const SUCCESS: &str = "success";
/// Any other ending.
pub const FAILURE: &str = "failure";
/// The reference's success-rate criterion.
pub const SUCCESS_MIN_SAVED: usize = 7;

/// The stats keys, in the spec's order.
pub const STAT_KEYS: [&str; 5] =
    ["termination_reason", "houses_saved", "houses_ruined", "agent_work_nights", "agent_lies"];

/// `success` if `saved` ≥ 7, else `failure`.
pub fn outcome(saved: usize) -> &'static str {
    if saved >= SUCCESS_MIN_SAVED {
        SUCCESS
    } else {
        FAILURE
    }
}

/// The record of a finished episode.
///
/// # Panics
///
/// If the episode has not ended.
pub fn build(seed: u64, sc: &Scenario, town: &Town) -> EpisodeRecord {
    let end = town.end().expect("the record of a finished episode");
    let saved = count(town.houses(), House::Safe);
    let ruined = count(town.houses(), House::Ruined);
    let counts = |v: &[u32]| Value::Array(v.iter().map(|&c| Value::from(c)).collect());
    let mut stats = StatsMap::with_capacity(STAT_KEYS.len());
    stats.insert(STAT_KEYS[0].into(), end.as_str().into());
    stats.insert(STAT_KEYS[1].into(), Value::from(saved as u32));
    stats.insert(STAT_KEYS[2].into(), Value::from(ruined as u32));
    stats.insert(STAT_KEYS[3].into(), counts(town.work_nights()));
    stats.insert(STAT_KEYS[4].into(), counts(town.lies()));
    EpisodeRecord {
        seed,
        outcome: outcome(saved).into(),
        length: town.nights(),
        truncated: end.truncated(),
        team_reward: town.team_reward(sc),
        agent_rewards: town.totals().to_vec(),
        trajectory_hash: town.hash().hex(),
        stats: stats.into(),
    }
}
