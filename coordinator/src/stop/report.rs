//! What `coordinator run` prints at the end of a stopping sweep: each cell's answers, then the
//! episodes and core-seconds against the cap and the fixed design.

use serde::{Deserialize, Serialize};

use super::block::Stopping;
use super::savings::Savings;
use super::{Decision, Question};
use crate::table::{render, Align};

/// One question of one cell, as printed and written (and read back by `summary`, `compare` and
/// `report`: [`super::decisions`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRow {
    /// The game id.
    pub game: String,
    /// The scenario string.
    pub scenario: String,
    /// The policy set.
    pub policy_set: String,
    /// The question.
    pub question: Question,
    /// Its answer.
    pub decision: Decision,
    /// Seeds when it was decided (the cap when capped).
    pub decided_at: u64,
    /// Seeds the cell played.
    pub played: u64,
    /// The interval it rests on (absent before two seeds).
    pub interval_low: Option<f64>,
    /// Its upper bound.
    pub interval_high: Option<f64>,
}

/// The end of a stopping run.
#[derive(Clone, Debug, Serialize)]
pub struct StopReport {
    /// One row per (cell, question), in cell order.
    pub rows: Vec<DecisionRow>,
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

impl DecisionRow {
    /// The columns of the decisions table, in the terminal and in the report.
    pub const HEAD: [&'static str; 9] =
        ["game", "scenario", "policy set", "question", "decision", "at seeds", "played", "low", "high"];

    /// Its cells in the decisions table (bounds with three decimals, empty when there is none).
    pub fn cells(&self) -> [String; 9] {
        let bound = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:.3}"));
        [
            self.game.clone(),
            self.scenario.clone(),
            self.policy_set.clone(),
            self.question.as_str().into(),
            self.decision.as_str().into(),
            self.decided_at.to_string(),
            self.played.to_string(),
            bound(self.interval_low),
            bound(self.interval_high),
        ]
    }
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
                    rows.push(DecisionRow {
                        game: shape.game.clone(),
                        scenario: shape.scenario.clone(),
                        policy_set: shape.sets[s].clone(),
                        question: o.question,
                        decision: o.decision,
                        decided_at: o.seeds,
                        played: state.played[s],
                        interval_low: o.interval.map(|iv| iv.low),
                        interval_high: o.interval.map(|iv| iv.high),
                    });
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
        let rows: Vec<[String; 9]> = self.rows.iter().map(DecisionRow::cells).collect();
        render(&DecisionRow::HEAD, &[L, L, L, L, L, R, R, R, R], &rows)
    }

    /// The episodes line: a function of the results alone.
    pub fn episodes_line(&self) -> String {
        let s = &self.savings;
        format!(
            "stopping: {} episodes played; {} at the cap ({}); {} for the fixed design with the same guarantee ({} seeds per cell, {}); {} to decide only what was decided ({} seeds per cell, {})",
            s.played,
            s.cap,
            more_or_fewer(s.vs_cap()),
            s.fixed,
            s.fixed_seeds,
            more_or_fewer(s.vs_fixed()),
            s.decided,
            s.decided_seeds,
            more_or_fewer(s.vs_decided())
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

/// An alternative's episodes against those played, `ratio` = theirs / played, in words:
/// `2.5x more`, `2.5x fewer`, or `as many` when they agree to the shown digit.
pub fn more_or_fewer(ratio: f64) -> String {
    if !ratio.is_finite() || ratio <= 0.0 {
        return "none".into();
    }
    match (format!("{ratio:.1}"), format!("{:.1}", 1.0 / ratio)) {
        (more, _) if ratio > 1.0 && more != "1.0" => format!("{more}x more"),
        (_, fewer) if ratio < 1.0 && fewer != "1.0" => format!("{fewer}x fewer"),
        _ => "as many".into(),
    }
}

/// What a stopping run writes beside its output (`<stem>.stop.json`): the decisions and the
/// log of every fold, the input of a resumed run's check. A function of the sweep file and the
/// results alone (no timings), so it is the same file for any thread count.
#[derive(Clone, Debug, Serialize)]
pub struct StopFile<'a> {
    /// The sweep id.
    pub sweep: &'a str,
    /// The questions asked (the `[stop]` table): what the intervals are of, and the baseline
    /// `compare` matches.
    pub stop: &'a super::StopConfig,
    /// The checkpoints.
    pub checkpoints: &'a [u64],
    /// The `z` of every look.
    pub z: f64,
    /// One row per (cell, question), as printed.
    pub decisions: &'a [DecisionRow],
    /// Episodes against the alternatives.
    pub savings: Savings,
    /// Every fold.
    pub log: &'a super::log::StopLog,
}

impl<'a> StopFile<'a> {
    /// The file of a finished run.
    pub fn of(sweep: &'a str, run: &'a Stopping, report: &'a StopReport) -> StopFile<'a> {
        StopFile {
            sweep,
            stop: &run.plan.config,
            checkpoints: &run.plan.checkpoints,
            z: run.plan.z,
            decisions: &report.rows,
            savings: report.savings,
            log: &run.log,
        }
    }

    /// Where it goes beside `out`: `<stem>.stop.json`.
    pub fn path(out: &std::path::Path) -> std::path::PathBuf {
        let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        out.with_file_name(format!("{stem}.stop.json"))
    }
}
