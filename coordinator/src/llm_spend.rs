//! What a sweep's model calls cost, and when it stops handing out model jobs: the sweep file's
//! `[[llm_prices]]` (dollars per 1000 prompt and completion tokens, per model),
//! `llm_max_calls` and `llm_max_dollars`. The spend is measured from the results (each record's
//! `llm` stat: calls, prompt and completion tokens per seat) and the seat's model (its spec's
//! `model=`), the same way by `run` (between jobs) and `watch` (after each batch of results).

use serde_json::Value;
use simfleet::protocol::EpisodeRecord;
use simfleet::JobResult;

pub use crate::sweep::prices::{spec_param, LlmPrice};
use crate::sweep::Sweep;

/// Model calls made and their cost (tokens of priced models only).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spend {
    /// Calls made.
    pub calls: u64,
    /// Dollars spent, by the sweep's `[[llm_prices]]`.
    pub dollars: f64,
}

impl std::ops::AddAssign for Spend {
    fn add_assign(&mut self, other: Spend) {
        self.calls += other.calls;
        self.dollars += other.dollars;
    }
}

impl Sweep {
    /// The price of `model`, when `[[llm_prices]]` names it.
    pub fn llm_price(&self, model: &str) -> Option<&LlmPrice> {
        self.llm_prices.iter().find(|p| p.model == model)
    }

    /// Whether the sweep caps its model spend (`llm_max_calls` or `llm_max_dollars`).
    pub fn llm_capped(&self) -> bool {
        self.llm_max_calls.is_some() || self.llm_max_dollars.is_some()
    }

    /// Why the sweep hands out no more model jobs after `spent`: the limit reached, in words;
    /// `None` below both limits.
    pub fn llm_limit_reached(&self, spent: Spend) -> Option<String> {
        if let Some(max) = self.llm_max_calls.filter(|&max| spent.calls >= max) {
            return Some(format!(
                "the sweep's llm_max_calls of {max} was reached ({} model calls made, ${:.4} spent)",
                spent.calls, spent.dollars
            ));
        }
        let max = self.llm_max_dollars.filter(|&max| spent.dollars >= max)?;
        Some(format!(
            "the sweep's llm_max_dollars of ${max} was reached (${:.4} spent by {} model calls)",
            spent.dollars, spent.calls
        ))
    }
}

/// The calls and cost of `records`, played by the team `seats` (each record's `llm` stat is
/// keyed by seat number; the seat's spec names its model).
pub fn spend_of_records<'a>(
    sweep: &Sweep,
    seats: &[String],
    records: impl IntoIterator<Item = &'a EpisodeRecord>,
) -> Spend {
    let mut spend = Spend::default();
    for record in records {
        let map = record.stats.as_map();
        let Some(llm) = map.get("llm").and_then(Value::as_object) else { continue };
        for (seat, stat) in llm {
            let n = |k: &str| stat[k].as_u64().unwrap_or(0);
            spend.calls += n("calls");
            let model = seat.parse::<usize>().ok().and_then(|i| seats.get(i)).and_then(|s| spec_param(s, "model"));
            if let Some(price) = model.and_then(|m| sweep.llm_price(m)) {
                spend.dollars += price.dollars(n("prompt_tokens") as f64, n("completion_tokens") as f64);
            }
        }
    }
    spend
}

/// The calls and cost of `result`, a job of the team `seats`: from its records, or from its
/// aggregate when it collected a summary (priced by the first of its seats' models with a
/// price: the aggregate counts every seat's tokens together).
pub fn spend_of_result(sweep: &Sweep, seats: &[String], result: &JobResult) -> Spend {
    let Some(aggregate) = &result.summary else { return spend_of_records(sweep, seats, &result.records) };
    let llm = &aggregate.llm;
    let price = seats.iter().filter_map(|s| spec_param(s, "model")).find_map(|m| sweep.llm_price(m));
    Spend {
        calls: llm.calls,
        dollars: price.map_or(0.0, |p| p.dollars(llm.prompt_tokens as f64, llm.completion_tokens as f64)),
    }
}

/// A sweep's `llm_max_calls` / `llm_max_dollars` while `run` plays it: the spend of the jobs
/// played so far, counted as each job ends on its thread, and whether another model job may
/// start. One per run, so nothing of it outlives the sweep.
pub struct SpendGate<'a> {
    sweep: &'a Sweep,
    spent: std::sync::Mutex<Spend>,
}

impl<'a> SpendGate<'a> {
    /// The gate of `sweep`, when it caps its model spend.
    pub fn of(sweep: &'a Sweep) -> Option<SpendGate<'a>> {
        sweep.llm_capped().then(|| SpendGate { sweep, spent: std::sync::Mutex::new(Spend::default()) })
    }

    fn spent(&self) -> std::sync::MutexGuard<'_, Spend> {
        self.spent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Why no further model job may start, once a limit is reached.
    pub fn closed(&self) -> Option<String> {
        self.sweep.llm_limit_reached(*self.spent())
    }

    /// Counts the spend of `result`, a job of the team `seats`.
    pub fn count(&self, seats: &[String], result: &JobResult) {
        let spend = spend_of_result(self.sweep, seats, result);
        *self.spent() += spend;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(extra: &str) -> Sweep {
        let text = format!(
            "name = \"p\"\nseeds = {{ start = 0, count = 4 }}\n{extra}\n[[cells]]\ngame = \"deception\"\n\
             scenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
             m = [\"llm?model=gpt&endpoint=http://127.0.0.1:9/v1\", \"heuristic\", \"heuristic\", \"heuristic\"]\n\
             \n[[llm_prices]]\nmodel = \"gpt\"\nprompt_per_1k = 0.5\ncompletion_per_1k = 2.0\n"
        );
        Sweep::parse(&text, "p.toml").unwrap()
    }

    #[test]
    fn the_spend_prices_each_seats_tokens_by_its_model() {
        let sweep = sweep("llm_max_dollars = 0.01");
        let seats = sweep.cells[0].policy_set.seats.clone();
        let stats: simfleet::protocol::StatsMap = serde_json::from_value(serde_json::json!({"llm": {
            "0": {"calls": 3, "prompt_tokens": 1000, "completion_tokens": 500}}}))
        .unwrap();
        let record = EpisodeRecord {
            seed: 0,
            outcome: String::new(),
            length: 1,
            truncated: false,
            team_reward: 0.0,
            agent_rewards: Vec::new(),
            trajectory_hash: String::new(),
            stats: stats.into(),
        };
        let spend = spend_of_records(&sweep, &seats, [&record, &record]);
        assert_eq!(spend.calls, 6);
        assert!((spend.dollars - 3.0).abs() < 1e-9, "2 × (1 × 0.5 + 0.5 × 2.0): {}", spend.dollars);
        let why = sweep.llm_limit_reached(spend).unwrap();
        assert!(why.contains("llm_max_dollars of $0.01 was reached ($3.0000 spent by 6 model calls)"), "{why}");
        assert_eq!(sweep.llm_limit_reached(Spend { calls: 6, dollars: 0.001 }), None);
    }
}
