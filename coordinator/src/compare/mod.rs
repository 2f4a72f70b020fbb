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
//! - [`pairs`]: per-seed values of every cell, read from a results file of any format, row at
//!   a time (the reference of the equality tests).
//! - [`pairing`]: the same comparisons from two parallel reads, keeping per seed only the
//!   baseline's values and one bit per cell: what `compare` and `report` use.
//! - [`cells`]: the same comparisons from a summary file's paired differences.
//! - [`table`]: the terminal table and the CSV / JSON export.

pub mod cells;
pub mod paired;
pub mod pairing;
pub mod pairs;
pub mod stats;
pub mod table;

#[cfg(test)]
mod pairing_tests;
#[cfg(test)]
mod tests;

use crate::records::Input;

use serde::Serialize;

pub use paired::Paired;
pub use pairs::{CellSeeds, Pairs};

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
        "the summary file holds no paired differences: its cells were not played as paired summary jobs (written \
         before paired summaries, or every cell alone: cells with `llm` seats are never paired); compare a \
         records-mode run, or play the sweep again with this version"
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

/// The default baseline: a policy set named `random` if there is one, else the first seen.
pub fn default_baseline(pairs: &Pairs) -> Option<String> {
    let names = pairs.policy_sets();
    names.iter().find(|n| *n == "random").or_else(|| names.first()).cloned()
}

/// Compares every policy set with `baseline` (or [`default_baseline`]) in each (game,
/// scenario) of `pairs`.
pub fn compare(pairs: &Pairs, baseline: Option<&str>) -> Result<Comparisons, CompareError> {
    let names = pairs.policy_sets();
    let baseline = match baseline {
        Some(b) if names.iter().any(|n| n == b) => b.to_string(),
        Some(b) => return Err(CompareError::UnknownBaseline { name: b.to_string(), known: names.join(", ") }),
        None => default_baseline(pairs).ok_or_else(|| CompareError::NoRecords("the results".into()))?,
    };
    let mut rows = Vec::new();
    let mut without_baseline = Vec::new();
    for ((game, scenario), cells) in &pairs.groups {
        let Some(base) = cells.get(&baseline) else {
            without_baseline.push((game.clone(), scenario.clone()));
            continue;
        };
        for (name, cell) in cells {
            if *name == baseline {
                continue;
            }
            let shared: Vec<(&crate::compare::pairs::Episode, &crate::compare::pairs::Episode)> =
                base.seeds.iter().filter_map(|(seed, b)| cell.seeds.get(seed).map(|o| (b, o))).collect();
            let left_out = (base.seeds.len() + cell.seeds.len() - 2 * shared.len()) as u64;
            let reward = Paired::of(shared.iter().map(|(b, o)| (b.reward, o.reward)));
            let win = pairs.has_win(game).then(|| {
                Paired::of(shared.iter().map(|(b, o)| (f64::from(u8::from(b.win)), f64::from(u8::from(o.win)))))
            });
            rows.push(Comparison {
                game: game.clone(),
                scenario: scenario.clone(),
                policy_set: name.clone(),
                baseline: baseline.clone(),
                left_out,
                reward,
                win,
                p_holm: f64::NAN,
            });
        }
    }
    let p: Vec<f64> = rows.iter().map(|r| r.reward.p).collect();
    for (row, adjusted) in rows.iter_mut().zip(stats::holm(&p)) {
        row.p_holm = adjusted;
    }
    Ok(Comparisons { baseline, rows, without_baseline, not_paired: Vec::new() })
}

/// Reads `input` (files of any format) and compares against `baseline`.
pub fn compare_file(input: &Input, baseline: Option<&str>) -> Result<(Pairs, Comparisons), CompareError> {
    // A summary file (one row per cell) has no seeds to pair.
    if input.is_cells() {
        return Err(CompareError::NoRecords(input.to_string()));
    }
    let pairs = Pairs::read(input)?;
    if pairs.episodes == 0 {
        return Err(CompareError::NoRecords(input.to_string()));
    }
    let comparisons = compare(&pairs, baseline)?;
    Ok((pairs, comparisons))
}
