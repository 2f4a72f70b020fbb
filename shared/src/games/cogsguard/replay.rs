//! The JSON replay (§14), built only when a job asks: the common fields (docs/protocol.md), the initial map in
//! the §4.5 form, then per tick `t`, `events`, `actions` (`[action, ok]` per agent) and, when
//! any seat plays Pinky, `debug` (its debug string, null for other seats).

use serde_json::{json, Value};

use crate::protocol::EpisodeRecord;

use super::ascii;
use super::policies::Policy;
use super::scenario::Scenario;
use super::state::World;

/// A replay being recorded.
#[derive(Clone, Debug)]
pub struct Replay {
    initial_map: Vec<String>,
    ticks: Vec<Value>,
}

impl Replay {
    /// Starts a replay from the world at reset.
    pub fn new(world: &World) -> Replay {
        Replay { initial_map: ascii::write(world), ticks: Vec::with_capacity(world.max_steps as usize) }
    }

    /// Records the tick just played.
    pub fn tick(&mut self, world: &World, policies: &[Policy]) {
        let events: Vec<Value> = world.events.iter().map(|e| e.to_json()).collect();
        let actions: Vec<Value> = world.agents.iter().map(|a| json!([a.last_action, a.last_ok])).collect();
        let mut tick = json!({"t": world.t, "events": events, "actions": actions});
        if policies.iter().any(|p| p.debug().is_some()) {
            let debug: Vec<Value> = policies.iter().map(|p| p.debug().map_or(Value::Null, |d| json!(d))).collect();
            tick.as_object_mut().expect("a json object").insert("debug".into(), debug.into());
        }
        self.ticks.push(tick);
    }

    /// The replay JSON text.
    pub fn finish(self, seed: u64, scenario: &Scenario, policies: Vec<Value>, record: &EpisodeRecord) -> String {
        let v = json!({
            "rules_version": "cogsguard-rules-1",
            "game": "cogsguard",
            "seed": seed.to_string(),
            "scenario": scenario.to_json(),
            "policies": policies,
            "record": record,
            "initial_map": self.initial_map,
            "ticks": self.ticks,
        });
        v.to_string()
    }
}
