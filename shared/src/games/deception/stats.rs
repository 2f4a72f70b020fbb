//! The record's stats (§11) as a typed struct: what `record.rs` fills per episode.
//!
//! The fields serialize, in [`super::record::STAT_KEYS`] order, to exactly the JSON object the
//! spec lists, in MessagePack and JSON alike (`tests/typed_stats.rs` compares them with the
//! equivalent map, byte for byte). As a map of `serde_json` values, with its keys hashed and its
//! small maps and strings allocated one by one, the record was about a quarter of a heuristic
//! episode.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::agent::{AgentId, MAX_AGENTS};
use super::record::STAT_KEYS;
use super::rules::RuleViolation;
use crate::llm::LlmBySeat;
use crate::msgpack as mp;
use crate::stats::{self, StatsMap, TypedStats};

/// One `&'static str` per seat (the roles), held inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    len: u8,
    names: [&'static str; MAX_AGENTS],
}

impl Names {
    /// `f(seat)` for each of `n` seats (at most [`MAX_AGENTS`]).
    pub fn from_fn(n: usize, f: impl Fn(usize) -> &'static str) -> Names {
        let mut names = [""; MAX_AGENTS];
        for (seat, v) in names.iter_mut().enumerate().take(n) {
            *v = f(seat);
        }
        Names { len: n.min(MAX_AGENTS) as u8, names }
    }

    /// The names in seat order.
    pub fn as_slice(&self) -> &[&'static str] {
        &self.names[..usize::from(self.len)]
    }
}

impl Serialize for Names {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.as_slice().len()))?;
        for v in self.as_slice() {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

/// An agent id, written as its name (`agent_3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentName(pub AgentId);

impl Serialize for AgentName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// One ejection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Ejection {
    /// Tick of the vote.
    pub tick: u32,
    /// Who was ejected.
    pub agent: AgentName,
    /// Their role.
    pub role: &'static str,
    /// Votes against them.
    pub votes: u32,
}

/// Invalid actions per violation kind; serialized as an object of the kinds that occurred.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByKind(pub [u64; RuleViolation::KINDS.len()]);

impl Serialize for ByKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let occurred = || RuleViolation::KINDS.iter().zip(self.0).filter(|(_, n)| *n > 0);
        let mut map = serializer.serialize_map(Some(occurred().count()))?;
        for (kind, n) in occurred() {
            map.serialize_entry(kind, &n)?;
        }
        map.end()
    }
}

/// The §11 stats of one episode, field names and order as the record lists them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeceptionStats {
    /// Why the game ended.
    pub reason: &'static str,
    /// Each seat's role.
    pub roles: Names,
    /// Every ejection, in order.
    pub ejections: Vec<Ejection>,
    /// Crewmates ejected.
    pub crewmates_ejected: u64,
    /// Imposters ejected.
    pub imposters_ejected: u64,
    /// Votes that ejected nobody.
    pub no_ejection_ticks: u64,
    /// Share of crewmate ballots against an imposter; null without any (or not finite, as
    /// a JSON number cannot be).
    pub vote_accuracy: Option<f64>,
    /// Share of imposters never ejected (null if not finite).
    pub imposter_survival: Option<f64>,
    /// Discussion messages.
    pub discussion_turns: u64,
    /// Vote proposals among them.
    pub votes_proposed: u64,
    /// Per seat.
    pub invalid_actions: Vec<u64>,
    /// Per violation kind.
    pub invalid_by_kind: ByKind,
    /// By `llm` seat.
    pub llm: LlmBySeat,
}

/// The record carries these as its stats without knowing the game (`crate::stats`).
impl TypedStats for DeceptionStats {
    fn to_map(&self) -> StatsMap {
        stats::map_of(self)
    }

    /// Written field by field (`crate::msgpack`): through `rmp_serde`, encoding a job's records
    /// cost 8% of playing them (7.6% of the job), 2.9 times what it costs now.
    fn write_msgpack(&self, out: &mut Vec<u8>) {
        mp::map_len(out, STAT_KEYS.len());
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[0]));
        mp::str(out, self.reason);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[1]));
        mp::array_len(out, self.roles.as_slice().len());
        for role in self.roles.as_slice() {
            mp::str(out, role);
        }
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[2]));
        mp::array_len(out, self.ejections.len());
        for e in &self.ejections {
            e.write_msgpack(out);
        }
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[3]));
        mp::uint(out, self.crewmates_ejected);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[4]));
        mp::uint(out, self.imposters_ejected);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[5]));
        mp::uint(out, self.no_ejection_ticks);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[6]));
        mp::option_f64(out, self.vote_accuracy);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[7]));
        mp::option_f64(out, self.imposter_survival);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[8]));
        mp::uint(out, self.discussion_turns);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[9]));
        mp::uint(out, self.votes_proposed);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[10]));
        mp::array_len(out, self.invalid_actions.len());
        for &n in &self.invalid_actions {
            mp::uint(out, n);
        }
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[11]));
        mp::nonzero_counts(out, &RuleViolation::KINDS, &self.invalid_by_kind.0);
        out.extend_from_slice(mp::fixstr!(STAT_KEYS[12]));
        if self.llm.0.is_empty() {
            mp::map_len(out, 0);
        } else {
            // Only `llm` seats have these, whose episodes are bound by the model's answers.
            stats::write_msgpack_of(&self.llm, out);
        }
    }

    fn for_each_number(&self, f: &mut dyn FnMut(&str, f64)) {
        f(STAT_KEYS[3], self.crewmates_ejected as f64);
        f(STAT_KEYS[4], self.imposters_ejected as f64);
        f(STAT_KEYS[5], self.no_ejection_ticks as f64);
        // A non-finite float is `null` in the map.
        for (key, v) in [(STAT_KEYS[6], self.vote_accuracy), (STAT_KEYS[7], self.imposter_survival)] {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                f(key, v);
            }
        }
        f(STAT_KEYS[8], self.discussion_turns as f64);
        f(STAT_KEYS[9], self.votes_proposed as f64);
    }

    fn llm_tokens(&self) -> Option<u64> {
        crate::llm::stats::seats_tokens(&self.llm.0)
    }
}

/// The decimal digits of `n`: `digits[from..]`.
fn decimal(mut n: u32) -> ([u8; 10], usize) {
    let mut digits = [0u8; 10];
    let mut from = digits.len();
    loop {
        from -= 1;
        digits[from] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return (digits, from);
        }
    }
}

impl Ejection {
    /// The named-field MessagePack of this ejection, as its `Serialize` writes it.
    fn write_msgpack(&self, out: &mut Vec<u8>) {
        mp::map_len(out, 4);
        out.extend_from_slice(mp::fixstr!("tick"));
        mp::uint(out, u64::from(self.tick));
        out.extend_from_slice(mp::fixstr!("agent"));
        if self.agent.0 == AgentId::UNKNOWN {
            out.extend_from_slice(mp::fixstr!("agent_unknown"));
        } else {
            // `agent_{n}` (`AgentId`'s Display): at most 16 bytes, a fixstr.
            let (digits, from) = decimal(self.agent.0 .0);
            out.push(0xa0 | (6 + digits.len() - from) as u8);
            out.extend_from_slice(b"agent_");
            out.extend_from_slice(&digits[from..]);
        }
        out.extend_from_slice(mp::fixstr!("role"));
        mp::str(out, self.role);
        out.extend_from_slice(mp::fixstr!("votes"));
        mp::uint(out, u64::from(self.votes));
    }
}
