//! The episode record (§13): outcome, rewards, stats, the trajectory hash, metric buckets.

use serde_json::{Map, Value};

use super::error::TrolleyError;
use super::seats::SeatSet;
use super::state::TrolleyState;
use super::vocab::{Decision, GameStatus, Side};
use crate::games::Buckets;
use crate::llm::LlmStats;
use crate::protocol::EpisodeRecord;
use crate::seeding::Fnv64;

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

/// The trajectory hash (§13), fed as the episode runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrajectoryHash(Fnv64);

impl TrajectoryHash {
    /// A fresh hash.
    pub fn new() -> TrajectoryHash {
        TrajectoryHash(Fnv64::new())
    }

    /// A round's header: number (u32), operator seat (u8), minority count and seats (u8 each).
    pub fn round(&mut self, state: &TrolleyState, index: usize) {
        let r = &state.rounds()[index];
        self.0.u32(r.number);
        self.0.u8(r.operator);
        self.0.u8(r.minority.len() as u8);
        for s in r.minority.iter() {
            self.0.u8(s as u8);
        }
    }

    /// One applied action: phase code (1..3, 4 = decision), seat, action code, and for `argue`
    /// the text's byte length (u32) and its FNV-1a 64 (u64).
    pub fn action(&mut self, phase: u8, seat: usize, code: u8, text: Option<(usize, u64)>) {
        self.0.u8(phase);
        self.0.u8(seat as u8);
        self.0.u8(code);
        if let Some((len, fnv)) = text {
            self.0.u32(len as u32);
            self.0.u64(fnv);
        }
    }

    /// The 16-hex-digit form.
    pub fn hex(&self) -> String {
        self.0.hex()
    }
}

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

fn seats(set: SeatSet) -> Value {
    Value::Array(set.iter().map(Value::from).collect())
}

fn counts(c: [u32; 3]) -> Value {
    Value::Array(c.iter().map(|&n| Value::from(n)).collect())
}

/// One `rounds` entry. Maps are built with their final capacity: the record is the one
/// allocation-heavy part of an episode, and it is built for every episode.
fn round_stat(state: &TrolleyState, tally: &Tally, index: usize) -> Value {
    let r = &state.rounds()[index];
    let mut args = [[0u32; 3]; 2];
    for a in state.round_arguments(index) {
        if let Some(p) = a.phase.debate_index() {
            args[usize::from(a.side == Side::Minority)][p] += 1;
        }
    }
    let mut m = Map::with_capacity(8);
    m.insert("number".into(), r.number.into());
    m.insert("operator".into(), r.operator.into());
    m.insert("majority".into(), seats(r.majority));
    m.insert("minority".into(), seats(r.minority));
    m.insert("decision".into(), r.decision.map_or(Value::Null, |d| d.as_str().into()));
    m.insert("fallback".into(), tally.decision_fallback.get(index).copied().unwrap_or(false).into());
    m.insert("args_majority".into(), counts(args[0]));
    m.insert("args_minority".into(), counts(args[1]));
    Value::Object(m)
}

/// Builds the record of a finished episode. `llm` lists (seat, stats) of the `llm` seats.
pub fn record(state: &TrolleyState, tally: &Tally, hash: &TrajectoryHash, llm: &[(usize, LlmStats)]) -> EpisodeRecord {
    let agents = state.agents();
    let per_agent = |f: &dyn Fn(usize) -> u32| Value::Array((0..agents.len()).map(|s| Value::from(f(s))).collect());
    let resolved = || state.rounds().iter().filter(|r| r.decision.is_some());
    let played = resolved().count();
    let saved_majority = resolved().filter(|r| r.decision == Some(Decision::SaveMajority)).count();
    let mut stats = Map::with_capacity(STAT_KEYS.len());
    let rounds = (0..state.rounds().len())
        .filter(|&i| state.rounds()[i].decision.is_some())
        .map(|i| round_stat(state, tally, i))
        .collect();
    stats.insert(STAT_KEYS[0].into(), Value::Array(rounds));
    let rate = (played > 0).then(|| saved_majority as f64 / played as f64);
    stats.insert(STAT_KEYS[1].into(), rate.map_or(Value::Null, Value::from));
    stats.insert(STAT_KEYS[2].into(), (played - saved_majority).into());
    stats.insert(STAT_KEYS[3].into(), per_agent(&|s| agents[s].rounds_as_operator));
    stats.insert(STAT_KEYS[4].into(), per_agent(&|s| agents[s].rounds_as_majority));
    stats.insert(STAT_KEYS[5].into(), per_agent(&|s| agents[s].rounds_as_minority));
    stats.insert(STAT_KEYS[6].into(), per_agent(&|s| agents[s].score));
    let saved_in_minority = |s: usize| {
        resolved().filter(|r| r.decision == Some(Decision::SaveMinority) && r.minority.contains(s)).count() as u32
    };
    stats.insert(STAT_KEYS[7].into(), per_agent(&saved_in_minority));
    stats.insert(STAT_KEYS[8].into(), per_agent(&|s| tally.invalid.get(s).copied().unwrap_or(0)));
    let by_kind: Map<String, Value> = TrolleyError::KINDS
        .iter()
        .zip(tally.by_kind)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_string(), n.into()))
        .collect();
    stats.insert(STAT_KEYS[9].into(), by_kind.into());
    // {seat: stats} for `llm` seats only (an empty object in scripted-only episodes).
    let llm: Map<String, Value> =
        llm.iter().map(|(seat, s)| (seat.to_string(), serde_json::to_value(s).expect("plain counters"))).collect();
    stats.insert(STAT_KEYS[10].into(), llm.into());

    let rewards: Vec<f64> = agents.iter().map(|a| f64::from(a.score)).collect();
    EpisodeRecord {
        seed: state.seed(),
        outcome: outcome(state).to_string(),
        length: played as u32,
        truncated: state.status() == GameStatus::GameTruncated,
        team_reward: rewards.iter().sum(),
        agent_rewards: rewards,
        trajectory_hash: hash.hex(),
        stats,
    }
}
