//! [`LlmCounts`]: what a cell's `llm` seats did (decisions, calls, fallbacks, failed calls by
//! kind), counted from each episode's `llm` stat, so that a summary cell shows the same
//! fallback table as a records cell and fails the same way when its model mostly failed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Failed calls of one error kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCalls {
    /// How many.
    pub calls: u64,
    /// The first one's error (its JSON), in job and seed order.
    pub first: String,
}

/// The model activity of a cell's `llm` seats, every seat together.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmCounts {
    /// Decisions asked of the model.
    pub decisions: u64,
    /// Calls made.
    pub calls: u64,
    /// Decisions handed to the scripted fallback.
    pub fallbacks: u64,
    /// Prompt tokens, where reported (what a price per prompt token applies to).
    pub prompt_tokens: u64,
    /// Completion tokens, where reported.
    pub completion_tokens: u64,
    /// Failed calls by error kind (`connect`, `timeout`, `status`, …).
    pub failures: BTreeMap<String, FailedCalls>,
}

/// The kind and the text of one recorded call's failure: a transport error (its `kind`, the
/// error as JSON), or an answer the game refused (`invalid_output`: why, and the answer). `None`
/// for a call whose answer was used.
pub fn failure_of(exchange: &Value) -> Option<(String, String)> {
    if let Some(error) = exchange.get("error").filter(|e| !e.is_null()) {
        let kind = error.get("kind").and_then(Value::as_str).unwrap_or("error");
        return Some((kind.to_string(), error.to_string()));
    }
    let refused = exchange.get("refused").and_then(Value::as_str)?;
    let answer: String = exchange.get("answer").and_then(Value::as_str).unwrap_or_default().chars().take(200).collect();
    Some(("invalid_output".to_string(), format!("{refused}; the answer was {answer:?}")))
}

impl LlmCounts {
    /// Nothing counted (a cell without `llm` seats): not written in an aggregate.
    pub fn is_empty(&self) -> bool {
        self.decisions == 0 && self.calls == 0 && self.fallbacks == 0 && self.failures.is_empty()
    }

    /// Counts one episode's `llm` stat (`{seat: {decisions, calls, fallbacks, exchanges}}`).
    pub fn add_stat(&mut self, llm: &Value) {
        let Some(seats) = llm.as_object() else { return };
        for seat in seats.values() {
            let n = |k: &str| seat.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.decisions += n("decisions");
            self.calls += n("calls");
            self.fallbacks += n("fallbacks");
            self.prompt_tokens += n("prompt_tokens");
            self.completion_tokens += n("completion_tokens");
            for exchange in seat.get("exchanges").and_then(Value::as_array).into_iter().flatten() {
                let Some((kind, first)) = failure_of(exchange) else { continue };
                self.failures.entry(kind).or_insert_with(|| FailedCalls { calls: 0, first }).calls += 1;
            }
        }
    }

    /// Adds what `other` counted (after this: the first errors stay this one's).
    pub fn merge(&mut self, other: &LlmCounts) {
        self.decisions += other.decisions;
        self.calls += other.calls;
        self.fallbacks += other.fallbacks;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        for (kind, f) in &other.failures {
            let entry =
                self.failures.entry(kind.clone()).or_insert_with(|| FailedCalls { calls: 0, first: f.first.clone() });
            entry.calls += f.calls;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn counts_and_merges_keeping_the_first_error_of_each_kind() {
        let mut a = LlmCounts::default();
        a.add_stat(&json!({"0": {"decisions": 4, "calls": 6, "fallbacks": 1,
            "exchanges": [{"error": {"kind": "connect", "detail": "refused"}}, {"error": null}, {"answer": "x"}]}}));
        let mut b = LlmCounts::default();
        b.add_stat(&json!({"1": {"decisions": 2, "calls": 2, "fallbacks": 2,
            "exchanges": [{"error": {"kind": "connect", "detail": "later"}}, {"error": {"kind": "timeout"}}]}}));
        a.merge(&b);
        assert_eq!((a.decisions, a.calls, a.fallbacks), (6, 8, 3));
        assert_eq!(a.failures["connect"].calls, 2);
        assert!(a.failures["connect"].first.contains("refused"), "{:?}", a.failures);
        assert_eq!(a.failures["timeout"].calls, 1);
        assert!(LlmCounts::default().is_empty() && !a.is_empty());
    }
}
