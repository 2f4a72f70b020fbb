//! The episode record (spec §10): how a finished town maps onto `EpisodeRecord`.

use crate::protocol::EpisodeRecord;
use crate::stats::Stats;

use super::house::{count, House};
use super::scenario::Scenario;
use super::state::Town;
use super::stats::{BucketBrigadeStats, Counts};

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
    let stats = BucketBrigadeStats {
        termination_reason: end.as_str(),
        houses_saved: saved as u32,
        houses_ruined: ruined as u32,
        agent_work_nights: Counts::new(town.work_nights()),
        agent_lies: Counts::new(town.lies()),
    };
    EpisodeRecord {
        seed,
        outcome: outcome(saved).into(),
        length: town.nights(),
        truncated: end.truncated(),
        team_reward: town.team_reward(sc),
        agent_rewards: town.totals().to_vec(),
        trajectory_hash: town.hash().hex(),
        stats: Stats::typed(stats),
    }
}
