//! The record's stats (§13) as a typed struct: what `record.rs` fills per episode.
//!
//! The fields serialize, in [`super::record::STAT_KEYS`] order, to exactly the JSON object the
//! spec lists, in MessagePack and JSON alike (a test compares them with the equivalent map, byte
//! for byte). Typed, a record costs a handful of allocations instead of about a hundred JSON
//! values, which was 40% of a headless episode.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::error::TrolleyError;
use super::record::STAT_KEYS;
use super::seats::{SeatSet, MAX_AGENTS};
use crate::llm::LlmBySeat;
use crate::msgpack as mp;
use crate::stats::{self, StatsMap, TypedStats};

/// One value per seat, held inline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerAgent {
    len: u8,
    values: [u32; MAX_AGENTS],
}

impl PerAgent {
    /// `f(seat)` for each of `n` seats (at most [`MAX_AGENTS`]).
    #[inline]
    pub fn from_fn(n: usize, f: impl Fn(usize) -> u32) -> PerAgent {
        let mut values = [0; MAX_AGENTS];
        for (seat, v) in values.iter_mut().enumerate().take(n) {
            *v = f(seat);
        }
        PerAgent { len: n.min(MAX_AGENTS) as u8, values }
    }

    /// The values in seat order.
    pub fn as_slice(&self) -> &[u32] {
        &self.values[..usize::from(self.len)]
    }
}

impl Serialize for PerAgent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.as_slice().len()))?;
        for v in self.as_slice() {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

/// A list of seats, with its length known up front.
fn seat_list<S: Serializer>(set: &SeatSet, serializer: S) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(set.len()))?;
    for seat in set.iter() {
        seq.serialize_element(&(seat as u8))?;
    }
    seq.end()
}

/// Three per-phase counts, as a list.
fn phase_counts<S: Serializer>(counts: &[u32; 3], serializer: S) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(3))?;
    for c in counts {
        seq.serialize_element(c)?;
    }
    seq.end()
}

/// One resolved round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundStat {
    /// 1-based round number.
    pub number: u32,
    /// The operator's seat.
    pub operator: u8,
    /// Majority seats.
    #[serde(serialize_with = "seat_list")]
    pub majority: SeatSet,
    /// Minority seats.
    #[serde(serialize_with = "seat_list")]
    pub minority: SeatSet,
    /// `save_majority` or `save_minority`.
    pub decision: Option<&'static str>,
    /// Whether the decision was a fallback.
    pub fallback: bool,
    /// Majority agents that argued, per debate phase.
    #[serde(serialize_with = "phase_counts")]
    pub args_majority: [u32; 3],
    /// Minority agents that argued, per debate phase.
    #[serde(serialize_with = "phase_counts")]
    pub args_minority: [u32; 3],
}

/// Invalid actions per §6 kind; serialized as an object of the kinds that occurred.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ByKind(pub [u32; 19]);

impl Serialize for ByKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let occurred = || TrolleyError::KINDS.iter().zip(self.0).filter(|(_, n)| *n > 0);
        let mut map = serializer.serialize_map(Some(occurred().count()))?;
        for (kind, n) in occurred() {
            map.serialize_entry(kind, &n)?;
        }
        map.end()
    }
}

/// The §13 stats of one episode, field names and order as the record lists them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrolleyStats {
    /// Every resolved round.
    pub rounds: Vec<RoundStat>,
    /// Share of resolved rounds decided `save_majority`; null if none.
    pub save_majority_rate: Option<f64>,
    /// Rounds decided `save_minority`.
    pub minority_saved: u32,
    /// Per agent.
    pub rounds_as_operator: PerAgent,
    /// Per agent.
    pub rounds_as_majority: PerAgent,
    /// Per agent.
    pub rounds_as_minority: PerAgent,
    /// Per agent: rounds in which its side was saved (its score).
    pub times_saved: PerAgent,
    /// Per agent: rounds in which it was in the minority and the minority was saved.
    pub saved_in_minority: PerAgent,
    /// Per agent.
    pub invalid_actions: PerAgent,
    /// Per §6 kind.
    pub invalid_by_kind: ByKind,
    /// By `llm` seat.
    pub llm: LlmBySeat,
}

/// The record carries these as its stats without knowing the game (`crate::stats`).
impl TypedStats for TrolleyStats {
    fn to_map(&self) -> StatsMap {
        stats::map_of(self)
    }

    /// Written field by field (`crate::msgpack`): through `rmp_serde`, encoding a job's records
    /// (a map per round) cost a quarter of playing them (20% of the job), 3.4 times what it costs
    /// now.
    fn write_msgpack(&self, out: &mut Vec<u8>) {
        fn per_agent(out: &mut Vec<u8>, key: &[u8], values: &PerAgent) {
            out.extend_from_slice(key);
            mp::array_len(out, values.as_slice().len());
            for &v in values.as_slice() {
                mp::uint(out, u64::from(v));
            }
        }
        mp::map_len(out, STAT_KEYS.len());
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[0]));
        mp::array_len(out, self.rounds.len());
        for round in &self.rounds {
            round.write_msgpack(out);
        }
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[1]));
        mp::option_f64(out, self.save_majority_rate);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[2]));
        mp::uint(out, u64::from(self.minority_saved));
        per_agent(out, mp::fixstr!(STAT_KEYS[3]), &self.rounds_as_operator);
        per_agent(out, mp::fixstr!(STAT_KEYS[4]), &self.rounds_as_majority);
        per_agent(out, mp::fixstr!(STAT_KEYS[5]), &self.rounds_as_minority);
        per_agent(out, mp::fixstr!(STAT_KEYS[6]), &self.times_saved);
        per_agent(out, mp::fixstr!(STAT_KEYS[7]), &self.saved_in_minority);
        per_agent(out, mp::fixstr!(STAT_KEYS[8]), &self.invalid_actions);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[9]));
        mp::nonzero_counts(out, &TrolleyError::KINDS, &self.invalid_by_kind.0);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[10]));
        if self.llm.0.is_empty() {
            mp::map_len(out, 0);
        } else {
            // Only `llm` seats have these, whose episodes are bound by the model's answers.
            stats::write_msgpack_of(&self.llm, out);
        }
    }

    fn for_each_number(&self, f: &mut dyn FnMut(&str, f64)) {
        // A non-finite float is `null` in the map.
        if let Some(v) = self.save_majority_rate.filter(|v| v.is_finite()) {
            f(STAT_KEYS[1], v);
        }
        f(STAT_KEYS[2], f64::from(self.minority_saved));
    }

    fn llm_tokens(&self) -> Option<u64> {
        crate::llm::stats::seats_tokens(&self.llm.0)
    }
}

impl RoundStat {
    /// The named-field MessagePack of this round, as its `Serialize` writes it.
    fn write_msgpack(&self, out: &mut Vec<u8>) {
        fn seats(out: &mut Vec<u8>, set: SeatSet) {
            mp::array_len(out, set.len());
            for seat in set.iter() {
                mp::uint(out, seat as u64);
            }
        }
        fn phases(out: &mut Vec<u8>, counts: &[u32; 3]) {
            mp::array_len(out, 3);
            for &c in counts {
                mp::uint(out, u64::from(c));
            }
        }
        mp::map_len(out, 8);
        out.extend_from_slice(mp::fixstr!("number"));
        mp::uint(out, u64::from(self.number));
        out.extend_from_slice(mp::fixstr!("operator"));
        mp::uint(out, u64::from(self.operator));
        out.extend_from_slice(mp::fixstr!("majority"));
        seats(out, self.majority);
        out.extend_from_slice(mp::fixstr!("minority"));
        seats(out, self.minority);
        out.extend_from_slice(mp::fixstr!("decision"));
        match self.decision {
            Some(d) => mp::str(out, d),
            None => mp::nil(out),
        }
        out.extend_from_slice(mp::fixstr!("fallback"));
        mp::bool(out, self.fallback);
        out.extend_from_slice(mp::fixstr!("args_majority"));
        phases(out, &self.args_majority);
        out.extend_from_slice(mp::fixstr!("args_minority"));
        phases(out, &self.args_minority);
    }
}
