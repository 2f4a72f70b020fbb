//! `coordinator report FILE... --out report.html`: one self-contained HTML page (inline CSS and
//! SVG, no scripts, no network) that opens with the answer (per game a heatmap of scenario ×
//! policy set and a forest plot of paired differences against a baseline), then the summary table, outcome shares per policy set with 95%
//! intervals, per-cell histograms of team reward and episode length, and the ranking when the
//! records come from a ranking sweep (or `--sweep` gives the teams).
//!
//! A records file is read twice, by the parallel results reader ([`reads`]), each block's
//! episodes taken in file order and dropped: first the summary, each (game, scenario)'s ranges
//! (the histograms' bins, shared by every policy set of a scenario, need them first) and the
//! baseline's values per seed; then the histograms, the ranking and the paired comparisons.
//! Memory holds per-cell figures, the baseline's values and a bit per episode, not the
//! episodes. The former row-at-a-time path (three reads) is the reference of the equality tests
//! (`reads_tests.rs`).
//!
//! # Layout
//!
//! - [`glance`]: the first section, "At a glance": [`heatmap`] and [`forest`] per game.
//! - [`histogram`]: bins and counts.
//! - [`svg`]: the charts.
//! - [`html`]: the page and its sections.
//! - [`reads`]: the two reads.
//! - [`stop_decisions`]: a stopping sweep's decisions (its `<stem>.stop.json`), after "At a glance".

pub mod forest;
pub mod glance;
pub mod heatmap;
pub mod histogram;
pub mod html;
pub mod reads;
pub mod stop_decisions;
pub mod svg;

#[cfg(test)]
pub(crate) mod reads_tests;
#[cfg(test)]
mod tests;

use std::path::Path;

use anyhow::Context;
use indexmap::{IndexMap, IndexSet};

use crate::compare::decided::Decided;
use crate::compare::pairing::Baselines;
use crate::compare::{CompareError, Comparisons};
use crate::rank::{Fit, Membership, Ranker, DEFAULT_RIDGE};
use crate::records::scan::{self as parallel, Episodes, Need};
use crate::records::summary_file::CellRow;
use crate::records::Input;
use crate::stop::decisions::Decisions;
use crate::summary::Summary;
use crate::sweep::Sweep;
use histogram::{Bins, Histogram, Range, LENGTH_BINS, REWARD_BINS};

/// (game, scenario, policy set).
pub type CellKey = (String, String, String);

/// The team reward and episode length histograms of one cell.
#[derive(Clone, Debug)]
pub struct CellHistograms {
    /// Team reward.
    pub reward: Histogram,
    /// Episode length.
    pub length: Histogram,
}

/// Everything the page shows.
#[derive(Debug)]
pub struct Collected {
    /// The results files, as given on the command line.
    pub file: String,
    /// Sweep ids in the file.
    pub sweeps: IndexSet<String>,
    /// Engine version per game.
    pub versions: IndexMap<String, String>,
    /// The summary table.
    pub summary: Summary,
    /// Histograms per cell, in summary order.
    pub histograms: IndexMap<CellKey, CellHistograms>,
    /// The ranking of each game whose policy sets are teams.
    pub ranking: Vec<Fit>,
    /// Episodes per policy set left out of the ranking (members unknown).
    pub skipped: IndexMap<String, u64>,
}

/// What `report` wrote.
#[derive(Debug)]
pub struct Written {
    /// Cells charted.
    pub cells: usize,
    /// Episodes read.
    pub episodes: u64,
    /// Games ranked.
    pub ranked: usize,
}

/// Gathers the page's contents from a summary file's rows: the table and the ranking from the
/// cells' aggregates, the histograms from their bucket counts.
fn collect_cell_rows(input: &Input, rows: &[CellRow], membership: Membership) -> anyhow::Result<Collected> {
    let summary = crate::collector::cell_merge::summary_of(rows)?;
    let mut ranker = Ranker::new(membership);
    let (mut sweeps, mut versions) = (IndexSet::new(), IndexMap::new());
    let mut histograms = IndexMap::new();
    for row in rows {
        sweeps.insert(row.sweep.clone());
        versions.entry(row.game.clone()).or_insert_with(|| row.engine_version.clone());
        ranker.add_cell(row);
        let (a, h) = (&row.aggregate, &row.aggregate.histograms);
        let hist = CellHistograms {
            reward: Histogram::from_buckets(&h.team_reward, a.team_reward.min, a.team_reward.max),
            length: Histogram::from_buckets(&h.length, a.length.min, a.length.max),
        };
        histograms.insert((row.game.clone(), row.scenario.clone(), row.policy_set.clone()), hist);
    }
    let ranking = ranker.fit(DEFAULT_RIDGE).map_err(anyhow::Error::msg)?;
    let skipped = ranker.skipped;
    Ok(Collected { file: input.to_string(), sweeps, versions, summary, histograms, ranking, skipped })
}

/// Reads `input` twice in parallel ([`reads`]) and gathers the page's contents, and the paired
/// comparisons (`None` for a summary file, or a records file without episodes).
fn gather(
    input: &Input,
    membership: Membership,
    baseline: Option<&str>,
    block: usize,
) -> anyhow::Result<(Collected, Option<Comparisons>)> {
    if input.is_cells() {
        let rows = input.read_cells()?;
        // The forest plots need paired differences: summary files written before paired
        // summary jobs (or of cells never paired) have none, and the page goes without.
        let comparisons = match crate::compare::summaries::compare_rows(&rows, baseline) {
            Ok(c) => Some(c),
            Err(CompareError::NotPaired) => None,
            Err(e) => return Err(e.into()),
        };
        return Ok((collect_cell_rows(input, &rows, membership)?, comparisons));
    }
    let threads = parallel::threads();
    let need = Need { sweep: true, llm: true, whole: false };
    let mut first = reads::FirstRead::new(baseline);
    parallel::scan_each(input, need, threads, block, |b: reads::FirstBlock| first.take(b))
        .with_context(|| format!("cannot read {input}"))?;
    let (summary, ranges, mut baselines) = first.finish()?;
    if let Some(default) = baselines.as_ref().and_then(Baselines::default_to_read_again) {
        // The forest plots' default baseline is the sweep's first policy set: read its values.
        let mut again = Baselines::new(Some(&default));
        let need = Need { sweep: true, llm: false, whole: false };
        parallel::scan_each(input, need, threads, block, |b: Episodes| again.take(&b))
            .with_context(|| format!("cannot read {input}"))?;
        baselines = Some(again);
    }
    let mut ranker = Ranker::new(membership);
    let mut second = reads::SecondRead::new(&mut ranker, empty_histograms(&summary, &ranges), baselines)?;
    let need = Need { sweep: true, llm: false, whole: false };
    let cut = parallel::scan_each(input, need, threads, block, |b| second.take(b))
        .with_context(|| format!("cannot read {input} again"))?;
    Input::warn_partial(&cut);
    let reads::Gathered { summary, sweeps, versions, histograms, pairing } = second.finish(summary);
    let ranking = ranker.fit(DEFAULT_RIDGE).map_err(anyhow::Error::msg)?;
    let skipped = ranker.skipped;
    let collected = Collected { file: input.to_string(), sweeps, versions, summary, histograms, ranking, skipped };
    Ok((collected, pairing.map(|p| p.comparisons())))
}

/// Reads `input` and gathers the page's contents.
pub fn collect(input: &Input, membership: Membership) -> anyhow::Result<Collected> {
    Ok(gather(input, membership, None, parallel::BLOCK)?.0)
}

/// The page of `input` and what it shows, from one parallel read; `baseline` is the policy set
/// of the forest plots (default `random` if there is one, else the sweep's first policy set).
pub fn render(input: &Input, membership: Membership, baseline: Option<&str>) -> anyhow::Result<(String, Written)> {
    render_blocks(input, membership, baseline, None, parallel::BLOCK)
}

/// [`render`] with the line formats read in blocks of `block` bytes.
fn render_blocks(
    input: &Input,
    membership: Membership,
    baseline: Option<&str>,
    decisions: Option<&Decisions>,
    block: usize,
) -> anyhow::Result<(String, Written)> {
    let (collected, comparisons) = gather(input, membership, baseline, block)?;
    let mut lead = match comparisons {
        None if input.is_cells() => glance::section_without_pairs(&collected.summary),
        None => return Err(CompareError::NoRecords(input.to_string()).into()),
        Some(comparisons) => {
            let decided = decisions.map(|d| Decided::of(&comparisons, d));
            glance::section_decided(&collected.summary, &comparisons, decided.as_ref())
        }
    };
    if let Some(d) = decisions {
        lead.push_str(&stop_decisions::section(d));
    }
    let written = Written {
        cells: collected.histograms.len(),
        episodes: collected.summary.episodes(),
        ranked: collected.ranking.len(),
    };
    Ok((html::page(&collected, &lead), written))
}

/// `coordinator report FILE... --out OUT [--sweep SWEEP] [--baseline NAME]`: `baseline` is the
/// policy set of the forest plots (default a stopping sweep's baseline, else `random` if there
/// is one, else the sweep's first policy set); `decisions`, a stopping sweep's.
pub fn report(
    input: &Input,
    sweep: Option<&Path>,
    baseline: Option<&str>,
    decisions: Option<&Decisions>,
    out: &Path,
) -> anyhow::Result<Written> {
    let membership = match sweep {
        Some(path) => Membership::from_sweep(&Sweep::load(path)?),
        None => Membership::default(),
    };
    let baseline = baseline.or_else(|| decisions.and_then(Decisions::baseline));
    let (page, written) = render_blocks(input, membership, baseline, decisions, parallel::BLOCK)?;
    std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(written)
}

/// Every cell's histograms, empty, over its (game, scenario)'s reward and length ranges: the
/// bins both reading paths fill.
pub(crate) fn empty_histograms(
    summary: &Summary,
    ranges: &IndexMap<(String, String), (Range, Range)>,
) -> IndexMap<CellKey, CellHistograms> {
    let mut histograms = IndexMap::new();
    for key in summary.cells.keys() {
        let (reward, length) = ranges[&(key.0.clone(), key.1.clone())];
        let hist = CellHistograms {
            reward: Histogram::new(Bins::real(reward.min, reward.max, REWARD_BINS)),
            length: Histogram::new(Bins::integer(length.min as u32, length.max as u32, LENGTH_BINS)),
        };
        histograms.insert(key.clone(), hist);
    }
    histograms
}
