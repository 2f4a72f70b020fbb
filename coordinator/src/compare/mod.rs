//! Paired comparisons under common random numbers (`coordinator compare`, and the forest plot
//! of `report`): every policy set of a cell plays the same seeds, so per (game, scenario) each
//! policy set is compared with a baseline seed by seed. The paired difference of team reward
//! and of the win indicator, with 95% intervals, the unpaired interval the same episodes would
//! give, and a paired t-test whose p-values are Holm-corrected across every comparison shown.
//!
//! Pairing needs per-seed values: the records, or the moments of the per-seed differences that
//! paired summary jobs collect; aggregates alone (means and variances per cell) cannot give the
//! variance of a difference, which depends on how the two teams' results covary seed by seed.
//!
//! # Layout
//!
//! - [`stats`]: the t and normal distributions, Holm's correction.
//! - [`paired`]: one paired difference and its unpaired counterpart.
//! - `pairs` (test code): per-seed values of every cell, read from a results file of any format
//!   row at a time, and the comparisons of them: the reference of the equality tests.
//! - [`pairing`]: the same comparisons from two parallel reads, keeping per seed only the
//!   baseline's values and one bit per cell (`seeds`): what `compare` and `report` use.
//! - [`summaries`]: the same comparisons from a summary file's paired differences.
//! - [`table`]: the terminal table and the CSV / JSON export.
//! - [`decided`]: a stopping sweep's decisions of the comparisons it asked.

pub mod decided;
pub mod paired;
pub mod pairing;
#[cfg(test)]
pub mod pairs;
mod seeds;
pub mod stats;
pub mod summaries;
pub mod table;

#[cfg(test)]
mod pairing_tests;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use paired::Paired;

/// One policy set against the baseline in one (game, scenario).
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Game id.
    pub game: String,
    /// Scenario spec.
    pub scenario: String,
    /// The policy set compared.
    pub policy_set: String,
    /// The baseline policy set.
    pub baseline: String,
    /// Seeds only one of the two cells has: left out of the pairs.
    pub left_out: u64,
    /// Team reward, policy set − baseline.
    pub reward: Paired,
    /// Win indicator (1 when the outcome is the game's win), policy set − baseline; `None` for
    /// a game without a win outcome.
    pub win: Option<Paired>,
    /// The team-reward p-value after Holm's correction across every comparison of the run.
    pub p_holm: f64,
}

/// Every comparison of a results file against one baseline.
#[derive(Clone, Debug)]
pub struct Comparisons {
    /// The baseline policy set.
    pub baseline: String,
    /// In (game, scenario) order, then policy-set order, as first seen in the file.
    pub rows: Vec<Comparison>,
    /// (game, scenario) groups without the baseline: nothing compared there.
    pub without_baseline: Vec<(String, String)>,
    /// (game, scenario, policy set) of a summary file whose jobs did not play the baseline's
    /// seeds with it (another `[[cells]]` entry, or `llm` seats): no paired difference.
    pub not_paired: Vec<(String, String, String)>,
}

/// Sets every row's `p_holm`: its team-reward p-value after Holm's correction across `rows`.
pub(crate) fn adjust_holm(rows: &mut [Comparison]) {
    let p: Vec<f64> = rows.iter().map(|r| r.reward.p).collect();
    for (row, adjusted) in rows.iter_mut().zip(stats::holm(&p)) {
        row.p_holm = adjusted;
    }
}

/// Errors of `compare`.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The file could not be read.
    #[error(transparent)]
    Import(#[from] crate::records::ImportError),
    /// Results of different rules.
    #[error(transparent)]
    Mixed(#[from] crate::summary::MixedVersions),
    /// No episode records at all.
    #[error("{0} holds no episode records: compare pairs episodes seed by seed, so it needs per-seed records")]
    NoRecords(String),
    /// A summary file without paired differences.
    #[error(
        "the summary file holds no paired differences: none of its cells shares its seeds with another of the \
         same [[cells]] entry and scenario in it (each set alone there, `llm` seats, which are never paired, or \
         rows rebuilt by `summary --out` without `--sweep`); compare the records-mode run, or rebuild the file \
         from it with `coordinator summary RECORDS --out CELLS --sweep SWEEP`"
    )]
    NotPaired,
    /// Summary rows that cannot be merged.
    #[error("cannot merge the summary rows of one cell: {0}")]
    Cells(String),
    /// The named baseline is not a policy set of the file.
    #[error("no policy set named {name:?} in the results; they are: {known}")]
    UnknownBaseline {
        /// The name asked for.
        name: String,
        /// The policy sets present, comma-separated.
        known: String,
    },
}
