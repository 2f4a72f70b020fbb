//! The decision columns of a summary file (docs/records.md, "Summary files"): what a stopping
//! sweep decided of each cell, from its `<stem>.stop.json` ([`crate::stop::decisions`]). A file
//! has them when a row has a decision, and only then, so the summary file of a sweep without
//! `[stop]` is the same bytes as before they existed; a reader takes them when present.
//!
//! One row per cell, so one answer per row: `question` says which (`baseline`, else `best`, else
//! `precision`), `decision` is its answer, `interval_low`/`interval_high` the anytime-valid
//! interval it rests on (of the difference for a comparison, of the mean for precision), and
//! `decisions` lists every answer of the cell (`baseline=better;best=not_best`).

use super::cells::{Cell, CellRow, Kind};
use crate::stop::decisions::{Answer, Decisions};
use crate::stop::{Decision, Question};

/// The decision columns, in file order.
pub(super) const STOP_COLUMNS: [(&str, Kind); 5] = [
    ("question", Kind::OptText),
    ("decision", Kind::OptText),
    ("interval_low", Kind::OptFloat),
    ("interval_high", Kind::OptFloat),
    ("decisions", Kind::OptText),
];

/// A `question` or `decision` value from its name (`not_best`, …).
fn named<T: serde::de::DeserializeOwned>(column: &str, name: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(name.into())).map_err(|e| format!("{column}: {e}"))
}

impl CellRow {
    /// Whether the row carries a stopping sweep's decision.
    pub fn has_decision(&self) -> bool {
        self.question.is_some() || self.decision.is_some() || self.decisions.is_some()
    }

    /// The row with `answer` in its decision columns (`None` clears them).
    pub fn with_answer(mut self, answer: Option<Answer>) -> CellRow {
        self.set_answer(answer);
        self
    }

    fn set_answer(&mut self, answer: Option<Answer>) {
        self.question = answer.as_ref().map(|a| a.question);
        self.decision = answer.as_ref().map(|a| a.decision);
        self.interval_low = answer.as_ref().and_then(|a| a.low);
        self.interval_high = answer.as_ref().and_then(|a| a.high);
        self.decisions = answer.map(|a| a.all);
    }

    /// The decision columns' values.
    pub(super) fn stop_values(&self) -> [Cell; 5] {
        [
            Cell::Text(self.question.map(|q| q.as_str().to_string())),
            Cell::Text(self.decision.map(|d| d.as_str().to_string())),
            Cell::Float(self.interval_low),
            Cell::Float(self.interval_high),
            Cell::Text(self.decisions.clone()),
        ]
    }

    /// The row with the decision columns `get` finds (a file written without them has none).
    pub(super) fn with_decision_columns(mut self, get: impl Fn(&str) -> Option<String>) -> Result<CellRow, String> {
        let get = |k: &str| get(k).filter(|v| !v.is_empty());
        let float = |k: &str| get(k).map(|v| v.parse::<f64>().map_err(|e| format!("{k}: {e}"))).transpose();
        self.question = get("question").map(|q| named::<Question>("question", &q)).transpose()?;
        self.decision = get("decision").map(|d| named::<Decision>("decision", &d)).transpose()?;
        self.interval_low = float("interval_low")?;
        self.interval_high = float("interval_high")?;
        self.decisions = get("decisions");
        Ok(self)
    }
}

/// Puts each row's answer from `decisions` in its decision columns (cleared for a cell the stop
/// files do not decide).
pub fn apply(rows: &mut [CellRow], decisions: &Decisions) {
    for row in rows {
        row.set_answer(decisions.answer(&row.game, &row.scenario, &row.policy_set));
    }
}
