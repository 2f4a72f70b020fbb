//! [`EpisodeRecord`]: one played episode, the row every export carries.

use serde::{Deserialize, Serialize};

use crate::stats::Stats;

/// One played episode: the fields every game fills (its spec maps the game onto them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// The episode seed.
    pub seed: u64,
    /// A short game-defined label (`success`, `crewmates`, `cogs_ahead`, …).
    pub outcome: String,
    /// The game's natural episode length (nights, ticks, rounds).
    pub length: u32,
    /// Whether the episode was cut by a length limit.
    pub truncated: bool,
    /// The team reward of the game's active reward model.
    pub team_reward: f64,
    /// One reward per seat.
    pub agent_rewards: Vec<f64>,
    /// FNV-1a 64 of the trajectory, 16 lowercase hex digits.
    pub trajectory_hash: String,
    /// The game's extra figures.
    pub stats: Stats,
}
