//! [`SummaryScan`]: the summary as an accumulator of the parallel results reader
//! ([`crate::records::scan`]): one per block of rows, merged in file order.

use simfleet::aggregate::llm_tokens;

use super::{MixedVersions, Summary};
use crate::records::scan::{Accumulate, ScanRow};

/// A [`Summary`] being accumulated from scanned rows, or the first mix of engine versions.
#[derive(Debug, Default)]
pub struct SummaryScan {
    summary: Summary,
    error: Option<MixedVersions>,
    /// The cell of the previous row and its key: consecutive rows are mostly of one cell, so a
    /// row costs a comparison (of dictionary indices where the reader has them), not a lookup.
    last: Option<Last>,
    /// (cell, outcome key, index in the cell's outcomes) of the outcomes met with a key: a
    /// row's outcome is then counted without hashing its label.
    outcomes: Vec<(usize, u32, usize)>,
}

#[derive(Debug, Default)]
struct Last {
    key: Option<u64>,
    game: String,
    engine_version: String,
    scenario: String,
    policy_set: String,
    cell: usize,
}

impl Last {
    fn same(&self, row: &ScanRow<'_>) -> bool {
        if let (Some(a), Some(b)) = (self.key, row.key) {
            if a == b {
                return true;
            }
        }
        self.game == row.game
            && self.scenario == row.scenario
            && self.policy_set == row.policy_set
            && self.engine_version == row.engine_version
    }
}

impl SummaryScan {
    /// The summary, or the first mix of engine versions met.
    pub fn finish(self) -> Result<Summary, MixedVersions> {
        match self.error {
            Some(e) => Err(e),
            None => {
                let mut summary = self.summary;
                summary.sort_cells();
                Ok(summary)
            }
        }
    }

    fn cell_of(&mut self, row: &ScanRow<'_>) -> Result<usize, MixedVersions> {
        if let Some(last) = &mut self.last {
            if last.same(row) {
                last.key = row.key;
                return Ok(last.cell);
            }
        }
        self.summary.check_version(row.game, row.engine_version)?;
        self.summary.cell(row.game, row.scenario, row.policy_set);
        let key = super::KeyRef(row.game, row.scenario, row.policy_set);
        let cell = self.summary.cells.get_index_of(&key).expect("just created");
        let last = self.last.get_or_insert_with(Last::default);
        last.key = row.key;
        last.cell = cell;
        for (to, from) in [
            (&mut last.game, row.game),
            (&mut last.engine_version, row.engine_version),
            (&mut last.scenario, row.scenario),
            (&mut last.policy_set, row.policy_set),
        ] {
            to.clear();
            to.push_str(from);
        }
        Ok(cell)
    }
}

impl Accumulate for SummaryScan {
    fn add(&mut self, row: &ScanRow<'_>) {
        if self.error.is_some() {
            return;
        }
        match self.cell_of(row) {
            Ok(cell) => {
                let c = &mut self.summary.cells[cell];
                let known = row.outcome_key.and_then(|k| self.outcomes.iter().find(|o| o.0 == cell && o.1 == k));
                match (known, row.outcome_key) {
                    (Some(&(_, _, index)), _) => c.add_known(row.seed, row.team_reward, row.length, index),
                    (None, key) => {
                        c.add(row.seed, row.team_reward, row.length, row.outcome);
                        if let Some(k) = key {
                            let index = c.outcomes.get_index_of(row.outcome).expect("just counted");
                            self.outcomes.push((cell, k, index));
                        }
                    }
                }
                c.place.earliest(crate::cell_order::Place::of_job(row.job));
                if let Some(t) = llm_tokens(row.llm) {
                    c.llm_episodes += 1;
                    c.tokens += t;
                }
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn merge(&mut self, later: SummaryScan) {
        // The keys of `later`'s rows need not be this accumulator's.
        self.last = None;
        self.outcomes.clear();
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.summary.merge(&later.summary) {
            self.error = Some(e);
            return;
        }
        self.error = later.error;
    }
}
