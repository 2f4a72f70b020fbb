//! Per-seat statistics of an LLM-driven seat, recorded in the episode record (`llm` stats),
//! with the seat's recorded exchanges: what a replay answers from.

use serde::{Deserialize, Serialize};

use super::Exchange;

/// The fields of a seat's `llm` stat in an episode record, in order (what exports and
/// researchers' loaders see; `LlmStats` serialises to exactly these).
pub const LLM_STAT_FIELDS: [&str; 11] = [
    "decisions",
    "calls",
    "transport_errors",
    "rate_limited",
    "invalid_outputs",
    "fallbacks",
    "prompt_tokens",
    "completion_tokens",
    "latency_ms_total",
    "latency_ms_max",
    "exchanges",
];

/// Counters of one seat over one episode, in the order records list them, and its exchanges.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmStats {
    /// Decisions the seat was asked for.
    pub decisions: u64,
    /// Chat-completions calls made.
    pub calls: u64,
    /// Calls that failed in transport (connect or TLS error, timeout, non-2xx, missing
    /// content), 429s included.
    pub transport_errors: u64,
    /// Calls answered HTTP 429 (also counted in `transport_errors`); waited out without using
    /// an attempt, up to the cap.
    pub rate_limited: u64,
    /// Answers that did not parse or named an illegal action.
    pub invalid_outputs: u64,
    /// Decisions handed to the fallback policy after the attempts were spent.
    pub fallbacks: u64,
    /// Sum of `usage.prompt_tokens` where reported.
    pub prompt_tokens: u64,
    /// Sum of `usage.completion_tokens` where reported.
    pub completion_tokens: u64,
    /// Sum of call latencies, in milliseconds (exempt from determinism).
    pub latency_ms_total: u64,
    /// Longest call, in milliseconds (exempt from determinism).
    pub latency_ms_max: u64,
    /// Every call's outcome, in order: the raw answer with its usage, or the error, and the
    /// latency. A replay answers from these instead of calling the model ([`super::replay`]).
    pub exchanges: Vec<Exchange>,
}

/// The prompt + completion tokens of an episode's `llm` seats (`(seat, stats)`), `None` without
/// one: what a summary counts (`TypedStats::llm_tokens` of the games with typed stats).
pub fn seats_tokens(seats: &[(usize, LlmStats)]) -> Option<u64> {
    (!seats.is_empty()).then(|| seats.iter().map(|(_, s)| s.prompt_tokens + s.completion_tokens).sum())
}

/// The `llm` stats of an episode's `llm` seats, as a record's `llm` stat: an object keyed by
/// seat (its number as a string), in seat order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LlmBySeat(pub Vec<(usize, LlmStats)>);

impl Serialize for LlmBySeat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (seat, stats) in &self.0 {
            map.serialize_entry(&seat.to_string(), stats)?;
        }
        map.end()
    }
}
