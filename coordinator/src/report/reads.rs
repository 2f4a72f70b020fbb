//! What `report` needs of a records file, in two reads by the parallel results reader
//! ([`crate::records::scan::scan_each`]), each block's episodes taken in file order and dropped,
//! so memory does not grow with the episodes:
//!
//! 1. [`FirstRead`]: the summary (accumulated per block, [`SummaryScan`]), each (game,
//!    scenario)'s reward and length ranges (the histograms' bins, shared by every policy set of
//!    a scenario, need them first), and the candidate baselines' values per seed
//!    ([`Baselines`]).
//! 2. [`SecondRead`]: the histograms, the ranking's model ([`Ranker`], fed the episodes in file
//!    order exactly as row at a time) and the paired comparisons ([`Pairing`]).

use indexmap::{IndexMap, IndexSet};

use super::histogram::Range;
use super::{CellHistograms, CellKey};
use crate::compare::pairing::{Baselines, Pairing};
use crate::compare::CompareError;
use crate::rank::Ranker;
use crate::records::scan::{Accumulate, Episodes, ScanRow};
use crate::summary::{MixedVersions, Summary, SummaryScan};

/// Each (game, scenario)'s reward and length ranges.
pub type Ranges = IndexMap<(String, String), (Range, Range)>;

/// A block of the first read: its summary and its episodes.
#[derive(Debug, Default)]
pub struct FirstBlock {
    summary: SummaryScan,
    episodes: Episodes,
}

impl Accumulate for FirstBlock {
    fn add(&mut self, row: &ScanRow<'_>) {
        self.summary.add(row);
        self.episodes.add(row);
    }

    fn merge(&mut self, later: FirstBlock) {
        self.summary.merge(later.summary);
        self.episodes.merge(later.episodes);
    }
}

/// The first read, block after block.
#[derive(Debug)]
pub struct FirstRead {
    summary: SummaryScan,
    ranges: Ranges,
    baselines: Baselines,
}

impl FirstRead {
    /// A first read for the forest plots' baseline `baseline` (default: the default baseline).
    pub fn new(baseline: Option<&str>) -> FirstRead {
        FirstRead { summary: SummaryScan::default(), ranges: IndexMap::new(), baselines: Baselines::new(baseline) }
    }

    /// Takes the next block.
    pub fn take(&mut self, block: FirstBlock) {
        self.summary.merge(block.summary);
        let episodes = &block.episodes;
        episodes.for_each_run(|_, head, run| {
            let key = (head.game.clone(), head.scenario.clone());
            let (reward, length) = self.ranges.entry(key).or_default();
            for e in run {
                reward.add(e.reward);
                length.add(f64::from(e.length));
            }
        });
        self.baselines.take(episodes);
    }

    /// The summary, the ranges, and the baselines (`None` when no episode was read).
    pub fn finish(self) -> Result<(Summary, Ranges, Option<Baselines>), MixedVersions> {
        let summary = self.summary.finish()?;
        let baselines = (!self.baselines.is_empty()).then_some(self.baselines);
        Ok((summary, self.ranges, baselines))
    }
}

/// The second read, block after block.
pub struct SecondRead<'r> {
    ranker: &'r mut Ranker,
    histograms: IndexMap<CellKey, CellHistograms>,
    pairing: Option<Pairing>,
    sweeps: IndexSet<String>,
    versions: IndexMap<String, String>,
}

/// What the two reads gathered for the page.
pub struct Gathered {
    /// The summary table.
    pub summary: Summary,
    /// Sweep ids, first seen first.
    pub sweeps: IndexSet<String>,
    /// Engine version per game, first seen first.
    pub versions: IndexMap<String, String>,
    /// Histograms per cell, in summary order.
    pub histograms: IndexMap<CellKey, CellHistograms>,
    /// The paired comparisons (`None` when no episode was read).
    pub pairing: Option<Pairing>,
}

impl<'r> SecondRead<'r> {
    /// The second read, into `ranker`, the empty `histograms` and the first read's baselines.
    pub fn new(
        ranker: &'r mut Ranker,
        histograms: IndexMap<CellKey, CellHistograms>,
        baselines: Option<Baselines>,
    ) -> Result<SecondRead<'r>, CompareError> {
        let pairing = baselines.map(Baselines::into_pairing).transpose()?;
        Ok(SecondRead { ranker, histograms, pairing, sweeps: IndexSet::new(), versions: IndexMap::new() })
    }

    /// Takes the next block.
    pub fn take(&mut self, block: Episodes) {
        block.for_each_run(|_, head, run| {
            if !self.sweeps.contains(&head.sweep) {
                self.sweeps.insert(head.sweep.clone());
            }
            if !self.versions.contains_key(&head.game) {
                self.versions.insert(head.game.clone(), head.engine_version.clone());
            }
            self.ranker.add_run(head, run.iter().map(|e| (e.seed, e.reward)));
            let key = (head.game.clone(), head.scenario.clone(), head.policy_set.clone());
            if let Some(h) = self.histograms.get_mut(&key) {
                for e in run {
                    h.reward.add(e.reward);
                    h.length.add(f64::from(e.length));
                }
            }
        });
        if let Some(p) = &mut self.pairing {
            p.take(&block);
        }
    }

    /// What the page needs.
    pub fn finish(self, summary: Summary) -> Gathered {
        let SecondRead { histograms, pairing, sweeps, versions, .. } = self;
        Gathered { summary, sweeps, versions, histograms, pairing }
    }
}
