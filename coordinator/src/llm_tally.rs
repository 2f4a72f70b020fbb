//! Model calls, failures and fallbacks per cell with `llm` seats, from the records' `llm` stat:
//! what `run` and `watch` print after the summary table, and the check that makes a sweep whose
//! model mostly failed exit 1 instead of passing off its scripted fallback as the model's play.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;
use simfleet::aggregate::{CellAggregate, LlmCounts};
use simfleet::llm::estimate::decisions_per_seat_episode;
use simfleet::policy::is_llm_spec;
use simfleet::protocol::Collect;

use crate::records::summary_file::CellRow;
use crate::records::Input;
use crate::sweep::Sweep;

/// One cell's model activity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellCalls {
    /// Episodes with an `llm` seat.
    pub episodes: u64,
    /// Decisions asked of the model.
    pub decisions: u64,
    /// Calls made.
    pub calls: u64,
    /// Calls that failed, by kind, with the first failure's detail.
    pub failures: BTreeMap<String, (u64, String)>,
    /// Decisions handed to the scripted fallback.
    pub fallbacks: u64,
    /// Prompt plus completion tokens.
    pub tokens: u64,
}

impl CellCalls {
    /// The share of decisions that fell back.
    pub fn fallback_share(&self) -> f64 {
        self.fallbacks as f64 / self.decisions.max(1) as f64
    }

    /// Failed calls.
    pub fn failed(&self) -> u64 {
        self.failures.values().map(|(n, _)| n).sum()
    }

    /// A summary cell's counts, from its aggregate.
    fn of_aggregate(a: &CellAggregate) -> CellCalls {
        CellCalls {
            episodes: a.llm_episodes,
            decisions: a.llm.decisions,
            calls: a.llm.calls,
            failures: a.llm.failures.iter().map(|(k, f)| (k.clone(), (f.calls, f.first.clone()))).collect(),
            fallbacks: a.llm.fallbacks,
            tokens: a.llm_tokens,
        }
    }

    /// Adds one record's `llm` stat (seat → counters and exchanges), counted as a summary
    /// job's aggregate counts it (failed calls and refused answers by kind, the first of each).
    fn add(&mut self, llm: &Value) {
        if !llm.is_object() {
            return;
        }
        let mut counts = LlmCounts::default();
        counts.add_stat(llm);
        self.episodes += 1;
        self.decisions += counts.decisions;
        self.calls += counts.calls;
        self.fallbacks += counts.fallbacks;
        self.tokens += counts.prompt_tokens + counts.completion_tokens;
        for (kind, f) in counts.failures {
            self.failures.entry(kind).or_insert_with(|| (0, f.first)).0 += f.calls;
        }
    }
}

/// Every cell with `llm` seats of a results file, keyed by (game, scenario, policy set).
#[derive(Debug, Default)]
pub struct LlmTally {
    /// The cells.
    pub cells: BTreeMap<(String, String, String), CellCalls>,
}

impl LlmTally {
    /// Reads the `llm` stat of every record of `out` (any results format).
    pub fn of_file(out: &Path) -> anyhow::Result<LlmTally> {
        LlmTally::of_input(&Input::file(out)?)
    }

    /// Every cell with `llm` seats of a summary file's rows.
    pub fn of_rows(rows: &[CellRow]) -> LlmTally {
        let cells = rows
            .iter()
            .filter(|r| r.aggregate.llm_episodes > 0)
            .map(|r| {
                ((r.game.clone(), r.scenario.clone(), r.policy_set.clone()), CellCalls::of_aggregate(&r.aggregate))
            })
            .collect();
        LlmTally { cells }
    }

    /// The cells of `input`: its rows when it holds summary files, else its records.
    pub fn of_input(input: &Input) -> anyhow::Result<LlmTally> {
        if input.is_cells() {
            return Ok(LlmTally::of_rows(&input.read_cells()?));
        }
        let mut tally = LlmTally::default();
        input.for_each_row(|row| {
            if let Some(llm) = row.stats.get("llm") {
                let llm = match llm {
                    // CSV and Parquet carry the stat as one JSON text.
                    Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
                    other => other.clone(),
                };
                if llm.as_object().is_some_and(|m| !m.is_empty()) {
                    let key = (row.game.clone(), row.scenario.clone(), row.policy_set.clone());
                    tally.cells.entry(key).or_default().add(&llm);
                }
            }
        })?;
        Ok(tally)
    }

    /// All calls made.
    pub fn calls(&self) -> u64 {
        self.cells.values().map(|c| c.calls).sum()
    }

    /// The table printed after a sweep: per cell, calls, failed calls, decisions, fallbacks and
    /// their share; empty without `llm` cells.
    pub fn table(&self) -> String {
        let mut out = String::new();
        if self.cells.is_empty() {
            return out;
        }
        let _ = writeln!(out, "\nmodel calls per cell with llm seats:");
        for ((game, scenario, set), c) in &self.cells {
            let _ = writeln!(
                out,
                "  {game} {scenario} × {set}: {} calls, {} failed, {} decisions, {} fell back ({:.1}%), {} tokens",
                c.calls,
                c.failed(),
                c.decisions,
                c.fallbacks,
                100.0 * c.fallback_share(),
                c.tokens
            );
        }
        out
    }

    /// Why the sweep fails, when some cell's decisions fell back more than `max_share`: each
    /// such cell and its failures by kind, with the first error of each kind.
    pub fn too_many_fallbacks(&self, max_share: f64) -> Option<String> {
        let over: Vec<_> =
            self.cells.iter().filter(|(_, c)| c.decisions > 0 && c.fallback_share() > max_share).collect();
        if over.is_empty() {
            return None;
        }
        let mut message = format!(
            "{} cell(s) fell back to the scripted policy for more than {:.1}% of the model's decisions \
             (llm_max_fallback_share in the sweep file):",
            over.len(),
            100.0 * max_share
        );
        for ((game, scenario, set), c) in over {
            let _ = write!(
                message,
                "\n  {game} {scenario} × {set}: {} of {} decisions fell back ({:.1}%)",
                c.fallbacks,
                c.decisions,
                100.0 * c.fallback_share()
            );
            for (kind, (n, first)) in &c.failures {
                let what =
                    if kind == "invalid_output" { "answer(s) refused by the game as" } else { "call(s) failed with" };
                let _ = write!(message, "\n    {n} {what} {kind}, the first: {first}");
            }
        }
        Some(message)
    }
}

/// A seat spec's numeric parameter `key`, or `default`.
fn param(spec: &str, key: &str, default: f64) -> f64 {
    let query = spec.split_once('?').map_or("", |(_, q)| q);
    query.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok()).unwrap_or(default)
}

/// Prompt tokens of one call, about: prompts are rendered from the game's state, 500–1,000
/// tokens a call; the estimate takes the middle and the most takes the top.
const PROMPT_TOKENS_PER_CALL: (f64, f64) = (750.0, 1000.0);

/// What `run` and `submit` print before playing: each cell with `llm` seats, its expected model
/// calls (episodes × model seats × the game's decisions per seat and episode), the most calls
/// if every attempt failed (`max_retries`), the prompt and completion tokens (`max_tokens`),
/// and, for models `[[llm_prices]]` prices, the expected and the most dollars. Empty without
/// such cells.
pub fn estimate(sweep: &Sweep) -> String {
    let mut out = String::new();
    let (mut expected_total, mut most_total, mut priced_all) = (0.0, 0.0, true);
    for c in &sweep.cells {
        let seats: Vec<&String> = c.policy_set.seats.iter().filter(|s| is_llm_spec(s)).collect();
        if seats.is_empty() {
            continue;
        }
        let per_seat = sweep.seeds.count as f64 * decisions_per_seat_episode(c.game, c.policy_set.seats.len());
        let calls = per_seat * seats.len() as f64;
        let (mut most, mut prompt, mut completion, mut dollars, mut most_dollars) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut priced = true;
        for s in &seats {
            let seat_most = per_seat * (1.0 + param(s, "max_retries", 2.0));
            let max_tokens = param(s, "max_tokens", 300.0);
            most += seat_most;
            prompt += per_seat * PROMPT_TOKENS_PER_CALL.0;
            completion += seat_most * max_tokens;
            match crate::llm_spend::spec_param(s, "model").and_then(|m| sweep.llm_price(m)) {
                Some(price) => {
                    dollars += price.dollars(per_seat * PROMPT_TOKENS_PER_CALL.0, per_seat * max_tokens);
                    most_dollars += price.dollars(seat_most * PROMPT_TOKENS_PER_CALL.1, seat_most * max_tokens);
                }
                None => priced = false,
            }
        }
        let _ = write!(
            out,
            "{} {} × {}: expect ≈ {calls:.0} model calls ({most:.0} at most with every retry), ≈ {prompt:.0} prompt tokens, \
             at most {completion:.0} completion tokens",
            c.game, c.scenario, c.policy_set.name
        );
        if priced {
            let _ = write!(out, ", ≈ ${dollars:.2} (at most ${most_dollars:.2})");
            expected_total += dollars;
            most_total += most_dollars;
        } else {
            let _ = write!(out, " (no [[llm_prices]] for its model: cost unknown)");
            priced_all = false;
        }
        out.push('\n');
    }
    if !out.is_empty() {
        out.insert_str(0, "before playing, cells with llm seats:\n");
        if priced_all {
            let _ = writeln!(out, "the sweep: ≈ ${expected_total:.2} (at most ${most_total:.2})");
        }
        if let Some(max) = sweep.llm_max_calls {
            let _ = writeln!(out, "llm_max_calls = {max} stops the sweep's model jobs there");
        }
        if let Some(max) = sweep.llm_max_dollars {
            let _ = writeln!(
                out,
                "llm_max_dollars = {max} stops the sweep's model jobs there (spend measured from the tokens)"
            );
        }
    }
    out
}

/// After a sweep wrote its results to `out` (and its summary cells' rows to the summary file
/// beside it): prints the model calls of its cells with `llm` seats, records and summary cells
/// alike, and returns `false` (the sweep failed) when a cell's decisions fell back more than
/// the sweep's `llm_max_fallback_share`, saying which cells and why on stderr.
pub fn check(sweep: &Sweep, out: &Path) -> anyhow::Result<bool> {
    let llm_cells = |collect: Collect| {
        sweep.cells.iter().any(|c| c.collect == collect && c.policy_set.seats.iter().any(|s| is_llm_spec(s)))
    };
    let mut tally = LlmTally::default();
    if llm_cells(Collect::Records) {
        tally.cells.extend(LlmTally::of_file(out)?.cells);
    }
    if llm_cells(Collect::Summary) {
        let cells = crate::collector::cell_merge::summary_path(sweep, out);
        if cells.exists() {
            tally.cells.extend(LlmTally::of_rows(&crate::records::summary_file::read_cells(&cells)?).cells);
        }
    }
    if tally.cells.is_empty() {
        return Ok(true);
    }
    print!("{}", tally.table());
    match tally.too_many_fallbacks(sweep.llm_max_fallback_share) {
        Some(why) => {
            eprintln!("error: {why}");
            Ok(false)
        }
        None => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_estimate_reads_the_seats_limits() {
        let text = "name = \"e\"\nseeds = { start = 0, count = 10 }\n\n[[cells]]\ngame = \"trolley\"\n\
            scenarios = [\"trio_3p\"]\n[cells.policy_sets]\n\
            m = [\"llm?model=x&endpoint=http://127.0.0.1:9/v1&max_retries=1&max_tokens=100\", \"persuadable\", \"persuadable\"]\n";
        let sweep = Sweep::parse(text, "e.toml").unwrap();
        let e = estimate(&sweep);
        assert!(
            e.contains("trolley trio_3p × m: expect ≈ 78 model calls (156 at most with every retry), ≈ 58500 prompt tokens, at most 15600"),
            "{e}"
        );
        assert!(e.contains("no [[llm_prices]] for its model"), "{e}");
        // Priced: 78 calls × (750 × 0.5 + 100 × 2) / 1000, and 156 × (1000 × 0.5 + 100 × 2) / 1000.
        let priced = Sweep::parse(
            &format!("{text}\n[[llm_prices]]\nmodel = \"x\"\nprompt_per_1k = 0.5\ncompletion_per_1k = 2.0\n"),
            "e.toml",
        )
        .unwrap();
        let e = estimate(&priced);
        assert!(e.contains("at most 15600 completion tokens, ≈ $44.85 (at most $109.20)"), "{e}");
        assert!(e.contains("the sweep: ≈ $44.85 (at most $109.20)"), "{e}");
    }

    #[test]
    fn counts_per_cell_and_names_the_cells_over_the_share() {
        let mut c = CellCalls::default();
        c.add(&json!({"0": {"decisions": 4, "calls": 6, "fallbacks": 1, "prompt_tokens": 10, "completion_tokens": 5,
            "exchanges": [{"error": {"kind": "connect", "detail": "refused"}}, {"error": {"kind": "connect"}}, {"answer": "x"}]}}));
        assert_eq!((c.episodes, c.decisions, c.calls, c.fallbacks, c.tokens, c.failed()), (1, 4, 6, 1, 15, 2));
        let tally = LlmTally { cells: BTreeMap::from([(("deception".into(), "q".into(), "m".into()), c)]) };
        assert!(tally.table().contains("6 calls, 2 failed, 4 decisions, 1 fell back (25.0%)"));
        assert_eq!(tally.too_many_fallbacks(0.25), None, "at the share is not over it");
        let why = tally.too_many_fallbacks(0.05).unwrap();
        assert!(why.contains("deception q × m: 1 of 4") && why.contains("2 call(s) failed with connect"), "{why}");
        assert!(why.contains("refused"), "{why}");
    }
}
