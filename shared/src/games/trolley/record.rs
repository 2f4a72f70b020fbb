//! The episode record (§13): outcome, rewards, stats, the trajectory hash, metric buckets.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::error::TrolleyError;
use super::seats::{SeatSet, MAX_AGENTS};
use super::state::TrolleyState;
use super::vocab::{Decision, GameStatus};
use crate::games::Buckets;
use crate::llm::LlmStats;
use crate::protocol::EpisodeRecord;

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

/// The keys of a `rounds` entry, in the record's order.
const ROUND_KEYS: [&str; 8] =
    ["number", "operator", "majority", "minority", "decision", "fallback", "args_majority", "args_minority"];

/// A map holding `keys` in order, every value null.
fn keyed(keys: &[&str]) -> Map<String, Value> {
    keys.iter().map(|k| (k.to_string(), Value::Null)).collect()
}

/// A copy of `shape` (keys in order, built once, values null), to be filled with [`fill`].
///
/// Every record holds a dozen maps. Inserting hashes each key (SipHash) and probes the table;
/// copying the shape copies its hashed table as it is, so only the key strings are copied. The
/// keys and their order are the shape's, exactly as inserting them one by one would give.
/// `clone_from` into a map of exactly `shape.len()` entries, not `clone`: a clone sizes its
/// entries to the table's capacity (14 for 8 keys: 1456 bytes), past glibc's 1 KB small-request
/// limit, and every such request makes malloc consolidate its free lists.
fn shaped(shape: &Map<String, Value>) -> Map<String, Value> {
    let mut m = Map::with_capacity(shape.len());
    m.clone_from(shape);
    m
}

/// Sets the values of a [`shaped`] map, in key order.
fn fill<const K: usize>(m: &mut Map<String, Value>, values: [Value; K]) {
    debug_assert_eq!(m.len(), K);
    for (slot, v) in m.values_mut().zip(values) {
        *slot = v;
    }
}

/// The two map shapes of a record, built once per process.
struct Shapes {
    stats: Map<String, Value>,
    round: Map<String, Value>,
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| Shapes { stats: keyed(&STAT_KEYS), round: keyed(&ROUND_KEYS) })
}

/// A seat list. Collected from a slice, whose exact length lets `collect` size the array once
/// and write each value in place (from the set's iterator it checks the capacity per value and
/// builds each 72-byte value on the stack first).
fn seats(set: SeatSet) -> Value {
    let mut buf = [0u8; MAX_AGENTS];
    let mut len = 0;
    for s in set.iter() {
        buf[len] = s as u8;
        len += 1;
    }
    Value::Array(buf[..len].iter().map(|&s| Value::from(s)).collect())
}

/// The number of seats of `side` among `argued`, per debate phase: each agent argues at most
/// once a phase, so this counts the round's arguments by side and phase.
fn counts(argued: &[SeatSet; 3], side: SeatSet) -> Value {
    Value::Array(argued.iter().map(|a| Value::from(a.intersection(side).len() as u32)).collect())
}

/// One `rounds` entry.
fn round_stat(state: &TrolleyState, tally: &Tally, index: usize) -> Value {
    let r = &state.rounds()[index];
    let fallback = tally.decision_fallback.get(index).copied().unwrap_or(false);
    let mut m = shaped(&shapes().round);
    fill(
        &mut m,
        [
            r.number.into(),
            r.operator.into(),
            seats(r.majority),
            seats(r.minority),
            r.decision.map_or(Value::Null, |d| d.as_str().into()),
            fallback.into(),
            counts(&r.argued, r.majority),
            counts(&r.argued, r.minority),
        ],
    );
    Value::Object(m)
}

/// Builds the record of a finished episode. `llm` lists (seat, stats) of the `llm` seats.
pub fn record(state: &TrolleyState, tally: &Tally, hash: &TrajectoryHash, llm: &[(usize, LlmStats)]) -> EpisodeRecord {
    let agents = state.agents();
    let per_agent = |f: &dyn Fn(usize) -> u32| Value::Array((0..agents.len()).map(|s| Value::from(f(s))).collect());
    let resolved = || state.rounds().iter().filter(|r| r.decision.is_some());
    let played = resolved().count();
    let saved_majority = resolved().filter(|r| r.decision == Some(Decision::SaveMajority)).count();
    let mut rounds = Vec::with_capacity(played);
    let indexes = (0..state.rounds().len()).filter(|&i| state.rounds()[i].decision.is_some());
    rounds.extend(indexes.map(|i| round_stat(state, tally, i)));
    let rate = (played > 0).then(|| saved_majority as f64 / played as f64);
    let saved_in_minority = |s: usize| {
        resolved().filter(|r| r.decision == Some(Decision::SaveMinority) && r.minority.contains(s)).count() as u32
    };
    let by_kind: Map<String, Value> = TrolleyError::KINDS
        .iter()
        .zip(tally.by_kind)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_string(), n.into()))
        .collect();
    // {seat: stats} for `llm` seats only (an empty object in scripted-only episodes).
    let llm: Map<String, Value> =
        llm.iter().map(|(seat, s)| (seat.to_string(), serde_json::to_value(s).expect("plain counters"))).collect();
    let values = [
        Value::Array(rounds),
        rate.map_or(Value::Null, Value::from),
        (played - saved_majority).into(),
        per_agent(&|s| agents[s].rounds_as_operator),
        per_agent(&|s| agents[s].rounds_as_majority),
        per_agent(&|s| agents[s].rounds_as_minority),
        per_agent(&|s| agents[s].score),
        per_agent(&saved_in_minority),
        per_agent(&|s| tally.invalid.get(s).copied().unwrap_or(0)),
        by_kind.into(),
        llm.into(),
    ];
    let rewards: Vec<f64> = agents.iter().map(|a| f64::from(a.score)).collect();
    let (outcome, trajectory_hash) = (outcome(state).to_string(), hash.hex());
    // Last: the one request over 1 KB (11 entries of 104 bytes) makes malloc merge the small
    // blocks still free; by now the requests above have reused most of them (measured: making
    // it first nearly doubles malloc's instructions).
    let mut stats = shaped(&shapes().stats);
    fill(&mut stats, values);
    EpisodeRecord {
        seed: state.seed(),
        outcome,
        length: played as u32,
        truncated: state.status() == GameStatus::GameTruncated,
        team_reward: rewards.iter().sum(),
        agent_rewards: rewards,
        trajectory_hash,
        stats,
    }
}
