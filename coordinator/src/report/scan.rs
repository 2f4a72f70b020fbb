//! [`ReportScan`]: what `report` needs of a records file, as an accumulator of the parallel
//! results reader ([`crate::records::scan`]), so the file is read once.
//!
//! The summary is accumulated per block ([`SummaryScan`]). The ranking's model and the paired
//! comparisons are not mergeable (their sums run in the order the rows came), so the blocks
//! also keep their episodes compactly ([`Episodes`]), and [`ReportScan::finish`] replays them,
//! in file order, into the same [`Ranker`] (on a thread of its own) and [`Pairs`] the
//! row-at-a-time path fills, and into the histograms, whose ranges come from a first pass over
//! those episodes in memory. The page is then the row-at-a-time one to the byte.

use std::collections::btree_map::Entry;

use indexmap::{IndexMap, IndexSet};
use simfleet::GameKind;

use super::histogram::Range;
use super::{CellHistograms, CellKey};
use crate::compare::pairs::Episode as Paired;
use crate::compare::Pairs;
use crate::rank::Ranker;
use crate::records::scan::{Accumulate, Episodes, ScanRow};
use crate::summary::{MixedVersions, Summary, SummaryScan};

/// The report's accumulator: one per block of rows, merged in file order.
#[derive(Debug, Default)]
pub struct ReportScan {
    summary: SummaryScan,
    episodes: Episodes,
}

/// What the page needs, gathered from one read.
#[derive(Debug)]
pub struct Gathered {
    /// The summary table.
    pub summary: Summary,
    /// Sweep ids, first seen first.
    pub sweeps: IndexSet<String>,
    /// Engine version per game, first seen first.
    pub versions: IndexMap<String, String>,
    /// Histograms per cell, in summary order.
    pub histograms: IndexMap<CellKey, CellHistograms>,
    /// The paired comparisons' episodes.
    pub pairs: Pairs,
}

impl ReportScan {
    /// Replays the episodes into `ranker` and the pairs, in file order; the summary, sweeps,
    /// versions and histograms as the row-at-a-time path gathers them.
    pub fn finish(self, ranker: &mut Ranker) -> Result<Gathered, MixedVersions> {
        let summary = self.summary.finish()?;
        let episodes = &self.episodes;
        let (pairs, sweeps, versions, ranges) = std::thread::scope(|s| {
            s.spawn(|| {
                episodes.for_each_run(|_, head, run| ranker.add_run(head, run.iter().map(|e| (e.seed, e.reward))));
            });
            pairs_and_ranges(episodes)
        })?;
        let mut histograms = super::empty_histograms(&summary, &ranges);
        // The groups' cells, looked up once per group rather than per episode.
        let cells: Vec<Option<usize>> = episodes
            .groups()
            .iter()
            .map(|(_, game, _, sc, ps)| histograms.get_index_of(&(game.clone(), sc.clone(), ps.clone())))
            .collect();
        episodes.for_each_run(|g, _, run| {
            if let Some(c) = cells[g] {
                let h = &mut histograms[c];
                for e in run {
                    h.reward.add(e.reward);
                    h.length.add(f64::from(e.length));
                }
            }
        });
        Ok(Gathered { summary, sweeps, versions, histograms, pairs })
    }
}

type Ranges = IndexMap<(String, String), (Range, Range)>;

/// What [`pairs_and_ranges`] gathers.
type Replayed = (Pairs, IndexSet<String>, IndexMap<String, String>, Ranges);

/// The pairs (as [`Pairs::add`] of each episode would make them: the first episode of a run
/// through it, the others straight into its cell), the sweeps and versions first seen, and
/// each (game, scenario)'s ranges.
fn pairs_and_ranges(episodes: &Episodes) -> Result<Replayed, MixedVersions> {
    let mut pairs = Pairs::default();
    let (mut sweeps, mut versions) = (IndexSet::new(), IndexMap::new());
    let mut ranges: Ranges = IndexMap::new();
    let mut wins: IndexMap<String, Option<&'static str>> = IndexMap::new();
    let mut failed = None;
    episodes.for_each_run(|_, head, run| {
        if failed.is_some() {
            return;
        }
        if !sweeps.contains(&head.sweep) {
            sweeps.insert(head.sweep.clone());
        }
        if !versions.contains_key(&head.game) {
            versions.insert(head.game.clone(), head.engine_version.clone());
        }
        let win = *wins
            .entry(head.game.clone())
            .or_insert_with(|| head.game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome));
        let key = (head.game.clone(), head.scenario.clone());
        let (reward, length) = ranges.entry(key.clone()).or_default();
        for e in run {
            reward.add(e.reward);
            length.add(f64::from(e.length));
        }
        if let Err(e) = pairs.add(head) {
            failed = Some(e);
            return;
        }
        let cell = pairs.groups.get_mut(&key).and_then(|g| g.get_mut(&head.policy_set)).expect("just added");
        for e in &run[1..] {
            let episode = Paired { reward: e.reward, win: win == Some(episodes.outcome(e.outcome)) };
            pairs.episodes += 1;
            match cell.seeds.entry(e.seed) {
                Entry::Vacant(v) => {
                    v.insert(episode);
                }
                Entry::Occupied(_) => pairs.duplicates += 1,
            }
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok((pairs, sweeps, versions, ranges)),
    }
}

impl Accumulate for ReportScan {
    fn add(&mut self, row: &ScanRow<'_>) {
        self.summary.add(row);
        self.episodes.add(row);
    }

    fn merge(&mut self, later: ReportScan) {
        self.summary.merge(later.summary);
        self.episodes.merge(later.episodes);
    }
}
