//! The JSON replay of one episode (spec §10), written only when a job asks for it.
//!
//! Key order is the spec's: `rules_version, game, seed, scenario, policies, initial_houses,
//! nights, record`. Houses are written 0/1/2, signals and modes 0 = REST, 1 = WORK. Rewards are
//! JSON numbers (serde_json writes the shortest form that reads back to the same f64).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::protocol::EpisodeRecord;

use super::episode::NightLog;
use super::house::{codes, Houses, NUM_HOUSES};
use super::scenario::{Scenario, FIELDS};
use super::{GAME_ID, RULES_VERSION};

/// The whole replay object.
#[derive(Serialize)]
struct Replay<'a> {
    rules_version: &'static str,
    game: &'static str,
    /// A decimal string: u64 seeds do not all fit a JSON reader's doubles.
    seed: String,
    scenario: ScenarioJson<'a>,
    policies: &'a [String],
    initial_houses: [u8; NUM_HOUSES],
    nights: Vec<Night<'a>>,
    record: &'a EpisodeRecord,
}

/// `{name, <every field of §2 in order>}`.
struct ScenarioJson<'a>(&'a Scenario);

impl Serialize for ScenarioJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(FIELDS.len() + 1))?;
        map.serialize_entry("name", self.0.name)?;
        for name in FIELDS {
            map.serialize_entry(name, &self.0.get(name).expect("every listed field has a value"))?;
        }
        map.end()
    }
}

/// One night record.
#[derive(Serialize)]
struct Night<'a> {
    night: u32,
    houses_before: [u8; NUM_HOUSES],
    signals: Vec<u8>,
    actions: Vec<[u8; 2]>,
    lies: Vec<bool>,
    houses_after: [u8; NUM_HOUSES],
    rewards: &'a [f64],
}

/// Renders the replay of a finished episode: `policies` the team's spec strings by seat,
/// `initial` the houses before night 1, `nights` as logged by `episode::play`, `record` the
/// episode's record.
pub fn render(
    seed: u64,
    sc: &Scenario,
    policies: &[String],
    initial: &Houses,
    nights: &[NightLog],
    record: &EpisodeRecord,
) -> String {
    let n = sc.num_agents;
    let nights = nights
        .iter()
        .map(|l| Night {
            night: l.report.night,
            houses_before: codes(&l.report.houses_before),
            signals: l.signals[..n].iter().map(|s| s.code()).collect(),
            actions: l.actions[..n].iter().map(|a| [a.house, a.mode.code()]).collect(),
            lies: (0..n).map(|i| l.signals[i] != l.actions[i].mode).collect(),
            houses_after: codes(&l.report.phases.end),
            rewards: &l.report.rewards[..n],
        })
        .collect();
    let replay = Replay {
        rules_version: RULES_VERSION,
        game: GAME_ID,
        seed: seed.to_string(),
        scenario: ScenarioJson(sc),
        policies,
        initial_houses: codes(initial),
        nights,
        record,
    };
    // Plain structs, string keys, no I/O: serialising cannot fail.
    serde_json::to_string(&replay).expect("a replay always serialises")
}
