//! [`ReportScan`]: what `report` needs of a records file, as an accumulator of the parallel
//! results reader ([`crate::records::scan`]), so the file is read once.
//!
//! The summary is accumulated per block ([`SummaryScan`]). The ranking's model and the paired
//! comparisons are not mergeable (their sums run in the order the rows came), so each block also
//! keeps its episodes compactly — 24 bytes each: the index of its (sweep, game, engine version,
//! scenario, policy set), its outcome's index, seed, length and team reward — and [`finish`]
//! replays them, in file order, into the same [`Ranker`] and [`Pairs`] the row-at-a-time path
//! fills, and into the histograms, whose ranges come from a first pass over those episodes in
//! memory. The page is then the row-at-a-time one to the byte. Memory grows with episodes (as
//! the paired comparisons' seeds already did), not with the file's size.
//!
//! [`finish`]: ReportScan::finish

use indexmap::{IndexMap, IndexSet};
use simfleet::protocol::StatsMap;

use super::histogram::{Bins, Histogram, Range, LENGTH_BINS, REWARD_BINS};
use super::{CellHistograms, CellKey};
use crate::compare::Pairs;
use crate::rank::Ranker;
use crate::records::scan::{Accumulate, ScanRow};
use crate::records::Row;
use crate::summary::{MixedVersions, Summary, SummaryScan};

/// (sweep, game, engine version, scenario, policy set).
type Group = (String, String, String, String, String);

/// A borrowed [`Group`]: hashes like the owned tuple.
#[derive(Hash)]
struct GroupRef<'a>(&'a str, &'a str, &'a str, &'a str, &'a str);

impl indexmap::Equivalent<Group> for GroupRef<'_> {
    fn equivalent(&self, g: &Group) -> bool {
        self.0 == g.0 && self.1 == g.1 && self.2 == g.2 && self.3 == g.3 && self.4 == g.4
    }
}

/// One episode, its strings by index into the accumulator's groups and outcomes.
#[derive(Clone, Copy, Debug)]
struct Episode {
    group: u32,
    outcome: u32,
    length: u32,
    seed: u64,
    reward: f64,
}

/// The report's accumulator: one per block of rows, merged in file order.
#[derive(Debug, Default)]
pub struct ReportScan {
    summary: SummaryScan,
    groups: IndexSet<Group>,
    outcomes: Vec<String>,
    episodes: Vec<Episode>,
    /// The previous row's group: consecutive rows are mostly of one.
    last: Option<u32>,
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
    fn group_of(&mut self, row: &ScanRow<'_>) -> u32 {
        if let Some(g) = self.last {
            let (s, game, v, sc, ps) = &self.groups[g as usize];
            if s == row.sweep
                && game == row.game
                && sc == row.scenario
                && ps == row.policy_set
                && v == row.engine_version
            {
                return g;
            }
        }
        let key = GroupRef(row.sweep, row.game, row.engine_version, row.scenario, row.policy_set);
        let g = match self.groups.get_index_of(&key) {
            Some(g) => g,
            None => self.groups.insert_full((key.0.into(), key.1.into(), key.2.into(), key.3.into(), key.4.into())).0,
        } as u32;
        self.last = Some(g);
        g
    }

    fn outcome_of(outcomes: &mut Vec<String>, outcome: &str) -> u32 {
        match outcomes.iter().position(|o| o == outcome) {
            Some(i) => i as u32,
            None => {
                outcomes.push(outcome.to_string());
                (outcomes.len() - 1) as u32
            }
        }
    }

    /// Replays the episodes into `ranker` and the pairs, in file order; the summary, sweeps,
    /// versions and histograms as the row-at-a-time path gathers them.
    pub fn finish(self, ranker: &mut Ranker) -> Result<Gathered, MixedVersions> {
        let summary = self.summary.finish()?;
        let mut sweeps = IndexSet::new();
        let mut versions: IndexMap<String, String> = IndexMap::new();
        let mut ranges: IndexMap<(String, String), (Range, Range)> = IndexMap::new();
        let mut row = Row {
            sweep: String::new(),
            job: 0,
            game: String::new(),
            engine_version: String::new(),
            scenario: String::new(),
            policy_set: String::new(),
            seed: 0,
            outcome: String::new(),
            length: 0,
            truncated: false,
            team_reward: 0.0,
            agent_rewards: Vec::new(),
            trajectory_hash: String::new(),
            stats: StatsMap::default(),
        };
        let mut pairs = Pairs::default();
        let mut last = None;
        let mut range = 0;
        for e in &self.episodes {
            if last != Some(e.group) {
                last = Some(e.group);
                let (s, game, v, sc, ps) = &self.groups[e.group as usize];
                for (to, from) in [
                    (&mut row.sweep, s),
                    (&mut row.game, game),
                    (&mut row.engine_version, v),
                    (&mut row.scenario, sc),
                    (&mut row.policy_set, ps),
                ] {
                    to.clone_from(from);
                }
                if !sweeps.contains(s) {
                    sweeps.insert(s.clone());
                }
                if !versions.contains_key(game) {
                    versions.insert(game.clone(), v.clone());
                }
                let key = (game.clone(), sc.clone());
                range = match ranges.get_index_of(&key) {
                    Some(i) => i,
                    None => ranges.insert_full(key, Default::default()).0,
                };
            }
            row.outcome.clone_from(&self.outcomes[e.outcome as usize]);
            row.seed = e.seed;
            row.length = e.length;
            row.team_reward = e.reward;
            ranker.add(&row);
            pairs.add(&row)?;
            let (reward, length) = &mut ranges[range];
            reward.add(e.reward);
            length.add(f64::from(e.length));
        }
        let mut histograms: IndexMap<CellKey, CellHistograms> = IndexMap::new();
        for key in summary.cells.keys() {
            let (reward, length) = ranges[&(key.0.clone(), key.1.clone())];
            let hist = CellHistograms {
                reward: Histogram::new(Bins::real(reward.min, reward.max, REWARD_BINS)),
                length: Histogram::new(Bins::integer(length.min as u32, length.max as u32, LENGTH_BINS)),
            };
            histograms.insert(key.clone(), hist);
        }
        // The groups' cells, looked up once per group rather than per episode.
        let cells: Vec<Option<usize>> = self
            .groups
            .iter()
            .map(|(_, game, _, sc, ps)| histograms.get_index_of(&(game.clone(), sc.clone(), ps.clone())))
            .collect();
        for e in &self.episodes {
            if let Some(c) = cells[e.group as usize] {
                let h = &mut histograms[c];
                h.reward.add(e.reward);
                h.length.add(f64::from(e.length));
            }
        }
        Ok(Gathered { summary, sweeps, versions, histograms, pairs })
    }
}

impl Accumulate for ReportScan {
    fn add(&mut self, row: &ScanRow<'_>) {
        self.summary.add(row);
        let group = self.group_of(row);
        let outcome = Self::outcome_of(&mut self.outcomes, row.outcome);
        self.episodes.push(Episode { group, outcome, length: row.length, seed: row.seed, reward: row.team_reward });
    }

    fn merge(&mut self, later: ReportScan) {
        self.summary.merge(later.summary);
        let groups: Vec<u32> = later
            .groups
            .into_iter()
            .map(|g| match self.groups.get_index_of(&g) {
                Some(i) => i as u32,
                None => self.groups.insert_full(g).0 as u32,
            })
            .collect();
        let outcomes: Vec<u32> = later.outcomes.iter().map(|o| Self::outcome_of(&mut self.outcomes, o)).collect();
        self.episodes.reserve(later.episodes.len());
        self.episodes.extend(later.episodes.into_iter().map(|e| Episode {
            group: groups[e.group as usize],
            outcome: outcomes[e.outcome as usize],
            ..e
        }));
        self.last = None;
    }
}
