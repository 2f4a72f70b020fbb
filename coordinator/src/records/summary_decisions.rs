//! The decision columns of a summary file (docs/records.md, "Summary files"): what a stopping
//! sweep decided of each cell, from its `<stem>.stop.json` ([`crate::stop::decisions`]). A file
//! has them when a row has a decision, and only then, so the summary file of a sweep without
//! `[stop]` is the same bytes as before they existed; a reader takes them when present.
//!
//! One row per cell, so one answer per row: `question` says which (`baseline`, else `best`, else
//! `precision`), `decision` is its answer, `interval_low`/`interval_high` the anytime-valid
//! interval it rests on (of the difference for a comparison, of the mean for precision), and
//! `decisions` lists every answer of the cell (`baseline=better;best=not_best`). The values come
//! from `stop::decisions` (`apply`); this module, like all of `records/`, knows only columns.

use super::summary_row::{Cell, CellRow};

impl CellRow {
    /// Whether the row carries a stopping sweep's decision.
    pub fn has_decision(&self) -> bool {
        self.question.is_some() || self.decision.is_some() || self.decisions.is_some()
    }

    /// The decision columns' values.
    pub(super) fn stop_values(&self) -> [Cell; 5] {
        [
            Cell::Text(self.question.clone()),
            Cell::Text(self.decision.clone()),
            Cell::Float(self.interval_low),
            Cell::Float(self.interval_high),
            Cell::Text(self.decisions.clone()),
        ]
    }

    /// The row with the decision columns `get` finds (a file written without them has none).
    pub(super) fn with_decision_columns(mut self, get: impl Fn(&str) -> Option<String>) -> Result<CellRow, String> {
        let get = |k: &str| get(k).filter(|v| !v.is_empty());
        let float = |k: &str| get(k).map(|v| v.parse::<f64>().map_err(|e| format!("{k}: {e}"))).transpose();
        self.question = get("question");
        self.decision = get("decision");
        self.interval_low = float("interval_low")?;
        self.interval_high = float("interval_high")?;
        self.decisions = get("decisions");
        Ok(self)
    }
}
