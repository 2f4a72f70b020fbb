//! A sweep's `[stop]` table against its cells: what the cells must allow (a win outcome for
//! `metric = "win"`, the baseline in every (game, scenario), one collect mode per (game,
//! scenario), no `llm` seats), and the stopping groups of the plan.

use std::ops::Range;

use simfleet::policy::is_llm_spec;

use super::stop_table::{Metric, StopConfig};
use super::{Cell, Sweep};

/// The cells of each (game, scenario), in first-appearance order: the stopping groups.
fn groups(cells: &[Cell]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        match out.iter_mut().find(|g| cells[g[0]].game == c.game && cells[g[0]].scenario == c.scenario) {
            Some(g) => g.push(i),
            None => out.push(vec![i]),
        }
    }
    out
}

/// Checks `config` against the parsed cells: `Err((span, field, message))` at the value the
/// cells contradict.
pub(super) fn check(config: &StopConfig, cells: &[Cell]) -> Result<(), (Option<Range<usize>>, String, String)> {
    let spans = &config.spans;
    if config.metric == Metric::Win {
        if let Some(c) = cells.iter().find(|c| c.game.info().win_outcome.is_none()) {
            let message =
                format!("{} has no win outcome: use metric = \"team_reward\" for a sweep that plays it", c.game);
            return Err((spans.metric.clone(), "stop.metric".into(), message));
        }
    }
    if let Some(c) = cells.iter().find(|c| c.policy_set.seats.iter().any(|s| is_llm_spec(s))) {
        let message = format!(
            "policy set {} has llm seats: a stopping sweep plays scripted policies only (remove [stop] to play it)",
            c.policy_set.name
        );
        return Err((spans.table.clone(), "stop".into(), message));
    }
    for g in groups(cells) {
        let first = &cells[g[0]];
        let what = format!("({}, {:?})", first.game, first.scenario);
        if g.iter().any(|&i| cells[i].collect != first.collect) {
            let message = format!(
                "{what} collects records in some cells and summaries in others: its sets play paired, give them one collect mode"
            );
            return Err((spans.table.clone(), "stop".into(), message));
        }
        if let Some(b) = &config.baseline {
            if !g.iter().any(|&i| &cells[i].policy_set.name == b) {
                let message =
                    format!("no policy set {b:?} plays {what}: the baseline must play every (game, scenario)");
                return Err((spans.baseline.clone(), "stop.baseline".into(), message));
            }
        }
    }
    Ok(())
}

impl Sweep {
    /// The cells of each (game, scenario), in first-appearance order: a stopping sweep's
    /// groups (`crate::stop`'s plan).
    pub fn stop_groups(&self) -> Vec<Vec<usize>> {
        groups(&self.cells)
    }
}
