//! The record's stats (§10) as a typed struct: what `record.rs` fills per episode.
//!
//! The fields serialize, in [`STAT_KEYS`] order, to exactly the JSON object the spec lists, in
//! MessagePack and JSON alike (`tests/stats.rs` compares them with the equivalent map, byte for
//! byte). The map, cloned from a per-job template and dropped per episode, was 14 allocations
//! and about a tenth of a random-agent episode; typed, a record's stats are one allocation, and
//! a result's encoder writes them with `rmp` directly.

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::record::STAT_KEYS;
use super::scenario::MAX_AGENTS;
use crate::msgpack;
use crate::stats::{StatsMap, TypedStats};

/// One count per agent, held inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    len: u8,
    values: [u32; MAX_AGENTS],
}

impl Counts {
    /// The counts of `values` (at most [`MAX_AGENTS`]).
    pub fn new(values: &[u32]) -> Counts {
        let mut inline = [0; MAX_AGENTS];
        let len = values.len().min(MAX_AGENTS);
        inline[..len].copy_from_slice(&values[..len]);
        Counts { len: len as u8, values: inline }
    }

    /// The counts in agent order.
    pub fn as_slice(&self) -> &[u32] {
        &self.values[..usize::from(self.len)]
    }

    fn to_value(self) -> Value {
        Value::Array(self.as_slice().iter().map(|&v| Value::from(v)).collect())
    }

    fn write_msgpack(&self, out: &mut Vec<u8>) {
        msgpack::array_len(out, self.as_slice().len());
        for &v in self.as_slice() {
            msgpack::uint(out, u64::from(v));
        }
    }
}

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.as_slice().len()))?;
        for v in self.as_slice() {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

/// The spec's stats of one episode, field names and order as [`STAT_KEYS`] lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BucketBrigadeStats {
    /// `no_fires`, `all_ruined` or `max_nights`.
    pub termination_reason: &'static str,
    /// Houses Safe at the end.
    pub houses_saved: u32,
    /// Houses Ruined at the end.
    pub houses_ruined: u32,
    /// Per agent: nights it worked.
    pub agent_work_nights: Counts,
    /// Per agent: nights its signal differed from its action.
    pub agent_lies: Counts,
}

/// The record carries these as its stats without knowing the game (`crate::stats`). Both
/// methods are written out rather than going through serde: they run once per record (the
/// encoder of every result, and the summaries and exports, which read stats as a map).
impl TypedStats for BucketBrigadeStats {
    fn to_map(&self) -> StatsMap {
        let mut map = StatsMap::with_capacity(STAT_KEYS.len());
        map.insert(STAT_KEYS[0].into(), Value::from(self.termination_reason));
        map.insert(STAT_KEYS[1].into(), Value::from(self.houses_saved));
        map.insert(STAT_KEYS[2].into(), Value::from(self.houses_ruined));
        map.insert(STAT_KEYS[3].into(), self.agent_work_nights.to_value());
        map.insert(STAT_KEYS[4].into(), self.agent_lies.to_value());
        map
    }

    fn write_msgpack(&self, out: &mut Vec<u8>) {
        msgpack::map_len(out, STAT_KEYS.len());
        out.extend_from_slice(msgpack::fixstr!(STAT_KEYS[0]));
        msgpack::str(out, self.termination_reason);
        out.extend_from_slice(msgpack::fixstr!(STAT_KEYS[1]));
        msgpack::uint(out, u64::from(self.houses_saved));
        out.extend_from_slice(msgpack::fixstr!(STAT_KEYS[2]));
        msgpack::uint(out, u64::from(self.houses_ruined));
        out.extend_from_slice(msgpack::fixstr!(STAT_KEYS[3]));
        self.agent_work_nights.write_msgpack(out);
        out.extend_from_slice(msgpack::fixstr!(STAT_KEYS[4]));
        self.agent_lies.write_msgpack(out);
    }

    fn for_each_number(&self, f: &mut dyn FnMut(&str, f64)) {
        f(STAT_KEYS[1], f64::from(self.houses_saved));
        f(STAT_KEYS[2], f64::from(self.houses_ruined));
    }

    fn llm_tokens(&self) -> Option<u64> {
        None
    }
}
