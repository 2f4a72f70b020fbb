//! The episode record (§13): outcome, rewards, stats ([`super::stats`]), the trajectory hash,
//! metric buckets.

use super::error::TrolleyError;
use super::seats::{SeatSet, MAX_AGENTS};
use super::state::TrolleyState;
use super::stats::{ByKind, PerAgent, RoundStat, TrolleyStats};
use super::vocab::{Decision, GameStatus};
use crate::games::Buckets;
use crate::llm::{LlmBySeat, LlmStats};
use crate::protocol::EpisodeRecord;
use crate::stats::Stats;

pub use super::hash::TrajectoryHash;

/// Outcome labels: by the count of `save_majority` against `save_minority` decisions.
pub const OUTCOMES: [&str; 3] = ["majority_favoured", "minority_favoured", "even"];

/// The stats keys in the spec's order.
pub const STAT_KEYS: [&str; 11] = [
    "rounds",
    "save_majority_rate",
    "minority_saved",
    "rounds_as_operator",
    "rounds_as_majority",
    "rounds_as_minority",
    "times_saved",
    "saved_in_minority",
    "invalid_actions",
    "invalid_by_kind",
    "llm",
];

/// Default metric buckets (§13).
pub const BUCKETS: Buckets = Buckets {
    team_reward: &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0, 40.0, 60.0, 100.0, 150.0, 250.0],
    length: &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 16.0, 24.0, 32.0, 64.0],
    agent_reward: &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0],
};

/// Per-episode counters the engine keeps besides the state.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Invalid actions per seat.
    pub invalid: Vec<u32>,
    /// Invalid actions per §6 kind (indexed like [`TrolleyError::KINDS`]).
    pub by_kind: [u32; 19],
    /// Per round: whether the decision was a fallback.
    pub decision_fallback: Vec<bool>,
}

impl Tally {
    /// Zeroes every counter for `n` seats, keeping the buffers.
    pub fn reset(&mut self, n: usize) {
        self.invalid.clear();
        self.invalid.resize(n, 0);
        self.by_kind = [0; 19];
        self.decision_fallback.clear();
    }

    /// Counts an invalid action of `seat`.
    pub fn invalid_action(&mut self, seat: usize, error: &TrolleyError) {
        self.invalid[seat] += 1;
        self.by_kind[error.kind_index()] += 1;
    }
}

/// The outcome label of a finished state.
pub fn outcome(state: &TrolleyState) -> &'static str {
    let (mut maj, mut min) = (0usize, 0usize);
    for r in state.rounds() {
        match r.decision {
            Some(Decision::SaveMajority) => maj += 1,
            Some(Decision::SaveMinority) => min += 1,
            None => {}
        }
    }
    match maj.cmp(&min) {
        std::cmp::Ordering::Greater => OUTCOMES[0],
        std::cmp::Ordering::Less => OUTCOMES[1],
        std::cmp::Ordering::Equal => OUTCOMES[2],
    }
}

/// The number of seats of `side` among `argued`, per debate phase: each agent argues at most
/// once a phase, so this counts the round's arguments by side and phase.
fn counts(argued: &[SeatSet; 3], side: SeatSet) -> [u32; 3] {
    argued.map(|a| a.intersection(side).len() as u32)
}

/// One `rounds` entry.
fn round_stat(state: &TrolleyState, tally: &Tally, index: usize) -> RoundStat {
    let r = &state.rounds()[index];
    RoundStat {
        number: r.number,
        operator: r.operator,
        majority: r.majority,
        minority: r.minority,
        decision: r.decision.map(Decision::as_str),
        fallback: tally.decision_fallback.get(index).copied().unwrap_or(false),
        args_majority: counts(&r.argued, r.majority),
        args_minority: counts(&r.argued, r.minority),
    }
}

/// Builds the record of a finished episode. `llm` lists (seat, stats) of the `llm` seats.
pub fn record(
    state: &TrolleyState,
    tally: &Tally,
    hash: &TrajectoryHash,
    llm: Vec<(usize, LlmStats)>,
) -> EpisodeRecord {
    let agents = state.agents();
    let n = agents.len();
    // One pass over the rounds for every per-round figure (it runs once per episode, and the
    // episode is short enough that this shows).
    let mut rounds = Vec::with_capacity(state.rounds().len());
    let mut saved_majority = 0usize;
    let mut saved_in_minority = [0u32; MAX_AGENTS];
    for (index, r) in state.rounds().iter().enumerate() {
        match r.decision {
            None => continue,
            Some(Decision::SaveMajority) => saved_majority += 1,
            Some(Decision::SaveMinority) => {
                for s in r.minority.iter() {
                    saved_in_minority[s] += 1;
                }
            }
        }
        rounds.push(round_stat(state, tally, index));
    }
    let played = rounds.len();
    let saved_minority = played - saved_majority;
    let outcome = match saved_majority.cmp(&saved_minority) {
        std::cmp::Ordering::Greater => OUTCOMES[0],
        std::cmp::Ordering::Less => OUTCOMES[1],
        std::cmp::Ordering::Equal => OUTCOMES[2],
    };
    let stats = TrolleyStats {
        rounds,
        save_majority_rate: (played > 0).then(|| saved_majority as f64 / played as f64),
        minority_saved: saved_minority as u32,
        rounds_as_operator: PerAgent::from_fn(n, |s| agents[s].rounds_as_operator),
        rounds_as_majority: PerAgent::from_fn(n, |s| agents[s].rounds_as_majority),
        rounds_as_minority: PerAgent::from_fn(n, |s| agents[s].rounds_as_minority),
        times_saved: PerAgent::from_fn(n, |s| agents[s].score),
        saved_in_minority: PerAgent::from_fn(n, |s| saved_in_minority[s]),
        invalid_actions: PerAgent::from_fn(n, |s| tally.invalid.get(s).copied().unwrap_or(0)),
        invalid_by_kind: ByKind(tally.by_kind),
        llm: LlmBySeat(llm),
    };
    let rewards: Vec<f64> = agents.iter().map(|a| f64::from(a.score)).collect();
    EpisodeRecord {
        seed: state.seed(),
        outcome: outcome.to_string(),
        length: played as u32,
        truncated: state.status() == GameStatus::GameTruncated,
        team_reward: rewards.iter().sum(),
        agent_rewards: rewards,
        trajectory_hash: hash.hex(),
        stats: Stats::typed(stats),
    }
}
