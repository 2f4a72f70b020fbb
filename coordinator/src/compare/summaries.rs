//! Paired comparisons of summary files: what [`super::pairing`] computes from per-seed records,
//! from the moments of the per-seed differences that paired summary jobs carry
//! ([`crate::records::summary_file::CellDifference`]) and the cells' own aggregates.
//!
//! A paired summary job plays every policy set of one (game, scenario) of a `[[cells]]` entry on
//! the same seeds and sums, per pair of sets, the difference seed by seed; the coordinator merges
//! those sums over the jobs in job order. The comparison of a policy set with the baseline is then
//! the same statistic as records give: the mean difference and its t interval from the merged
//! moments, the unpaired (Welch) interval from the two cells' variances, the paired t-test. The
//! numbers equal the records file's to rounding (the moments are merged job by job instead of
//! summed seed by seed).
//!
//! The two sides' variances are those of each cell's episodes; records use the seeds both played.
//! They are the same seeds unless a cell has seeds the other lacks (`left out`), which paired
//! jobs never give: a job that fails loses its seeds for every set of the job.

use indexmap::IndexMap;
use simfleet::aggregate::{CellAggregate, Moments};
use simfleet::GameKind;

use super::paired::Paired;
use super::{CompareError, Comparison, Comparisons};
use crate::records::summary_file::{merge_differences, CellDifference, CellRow};
use crate::summary::MixedVersions;

/// One cell of the files, its rows merged in file order.
struct Merged {
    aggregate: CellAggregate,
    paired: Vec<CellDifference>,
}

/// The cells of a (game, scenario), by policy set, in the order first seen.
type Group = IndexMap<String, Merged>;

/// Compares every policy set with `baseline` (default: `random` if there is one, else the first
/// policy set) in each (game, scenario) of the summary rows `rows` (several files' rows of one
/// cell are merged in order). A policy set whose jobs did not play the baseline's seeds with it
/// (another `[[cells]]` entry, or a cell with `llm` seats, which is never paired) is listed in
/// [`Comparisons::not_paired`].
pub fn compare_rows(rows: &[CellRow], baseline: Option<&str>) -> Result<Comparisons, CompareError> {
    let mut groups: IndexMap<(String, String), Group> = IndexMap::new();
    let mut versions: IndexMap<&str, &str> = IndexMap::new();
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        let first = *versions.entry(&row.game).or_insert(&row.engine_version);
        if first != row.engine_version {
            let (game, first, other) = (row.game.clone(), first.to_string(), row.engine_version.clone());
            return Err(MixedVersions { game, first, other }.into());
        }
        if !names.contains(&row.policy_set.as_str()) {
            names.push(&row.policy_set);
        }
        let group = groups.entry((row.game.clone(), row.scenario.clone())).or_default();
        match group.get_mut(&row.policy_set) {
            Some(m) => {
                m.aggregate.merge(&row.aggregate).map_err(|e| CompareError::Cells(e.to_string()))?;
                merge_differences(&mut m.paired, &row.paired);
            }
            None => {
                let merged = Merged { aggregate: row.aggregate.clone(), paired: row.paired.clone() };
                group.insert(row.policy_set.clone(), merged);
            }
        }
    }
    if rows.iter().all(|r| r.paired.is_empty()) {
        return Err(CompareError::NotPaired);
    }
    let baseline = match baseline {
        Some(b) if names.contains(&b) => b.to_string(),
        Some(b) => return Err(CompareError::UnknownBaseline { name: b.to_string(), known: names.join(", ") }),
        None => names.iter().find(|n| **n == "random").or(names.first()).map(|n| n.to_string()).unwrap_or_default(),
    };
    let mut out = Comparisons {
        baseline: baseline.clone(),
        rows: Vec::new(),
        without_baseline: Vec::new(),
        not_paired: Vec::new(),
    };
    for ((game, scenario), cells) in &groups {
        let Some(base) = cells.get(&baseline) else {
            out.without_baseline.push((game.clone(), scenario.clone()));
            continue;
        };
        let win = game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome);
        for (name, cell) in cells.iter().filter(|(name, _)| **name != baseline) {
            let Some((reward, win_diff)) = difference(cell, base, name, &baseline) else {
                out.not_paired.push((game.clone(), scenario.clone(), name.clone()));
                continue;
            };
            let n = reward.count;
            let left_out = cell.aggregate.episodes + base.aggregate.episodes - 2 * n;
            let (tb, to) = (&base.aggregate.team_reward, &cell.aggregate.team_reward);
            let reward = Paired::of_moments(n as f64, reward.mean, reward.variance(), tb.variance(), to.variance());
            let win = win.map(|w| {
                let d = win_diff.unwrap_or_default();
                let (vb, vo) = (win_variance(&base.aggregate, w), win_variance(&cell.aggregate, w));
                Paired::of_moments(d.count as f64, d.mean, d.variance(), vb, vo)
            });
            out.rows.push(Comparison {
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
    super::adjust_holm(&mut out.rows);
    Ok(out)
}

/// The moments of `cell` minus `base` (team reward, win), from whichever of the two carries their
/// difference: the earlier set of a job carries it, so the other way round it is negated.
fn difference(cell: &Merged, base: &Merged, name: &str, baseline: &str) -> Option<(Moments, Option<Moments>)> {
    if let Some(d) = cell.paired.iter().find(|d| d.against == baseline) {
        return Some((d.team_reward.clone(), d.win.clone()));
    }
    let d = base.paired.iter().find(|d| d.against == name)?;
    Some((negated(&d.team_reward), d.win.as_ref().map(negated)))
}

/// The moments of the negated values (exact: negation is exact in floating point). `0.0 - x`
/// rather than `-x`, so that a zero stays +0.0 as the records' sums give it (not "-0.0 pp").
fn negated(m: &Moments) -> Moments {
    Moments {
        count: m.count,
        mean: 0.0 - m.mean,
        m2: m.m2,
        min: 0.0 - m.max,
        min_seed: m.max_seed,
        max: 0.0 - m.min,
        max_seed: m.min_seed,
    }
}

/// The sample variance of a cell's win indicator (1 for the outcome `win`, else 0).
fn win_variance(a: &CellAggregate, win: &str) -> f64 {
    let (k, n) = (a.outcome(win) as f64, a.episodes as f64);
    if n < 2.0 {
        return f64::NAN;
    }
    k * (n - k) / n / (n - 1.0)
}
