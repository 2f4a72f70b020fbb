//! What an agent sees (spec §7). Everything is public; policies keep any other memory
//! themselves. An observation borrows the town, so building one costs nothing.

use super::action::{LastAction, Mode};
use super::house::{Houses, NUM_HOUSES};
use super::scenario::Scenario;

/// The observation of one agent on one night.
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// t, 1-based.
    pub night: u32,
    /// The observing agent (its seat; its home is house `agent_id`).
    pub agent_id: usize,
    /// S_t^start.
    pub houses: &'a Houses,
    /// For every agent, the house it chose on night t−1 (on night 1, agent j is at house j).
    pub locations: &'a [u8],
    /// (house, mode, signal) of every agent on night t−1; `None` on night 1.
    pub last_actions: Option<&'a [LastAction]>,
    /// `None` in the signal phase; this night's N signals in the action phase.
    pub signals: Option<&'a [Mode]>,
    /// The full validated scenario.
    pub scenario: &'a Scenario,
}

impl Observation<'_> {
    /// Owned(i) = {h : h mod N = i}, ascending.
    pub fn owned_houses(&self) -> impl Iterator<Item = usize> {
        (self.agent_id..NUM_HOUSES).step_by(self.scenario.num_agents)
    }
}
