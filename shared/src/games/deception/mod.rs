//! `deception`: the dialogue-only "Tier 1" social deduction game (`deception-rules-1`).
//!
//! N agents, M of them secret imposters, meet once per tick: a round-robin discussion
//! (discuss, accuse, defend, propose a vote, pass), then a simultaneous vote that may eject one
//! agent and reveal its role. Crewmates win by ejecting every imposter; imposters by reaching
//! parity; a timeout goes to `timeout_winner`. The rules are the files of this folder, pinned
//! by the golden fixtures (`shared/tests/golden/`).
//!
//! # Layout
//!
//! - [`agent`]: ids, roles, status, per-agent state. [`text`]: trimmed text with cached hash.
//! - [`action`]: the actions and their JSON form. [`event`]: what a step reports.
//! - [`scenario`]: configurable rules, named scenarios, scenario strings.
//! - [`state`]: the game state and its histories. [`env_rng`]: the serialisable env stream.
//! - [`rules`]: every rule as a pure function (validation, legality, tally, win check);
//!   [`violation`]: why an action is illegal.
//! - [`engine`]: `reset`, `step`, `expected_actors`; it delegates every rule to [`rules`].
//! - [`mod@observation`]: what one agent sees.
//! - [`policies`]: `random`, `heuristic`, `llm` (prompt and answer mapping) and templates.
//! - `episode`: the episode loop with invalid-action fallbacks. [`record`]: record and hash.
//!   [`replay`]: the JSON replay.

use std::sync::Arc;

use crate::games::{Buckets, Entry, Episode, Game, GameInfo, GameKind, LlmDecisions};
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

pub mod action;
pub mod agent;
pub mod contract;
pub mod engine;
pub mod env_rng;
mod episode;
pub mod event;
pub mod observation;
pub mod policies;
pub mod record;
pub mod replay;
pub mod rules;
pub mod scenario;
pub mod seat_list;
pub mod state;
pub mod stats;
pub mod text;
pub mod violation;

#[cfg(test)]
mod tests;

pub use action::{ActionKind, GameAction};
pub use agent::{AgentId, AgentState, Role, Status, Winner};
pub use engine::{expected_actors, is_terminal, reset, snapshot, step, StepError};
pub use event::{EventKind, GameEvent};
pub use observation::{observation, observations, AgentObservation};
pub use rules::{check_win_condition, legal_actions, tally_votes, validate_action, validate_scenario, RuleViolation};
pub use scenario::{ConfigError, ScenarioConfig};
pub use state::{GameState, Phase, VoteOutcome, VoteRound};

use policies::{RandomPolicy, SeatPolicy, Templates};

/// The `deception` game, prepared for one job: the validated scenario, one policy per seat,
/// and every buffer an episode needs (reused across episodes). Boxed so the `AnyGame` enum
/// stays small.
#[derive(Debug)]
pub struct Deception {
    inner: Box<Prepared>,
}

/// What [`Deception`] holds.
#[derive(Debug)]
struct Prepared {
    scenario: ScenarioConfig,
    policy_specs: Vec<String>,
    seats: Vec<SeatPolicy>,
    streams: Vec<Stream>,
    random_fallback: RandomPolicy,
    state: GameState,
    actions: Vec<GameAction>,
    events: Vec<GameEvent>,
    counters: record::Counters,
}

impl Deception {
    /// The validated scenario.
    pub fn scenario(&self) -> &ScenarioConfig {
        &self.inner.scenario
    }

    /// The state of the last episode played (its final state).
    pub fn last_state(&self) -> &GameState {
        &self.inner.state
    }

    /// Tests only: replaces the policy of `seat`.
    #[cfg(test)]
    pub(crate) fn set_seat(&mut self, seat: usize, policy: SeatPolicy) {
        self.inner.seats[seat] = policy;
    }

    /// Capacities of the reused buffers, to check that episodes stop allocating once warm.
    pub fn buffer_capacities(&self) -> [usize; 5] {
        let p = &self.inner;
        [
            p.state.discussion.capacity(),
            p.state.votes.capacity(),
            p.state.agents.capacity(),
            p.actions.capacity(),
            p.events.capacity(),
        ]
    }
}

impl Game for Deception {
    const INFO: GameInfo = GameInfo {
        kind: GameKind::Deception,
        rules_version: "deception-rules-1",
        scenarios: scenario::SCENARIOS,
        policies: policies::POLICIES,
        stat_keys: record::STAT_KEYS,
        win_outcome: Some("crewmates"),
        outcomes: &["crewmates", "imposters", "none"],
        buckets: Buckets {
            team_reward: &[-1.0, 0.0, 1.0],
            length: &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0, 50.0, 100.0, 200.0],
            agent_reward: &[-1.0, 0.0, 1.0],
        },
        summary_scale: 50,
        // Measured (20 seeds each): 3.3 in `quick_4p1i`, 4.8 in `classic_5p1i`.
        llm_decisions: LlmDecisions::fixed(5.0),
    };

    fn prepare(scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<Self, JobError> {
        let cfg = ScenarioConfig::from_spec(scenario)?;
        let n = cfg.num_agents as usize;
        if team.len() != n {
            return Err(JobError::invalid(
                "policy_set",
                team.len(),
                format!("must give one policy per agent (num_agents = {n})"),
            ));
        }
        let templates = Arc::new(Templates::new(n));
        let seats = team
            .iter()
            .enumerate()
            .map(|(seat, spec)| SeatPolicy::parse(spec, seat, &templates, env))
            .collect::<Result<Vec<_>, _>>()?;
        let state = engine::reset(&cfg, 0).map_err(|e| {
            JobError::invalid(crate::field::scenario_path(e.field.name()), cfg.value_of(e.field), e.reason)
        })?;
        Ok(Deception {
            inner: Box::new(Prepared {
                policy_specs: team.iter().map(Spec::to_string).collect(),
                streams: (0..n).map(|seat| Stream::agent(0, seat)).collect(),
                random_fallback: RandomPolicy::default_with(templates),
                seats,
                state,
                actions: Vec::with_capacity(n),
                events: Vec::new(),
                counters: record::Counters::default(),
                scenario: cfg,
            }),
        })
    }

    /// Sized so a job of heuristic seats takes roughly 10–50 ms on one core (measured with the
    /// bench); longer scenarios get fewer episodes. A fixed constant, never measured at runtime.
    fn default_episodes_per_job(scenario: &Spec) -> u64 {
        match scenario.name.as_str() {
            "quick_4p1i" => 4000,
            "crowded_8p2i" => 1000,
            "strict_majority_7p2i" => 500,
            "tiebreak_6p1i" => 2000,
            _ => 2000,
        }
    }

    fn play(&mut self, seed: u64, replay: bool) -> Episode {
        self.play_episode(seed, replay)
    }
}

/// Entries of `INFO.scenarios` (re-exported for `coordinator list`).
pub const SCENARIOS: &[Entry] = scenario::SCENARIOS;
