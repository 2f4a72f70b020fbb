//! CogsGuard (`cogsguard-rules-1`): a grid world where a team of cogs agents holds junctions
//! against the scheduled clips, with the `noop`, `random` and `pinky` policies.
//!
//! # Layout
//!
//! - `types.rs`: vocabulary (elements, gear, cell kinds, alignments, action ids).
//! - `layout.rs`, `ascii.rs`, `mapgen.rs`: maps before play (ASCII format §4.5, generator §4.2–4.4).
//! - `state.rs`: the world (grid, objects, agents, pool, counters), `agent.rs` one agent's body
//!   and caps; `rules.rs`: moves, bumps, caps (§5–§7); `tick.rs`: the tick order, regen and
//!   auras (§8–§9); `clips.rs`: clips events and their schedule (§10); `events.rs`: replay events.
//! - `obs.rs`: the observation (§12); `record.rs`: the episode record and trajectory hash (§14);
//!   `replay.rs`: the JSON replay; `scenario.rs`: named scenarios and overrides (§2).
//! - `policies/`: the policy enum, `noop` and `random`; `pinky/`: the Pinky policy (§13.3–13.11).
//! - `episode.rs`: [`Cogsguard`], the prepared job that plays episodes.

pub mod agent;
pub mod ascii;
pub mod clips;
pub mod contract;
pub mod episode;
pub mod events;
pub mod layout;
pub mod mapgen;
pub mod obs;
pub mod pinky;
pub mod policies;
pub mod record;
pub mod replay;
pub mod rules;
pub mod scenario;
pub mod state;
pub mod tick;
pub mod types;

#[cfg(test)]
mod tests;

pub use episode::{Cogsguard, Engine};
pub use obs::Observation;
pub use scenario::{metric_label, Scenario};
pub use state::World;

use crate::games::{Buckets, Entry, Episode, Game, GameInfo, GameKind, LlmDecisions};
use crate::protocol::JobError;
use crate::spec::Spec;
use crate::RunEnv;

impl Game for Cogsguard {
    const INFO: GameInfo = GameInfo {
        kind: GameKind::Cogsguard,
        rules_version: "cogsguard-rules-1",
        scenarios: &[
            Entry { name: "arena", about: "40×40 interior, 8 agents, 1000 ticks, buildings 100‰ (default)" },
            Entry { name: "machina", about: "88×88 interior, 8 agents, 10000 ticks, buildings 50‰" },
            Entry { name: "ascii", about: "a hand-made map: map=<fixture> (tiny_3p) or map_text=<rows joined by />" },
        ],
        policies: &[
            Entry { name: "noop", about: "noop: always noop" },
            Entry { name: "random", about: "random: uniform over the 12 actions" },
            Entry {
                name: "pinky",
                about: "pinky?miner=a&scout=b&aligner=c&scrambler=d&timeout=T&review=P: role-based scripted team",
            },
        ],
        stat_keys: &record::STAT_KEYS,
        win_outcome: Some("cogs_ahead"),
        outcomes: &record::OUTCOMES,
        buckets: Buckets {
            team_reward: &[0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 15.0, 20.0],
            length: &[100.0, 300.0, 1000.0, 3000.0, 10000.0, 100000.0],
            agent_reward: &[0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        },
        summary_scale: 4,
        llm_decisions: LlmDecisions::fixed(5.0),
    };

    fn prepare(scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<Self, JobError> {
        Cogsguard::new(scenario, team, env)
    }

    fn default_episodes_per_job(scenario: &Spec) -> u64 {
        scenario::default_episodes_per_job(scenario)
    }

    fn play(&mut self, seed: u64, replay: bool) -> Episode {
        self.play_episode(seed, replay)
    }
}
