//! The paired comparisons of a records file in two reads whose memory does not grow with the
//! policy sets: the first read ([`Baselines`]) learns the (game, scenario) groups and their
//! policy sets and keeps, per seed, the values of the policy sets that can be the baseline (the
//! one asked for, or the default's two candidates: `random` and the file's first policy set);
//! the second ([`Pairing`]) pairs every other episode with the baseline's on its seed as it
//! comes, into running sums ([`PairedSums`]), and keeps of each cell only one bit per seed (to
//! find an episode whose (cell, seed) came before: the first is kept).
//!
//! Both take the episodes of the parallel reader's blocks in file order
//! ([`crate::records::scan::scan_each`]). The comparisons are those of the row-at-a-time
//! reference of the tests (`pairs.rs`) over the same file, except that a cell's pairs are summed in the order its
//! episodes come rather than by seed: the same numbers whenever a cell's episodes are in seed
//! order (every file `run` and `watch` write: a job's seeds ascend, and a file holds its jobs in
//! order), otherwise equal to rounding (1e-15 relative).

use std::path::PathBuf;

use indexmap::{IndexMap, IndexSet};
use simfleet::GameKind;

use super::paired::PairedSums;
use super::seeds::{SeedSet, SeedValues};
use super::{CompareError, Comparison, Comparisons};
use crate::cell_order::{self, Place};
use crate::records::scan::{self, Episodes, Need};
use crate::records::Input;
use crate::summary::MixedVersions;

/// (game, scenario).
type GroupKey = (String, String);

/// A candidate baseline's values in each (game, scenario).
type GroupValues = IndexMap<GroupKey, SeedValues>;

/// The win outcome of each game met (`None` for a game without one).
#[derive(Debug, Default)]
struct Wins(IndexMap<String, Option<&'static str>>);

impl Wins {
    fn of(&mut self, game: &str) -> Option<&'static str> {
        if let Some(w) = self.0.get(game) {
            return *w;
        }
        let w = game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome);
        self.0.insert(game.to_string(), w);
        w
    }
}

/// The first read: the groups and their policy sets in first-seen order, the engine version of
/// each game (two versions of one game are refused), and the candidate baselines' values.
#[derive(Debug)]
pub struct Baselines {
    asked: Option<String>,
    /// The file's first policy set.
    first: Option<String>,
    groups: IndexMap<GroupKey, IndexSet<String>>,
    /// Each cell's place in the sweep's order: the order of the comparisons.
    places: IndexMap<(GroupKey, String), Place>,
    versions: IndexMap<String, String>,
    wins: Wins,
    /// Candidate policy set -> its values.
    values: IndexMap<String, GroupValues>,
    mixed: Option<MixedVersions>,
}

impl Baselines {
    /// A first read for the baseline `asked` (default: `random` if there is one, else the first policy set read;
    /// [`Baselines::default_to_read_again`] says when the sweep's first is another).
    pub fn new(asked: Option<&str>) -> Baselines {
        Baselines {
            asked: asked.map(str::to_string),
            first: None,
            groups: IndexMap::new(),
            places: IndexMap::new(),
            versions: IndexMap::new(),
            wins: Wins::default(),
            values: IndexMap::new(),
            mixed: None,
        }
    }

    fn candidate(&self, policy_set: &str) -> bool {
        match &self.asked {
            Some(b) => b == policy_set,
            // The default is `random` if there is one, else the first policy set of the file.
            None => {
                policy_set == "random"
                    || (self.first.as_deref() == Some(policy_set) && !self.values.contains_key("random"))
            }
        }
    }

    /// Whether no episode was read.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Takes one block's episodes (blocks in file order).
    pub fn take(&mut self, block: &Episodes) {
        block.for_each_run(|g, head, run| {
            if self.mixed.is_some() {
                return;
            }
            match self.versions.get(&head.game) {
                Some(v) if *v != head.engine_version => {
                    self.mixed = Some(MixedVersions {
                        game: head.game.clone(),
                        first: v.clone(),
                        other: head.engine_version.clone(),
                    });
                    return;
                }
                Some(_) => {}
                None => {
                    self.versions.insert(head.game.clone(), head.engine_version.clone());
                }
            }
            if self.first.is_none() {
                self.first = Some(head.policy_set.clone());
            }
            let candidate = self.candidate(&head.policy_set);
            let key = (head.game.clone(), head.scenario.clone());
            let cells = self.groups.entry(key.clone()).or_default();
            if !cells.contains(&head.policy_set) {
                cells.insert(head.policy_set.clone());
            }
            self.places.entry((key.clone(), head.policy_set.clone())).or_default().earliest(block.place(g));
            if !candidate {
                return;
            }
            if self.asked.is_none() && head.policy_set == "random" && self.values.keys().any(|n| n != "random") {
                // `random` is the default: the first policy set's values are no longer needed.
                self.values.retain(|name, _| name == "random");
            }
            let win = self.wins.of(&head.game);
            let seeds = self.values.entry(head.policy_set.clone()).or_default().entry(key).or_default();
            for e in run {
                seeds.insert_first(e.seed, (e.reward, win == Some(block.outcome(e.outcome))));
            }
        });
    }

    /// The default baseline when this read did not keep its values, to read again asking for
    /// it: with no `random`, the default is the sweep's first policy set (that of the cell with
    /// the first job), which in a file in arrival order (a fleet's) need not be the first read.
    /// `None` when this read has the default's values (or a baseline was asked for).
    pub fn default_to_read_again(&self) -> Option<String> {
        if self.asked.is_some() || self.mixed.is_some() || self.values.contains_key("random") {
            return None;
        }
        // The first of equal places: the order read (files without job indexes).
        let ((_, name), place) = self.places.iter().min_by_key(|(_, p)| **p)?;
        (*place != Place::UNKNOWN && self.first.as_ref() != Some(name)).then(|| name.clone())
    }

    /// Every policy set name, in first-seen order.
    fn policy_sets(&self) -> Vec<String> {
        let mut names: IndexSet<&String> = IndexSet::new();
        for cells in self.groups.values() {
            names.extend(cells.iter());
        }
        names.into_iter().cloned().collect()
    }

    /// The second read's state, with the baseline chosen; an error if the file mixes engine
    /// versions, holds no episode, or has no policy set of the name asked.
    pub fn into_pairing(mut self) -> Result<Pairing, CompareError> {
        if let Some(e) = self.mixed {
            return Err(e.into());
        }
        let names = self.policy_sets();
        let baseline = match &self.asked {
            Some(b) if names.contains(b) => b.clone(),
            Some(b) => return Err(CompareError::UnknownBaseline { name: b.clone(), known: names.join(", ") }),
            None => names
                .iter()
                .find(|n| *n == "random")
                .or_else(|| names.first())
                .cloned()
                .ok_or_else(|| CompareError::NoRecords("the results".into()))?,
        };
        let base = self.values.swap_remove(&baseline).unwrap_or_default();
        Ok(Pairing {
            baseline,
            base,
            groups: IndexMap::new(),
            places: self.places,
            wins: self.wins,
            episodes: 0,
            duplicates: 0,
        })
    }
}

/// One cell of the second read.
#[derive(Default)]
struct CellPairs {
    seeds: SeedSet,
    shared: u64,
    reward: PairedSums,
    win: PairedSums,
}

/// The second read: every episode paired with the baseline's of its seed, as it comes.
pub struct Pairing {
    baseline: String,
    base: GroupValues,
    groups: IndexMap<GroupKey, IndexMap<String, CellPairs>>,
    /// Each cell's place in the sweep's order, from the first read.
    places: IndexMap<(GroupKey, String), Place>,
    wins: Wins,
    /// Episodes read.
    pub episodes: u64,
    /// Episodes whose (cell, seed) came before: left out (the first is kept).
    pub duplicates: u64,
}

impl Pairing {
    /// The baseline policy set.
    pub fn baseline(&self) -> &str {
        &self.baseline
    }

    /// Takes one block's episodes (blocks in file order, the same file as the first read).
    pub fn take(&mut self, block: &Episodes) {
        block.for_each_run(|_, head, run| {
            let key = (head.game.clone(), head.scenario.clone());
            let win = self.wins.of(&head.game);
            let base = self.base.get(&key);
            let is_base = head.policy_set == self.baseline;
            let cells = self.groups.entry(key).or_default();
            let cell = match cells.get_mut(&head.policy_set) {
                Some(c) => c,
                None => cells.entry(head.policy_set.clone()).or_default(),
            };
            self.episodes += run.len() as u64;
            for e in run {
                if !cell.seeds.insert(e.seed) {
                    self.duplicates += 1;
                    continue;
                }
                if is_base {
                    continue;
                }
                if let Some((b, b_win)) = base.and_then(|b| b.get(e.seed)) {
                    let o_win = win == Some(block.outcome(e.outcome));
                    cell.shared += 1;
                    cell.reward.add(b, e.reward);
                    cell.win.add(f64::from(u8::from(b_win)), f64::from(u8::from(o_win)));
                }
            }
        });
    }

    /// Every policy set compared with the baseline in each (game, scenario), as
    /// the row-at-a-time reference of the tests gives them.
    pub fn comparisons(&self) -> Comparisons {
        let mut rows = Vec::new();
        let mut without_baseline = Vec::new();
        // In the sweep's order: each (game, scenario) by its first cell, its cells by theirs.
        let place =
            |key: &GroupKey, name: &String| self.places.get(&(key.clone(), name.clone())).copied().unwrap_or_default();
        let mut groups: Vec<(&GroupKey, Vec<(&String, &CellPairs)>)> = self
            .groups
            .iter()
            .map(|(key, cells)| {
                let mut cells: Vec<_> = cells.iter().collect();
                cell_order::sort(&mut cells, |(name, _)| place(key, name));
                (key, cells)
            })
            .collect();
        cell_order::sort(&mut groups, |(key, cells)| cells.first().map_or(Place::UNKNOWN, |(n, _)| place(key, n)));
        for ((game, scenario), cells) in groups {
            let Some(base) = cells.iter().find(|(n, _)| **n == self.baseline).map(|(_, c)| *c) else {
                without_baseline.push((game.clone(), scenario.clone()));
                continue;
            };
            let has_win = self.wins.0.get(game).copied().flatten().is_some();
            for (name, cell) in cells {
                if *name == self.baseline {
                    continue;
                }
                rows.push(Comparison {
                    game: game.clone(),
                    scenario: scenario.clone(),
                    policy_set: name.clone(),
                    baseline: self.baseline.clone(),
                    left_out: base.seeds.len + cell.seeds.len - 2 * cell.shared,
                    reward: cell.reward.finish(),
                    win: has_win.then(|| cell.win.finish()),
                    p_holm: f64::NAN,
                });
            }
        }
        super::adjust_holm(&mut rows);
        Comparisons { baseline: self.baseline.clone(), rows, without_baseline, not_paired: Vec::new() }
    }
}

/// What [`compare_input`] gives.
pub struct Compared {
    /// The comparisons.
    pub comparisons: Comparisons,
    /// Episodes read.
    pub episodes: u64,
    /// Episodes whose (cell, seed) came before: left out.
    pub duplicates: u64,
    /// The files that ended in a partial record, which was skipped.
    pub partial: Vec<PathBuf>,
}

/// Reads `input` (records files of any format) twice on every core, and compares every policy
/// set with `baseline` (default `random` if there is one, else the sweep's first policy set); the line formats are read in
/// blocks of `block` bytes.
pub fn compare_input(input: &Input, baseline: Option<&str>, block: usize) -> Result<Compared, CompareError> {
    // A summary file (one row per cell) has no seeds to pair.
    if input.is_cells() {
        return Err(CompareError::NoRecords(input.to_string()));
    }
    let need = Need { sweep: true, llm: false, whole: false };
    let mut first = Baselines::new(baseline);
    scan::scan_each(input, need, scan::threads(), block, |b: Episodes| first.take(&b))?;
    if first.is_empty() {
        return Err(CompareError::NoRecords(input.to_string()));
    }
    if let Some(default) = first.default_to_read_again() {
        first = Baselines::new(Some(&default));
        scan::scan_each(input, need, scan::threads(), block, |b: Episodes| first.take(&b))?;
    }
    let mut pairing = first.into_pairing()?;
    let partial = scan::scan_each(input, need, scan::threads(), block, |b: Episodes| pairing.take(&b))?;
    Ok(Compared {
        comparisons: pairing.comparisons(),
        episodes: pairing.episodes,
        duplicates: pairing.duplicates,
        partial,
    })
}
