//! [`ReplayTransport`]: answers an episode's calls from the exchanges its record holds, so the
//! episode is played again exactly, without calling the model.
//!
//! Each `llm` seat's record entry (`stats.llm.<seat>.exchanges`) lists its calls in order. The
//! engine is deterministic given the answers, so playing the same job and seed again makes the
//! same calls in the same order; each is answered with the seat's next recorded outcome, its
//! latency is replayed on a clock of the transport's own (so the record's latency counters come
//! out the same), and no backoff or rate-limit wait is slept. The replayed record therefore
//! equals the original byte for byte. A call whose prompt hash differs from the recorded one, or
//! a call beyond the recording, means the replay is not the recorded episode (another engine or
//! prompt version): it is reported by [`ReplayTransport::divergence`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::exchange::prompt_hash;
use super::{ChatRequest, ChatResponse, ChatTransport, Exchange, TransportError};

/// Why a record's exchanges cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The record has no `llm` stat object.
    #[error("the record has no `llm` stats: it is not from a game with llm seats")]
    NoLlmStats,
    /// A seat's entry has no usable `exchanges` list.
    #[error("seat {seat}'s llm stats have no recorded exchanges ({message}); records made before exchanges were recorded cannot be replayed")]
    NoExchanges {
        /// The seat key as written.
        seat: String,
        /// What was wrong.
        message: String,
    },
}

#[derive(Debug, Default)]
struct State {
    seats: BTreeMap<u32, VecDeque<Exchange>>,
    clock: Duration,
    calls: u64,
    divergence: Option<String>,
}

/// A transport that answers from recorded exchanges. Never does I/O.
#[derive(Debug)]
pub struct ReplayTransport {
    base: Instant,
    state: Mutex<State>,
}

impl ReplayTransport {
    /// Answers seat `s`'s calls from its list, in order.
    pub fn new(seats: impl IntoIterator<Item = (u32, Vec<Exchange>)>) -> ReplayTransport {
        let seats = seats.into_iter().map(|(s, e)| (s, VecDeque::from(e))).collect();
        ReplayTransport { base: Instant::now(), state: Mutex::new(State { seats, ..State::default() }) }
    }

    /// Reads the exchanges of every seat of a record's `llm` stat (`{"<seat>": {…,
    /// "exchanges": […]}}`).
    pub fn from_llm_stats(llm: Option<&Value>) -> Result<ReplayTransport, ReplayError> {
        let Some(Value::Object(seats)) = llm else { return Err(ReplayError::NoLlmStats) };
        let mut out = Vec::new();
        for (key, entry) in seats {
            let no = |message: String| ReplayError::NoExchanges { seat: key.clone(), message };
            let seat: u32 = key.parse().map_err(|_| no("the seat key is not a number".into()))?;
            let list = entry.get("exchanges").ok_or_else(|| no("no `exchanges` key".into()))?;
            let exchanges: Vec<Exchange> = serde_json::from_value(list.clone()).map_err(|e| no(e.to_string()))?;
            out.push((seat, exchanges));
        }
        Ok(ReplayTransport::new(out))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Calls answered so far.
    pub fn calls(&self) -> u64 {
        self.lock().calls
    }

    /// The first way the replay left the recording: a call with another prompt, a call beyond
    /// a seat's recording, or (once the episode is over) recorded calls that were never made.
    pub fn divergence(&self) -> Option<String> {
        let state = self.lock();
        if let Some(d) = &state.divergence {
            return Some(d.clone());
        }
        state
            .seats
            .iter()
            .find(|(_, left)| !left.is_empty())
            .map(|(seat, left)| format!("seat {seat} left {} recorded call(s) unmade", left.len()))
    }
}

impl ChatTransport for ReplayTransport {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        let mut state = self.lock();
        state.calls += 1;
        let n = state.calls;
        let Some(exchange) = state.seats.get_mut(&request.seat).and_then(VecDeque::pop_front) else {
            let why = format!("call {n} (seat {}) was not recorded", request.seat);
            state.divergence.get_or_insert(why.clone());
            return Err(TransportError::Malformed(why));
        };
        let hash = prompt_hash(&request.messages);
        if hash != exchange.prompt_hash {
            let why = format!(
                "call {n} (seat {}) sent another prompt than the recorded one (hash {hash}, recorded {})",
                request.seat, exchange.prompt_hash
            );
            state.divergence.get_or_insert(why);
        }
        state.clock += Duration::from_millis(exchange.latency_ms);
        exchange.result()
    }

    fn sleep(&self, _: Duration) {}

    fn now(&self) -> Instant {
        self.base + self.lock().clock
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ChatMessage, ClientConfig, LlmClient, LlmStats, RateLimits, Rejection};
    use super::*;

    struct Live(Mutex<Vec<Result<ChatResponse, TransportError>>>);

    impl ChatTransport for Live {
        fn complete(&self, _: &ChatRequest) -> Result<ChatResponse, TransportError> {
            std::thread::sleep(Duration::from_millis(3));
            self.0.lock().unwrap().remove(0)
        }
        fn sleep(&self, _: Duration) {}
    }

    fn client(transport: std::sync::Arc<dyn ChatTransport>, seat: u32) -> LlmClient {
        let config = ClientConfig {
            endpoint: "http://x/v1".into(),
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 5,
            timeout: Duration::from_secs(1),
            max_retries: 2,
            api_key: None,
            seat,
            limits: RateLimits::default(),
        };
        LlmClient::new(config, transport)
    }

    fn decide(c: &LlmClient, prompt: &str, stats: &mut LlmStats) -> Option<u32> {
        let parse =
            |s: &str| s.parse::<u32>().map_err(|_| Rejection { reason: "nan".into(), corrective: "a number".into() });
        c.decide(vec![ChatMessage { role: "user".into(), content: prompt.into() }], parse, stats, None)
    }

    #[test]
    fn a_replay_reproduces_the_stats_exactly_and_notices_divergence() {
        let answer =
            |s: &str| Ok(ChatResponse { content: s.into(), prompt_tokens: Some(9), completion_tokens: Some(1) });
        let live = std::sync::Arc::new(Live(Mutex::new(vec![
            Err(TransportError::RateLimited { retry_after_ms: Some(5) }),
            answer("x"),
            answer("4"),
        ])));
        let mut original = LlmStats::default();
        assert_eq!(decide(&client(live, 1), "n?", &mut original), Some(4));
        let record = serde_json::json!({ "1": serde_json::to_value(&original).unwrap() });

        let replay = std::sync::Arc::new(ReplayTransport::from_llm_stats(Some(&record)).unwrap());
        let mut again = LlmStats::default();
        assert_eq!(decide(&client(replay.clone(), 1), "n?", &mut again), Some(4));
        assert_eq!(again, original, "latencies included");
        assert_eq!((replay.calls(), replay.divergence()), (3, None));

        let replay = std::sync::Arc::new(ReplayTransport::from_llm_stats(Some(&record)).unwrap());
        decide(&client(replay.clone(), 1), "another prompt", &mut LlmStats::default());
        assert!(replay.divergence().unwrap().contains("another prompt than the recorded one"));
        let replay = std::sync::Arc::new(ReplayTransport::from_llm_stats(Some(&record)).unwrap());
        let got = decide(&client(replay.clone(), 2), "n?", &mut LlmStats::default());
        assert_eq!(got, None, "seat 2 has no recording: every call fails");
        assert!(replay.divergence().unwrap().contains("was not recorded"));
    }

    #[test]
    fn records_without_exchanges_are_refused_clearly() {
        assert_eq!(ReplayTransport::from_llm_stats(None).unwrap_err(), ReplayError::NoLlmStats);
        let old = serde_json::json!({ "0": { "calls": 3 } });
        let e = ReplayTransport::from_llm_stats(Some(&old)).unwrap_err();
        assert!(e.to_string().contains("seat 0's llm stats have no recorded exchanges"), "{e}");
    }
}
