//! What `coordinator run` prints at the end of a stopping sweep: each cell's answers, then the
//! episodes and core-seconds against the cap and the fixed design.

use serde::Serialize;

use super::block::Stopping;
use super::savings::Savings;
use crate::table::{render, Align};

/// The end of a stopping run.
#[derive(Clone, Debug, Serialize)]
pub struct StopReport {
    /// One row per (cell, question): game, scenario, policy set, question, decision, the seeds
    /// it was decided at (the cap when capped), the seeds the cell played, interval low and
    /// high (empty before two seeds).
    pub rows: Vec<[String; 9]>,
    /// Episodes against the alternatives.
    pub savings: Savings,
    /// Core-seconds played, measured per cell.
    pub core_seconds: f64,
    /// Core-seconds the fixed design would take at the cells' measured cost per episode.
    pub core_seconds_fixed: f64,
    /// Core-seconds at the cap.
    pub core_seconds_cap: f64,
    /// Looks made.
    pub looks: usize,
    /// Whether some running intersection came out empty (the approximation failed there).
    pub empty: bool,
}

impl StopReport {
    /// The report of a finished run.
    pub fn of(run: &Stopping) -> StopReport {
        let plan = &run.plan;
        let mut rows = Vec::new();
        for state in &run.states {
            let shape = &plan.groups[state.group];
            for (s, outcomes) in state.outcomes.iter().enumerate() {
                for o in outcomes {
                    let (low, high) = o.interval.map_or((String::new(), String::new()), |iv| {
                        (format!("{:.3}", iv.low), format!("{:.3}", iv.high))
                    });
                    rows.push([
                        shape.game.clone(),
                        shape.scenario.clone(),
                        shape.sets[s].clone(),
                        o.question.as_str().into(),
                        o.decision.as_str().into(),
                        o.seeds.to_string(),
                        state.played[s].to_string(),
                        low,
                        high,
                    ]);
                }
            }
        }
        let savings = Savings::of(plan, &run.states);
        let (mut played, mut fixed, mut cap) = (0.0, 0.0, 0.0);
        for cell in &run.cells {
            let per_episode = cell.core_seconds / cell.episodes.max(1) as f64;
            played += cell.core_seconds;
            fixed += per_episode * savings.fixed_seeds as f64;
            cap += per_episode * plan.cap as f64;
        }
        StopReport {
            rows,
            savings,
            core_seconds: played,
            core_seconds_fixed: fixed,
            core_seconds_cap: cap,
            looks: run.log.folds.len(),
            empty: run.states.iter().any(|s| s.empty),
        }
    }

    /// The decisions table.
    pub fn table(&self) -> String {
        use Align::{Left as L, Right as R};
        let head = ["game", "scenario", "policy set", "question", "decision", "at seeds", "played", "low", "high"];
        render(&head, &[L, L, L, L, L, R, R, R, R], &self.rows)
    }

    /// The episodes line: a function of the results alone.
    pub fn episodes_line(&self) -> String {
        let s = &self.savings;
        format!(
            "stopping: {} episodes played; {} at the cap ({:.1}x more); {} for the fixed design with the same guarantee ({} seeds per cell, {:.1}x more); {} to decide only what was decided ({} seeds per cell, {:.1}x more)",
            s.played,
            s.cap,
            s.vs_cap(),
            s.fixed,
            s.fixed_seeds,
            s.vs_fixed(),
            s.decided,
            s.decided_seeds,
            s.vs_decided()
        )
    }

    /// The core-seconds line: measured, so it varies from run to run.
    pub fn core_seconds_line(&self) -> String {
        format!(
            "core-seconds: {:.2} played; {:.2} at the cap; {:.2} for the fixed design",
            self.core_seconds, self.core_seconds_cap, self.core_seconds_fixed
        )
    }
}
