//! The episode record (spec §10): how a finished town maps onto `EpisodeRecord`.

use serde_json::Value;

use crate::protocol::{EpisodeRecord, StatsMap};

use super::house::{count, House};
use super::scenario::Scenario;
use super::state::{Termination, Town};

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

/// The stats map of an `agents`-agent episode with placeholder values: [`build`] clones it and
/// overwrites the values in place, which skips hashing the five keys into a fresh map each
/// episode. `termination_reason` holds the longest reason, so that every reason fits the
/// clone's string without growing it.
pub fn stats_template(agents: usize) -> StatsMap {
    let zeros = || Value::Array(vec![Value::from(0u32); agents]);
    let mut stats = StatsMap::with_capacity(STAT_KEYS.len());
    stats.insert(STAT_KEYS[0].into(), Termination::AllRuined.as_str().into());
    stats.insert(STAT_KEYS[1].into(), Value::from(0u32));
    stats.insert(STAT_KEYS[2].into(), Value::from(0u32));
    stats.insert(STAT_KEYS[3].into(), zeros());
    stats.insert(STAT_KEYS[4].into(), zeros());
    stats
}

/// The record of a finished episode (tests; the game builds from a per-job template).
///
/// # Panics
///
/// If the episode has not ended.
#[cfg(test)]
pub fn build(seed: u64, sc: &Scenario, town: &Town) -> EpisodeRecord {
    build_from(seed, sc, town, &stats_template(town.agents()))
}

/// [`build`] from the [`stats_template`] of the town's team size, made once per job.
///
/// # Panics
///
/// If the episode has not ended, or `template` is not the template of its team size.
pub fn build_from(seed: u64, sc: &Scenario, town: &Town, template: &StatsMap) -> EpisodeRecord {
    let end = town.end().expect("the record of a finished episode");
    let saved = count(town.houses(), House::Safe);
    let ruined = count(town.houses(), House::Ruined);
    let mut stats = template.clone();
    let mut values = stats.values_mut();
    let mut next = || values.next().expect("the template has every stat");
    match next() {
        Value::String(reason) => {
            reason.clear();
            reason.push_str(end.as_str());
        }
        other => *other = end.as_str().into(),
    }
    *next() = Value::from(saved as u32);
    *next() = Value::from(ruined as u32);
    for counts in [town.work_nights(), town.lies()] {
        let Value::Array(slots) = next() else { unreachable!("the template's counts are arrays") };
        assert_eq!(slots.len(), counts.len(), "a template of the team's size");
        for (slot, &c) in slots.iter_mut().zip(counts) {
            *slot = Value::from(c);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_has_the_keys_in_the_spec_order() {
        let t = stats_template(6);
        assert_eq!(t.keys().map(String::as_str).collect::<Vec<_>>(), STAT_KEYS);
        assert_eq!(t["agent_lies"].as_array().map(Vec::len), Some(6));
        let longest = [Termination::NoFires, Termination::AllRuined, Termination::MaxNights]
            .map(|t| t.as_str().len())
            .into_iter()
            .max();
        assert_eq!(t["termination_reason"].as_str().map(str::len), longest);
    }
}
