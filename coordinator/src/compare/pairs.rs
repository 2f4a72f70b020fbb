//! The reference of the equality tests (test code): the per-seed values of every cell of a
//! results file, read row at a time and grouped by (game, scenario), and the comparisons of
//! them ([`compare`], [`compare_file`]), which `pairing` must equal. Two numbers per episode (team reward, and whether it was a win), so memory
//! grows with episodes, about 40 bytes each.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::{IndexMap, IndexSet};
use simfleet::GameKind;

use super::{CompareError, Comparison, Comparisons, Paired};
use crate::records::{Input, Row};

/// What pairing keeps of an episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Episode {
    /// Team reward.
    pub reward: f64,
    /// The outcome is the game's win outcome.
    pub win: bool,
}

/// The episodes of one (game, scenario, policy set), by seed.
#[derive(Clone, Debug, Default)]
pub struct CellSeeds {
    /// Seed -> episode (ordered by seed, so sums run in the same order on every read).
    pub seeds: BTreeMap<u64, Episode>,
}

/// Every cell of a results file.
#[derive(Clone, Debug, Default)]
pub struct Pairs {
    /// (game, scenario) -> policy set -> its episodes, in first-seen order.
    pub groups: IndexMap<(String, String), IndexMap<String, CellSeeds>>,
    /// Episodes read.
    pub episodes: u64,
    /// Episodes whose (cell, seed) was already read (a file holding a sweep twice): the first
    /// is kept.
    pub duplicates: u64,
    /// The files that ended in a partial record, which was skipped.
    pub partial: Vec<PathBuf>,
    versions: IndexMap<String, String>,
    wins: IndexMap<String, Option<&'static str>>,
}

impl Pairs {
    /// Adds one row; results of two engine versions of a game are refused.
    pub fn add(&mut self, row: &Row) -> Result<(), crate::summary::MixedVersions> {
        match self.versions.get(&row.game) {
            Some(v) if *v != row.engine_version => {
                return Err(crate::summary::MixedVersions {
                    game: row.game.clone(),
                    first: v.clone(),
                    other: row.engine_version.clone(),
                })
            }
            Some(_) => {}
            None => {
                self.versions.insert(row.game.clone(), row.engine_version.clone());
            }
        }
        let win_outcome = *self
            .wins
            .entry(row.game.clone())
            .or_insert_with(|| row.game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome));
        let episode = Episode { reward: row.team_reward, win: win_outcome == Some(row.outcome.as_str()) };
        let group = self.groups.entry((row.game.clone(), row.scenario.clone())).or_default();
        let cell = match group.get_mut(&row.policy_set) {
            Some(c) => c,
            None => group.entry(row.policy_set.clone()).or_default(),
        };
        self.episodes += 1;
        match cell.seeds.entry(row.seed) {
            Entry::Vacant(v) => {
                v.insert(episode);
            }
            Entry::Occupied(_) => self.duplicates += 1,
        }
        Ok(())
    }

    /// Reads every row of `input` (files of any format).
    pub fn read(input: &Input) -> Result<Pairs, CompareError> {
        let mut pairs = Pairs::default();
        let mut mixed = None;
        let cut = input.for_each_row(|row| {
            if mixed.is_none() {
                if let Err(e) = pairs.add(&row) {
                    mixed = Some(e);
                }
            }
        })?;
        if let Some(e) = mixed {
            return Err(e.into());
        }
        pairs.partial = cut;
        Ok(pairs)
    }

    /// Every policy set name, in first-seen order.
    pub fn policy_sets(&self) -> Vec<String> {
        let mut names: IndexSet<&String> = IndexSet::new();
        for cells in self.groups.values() {
            names.extend(cells.keys());
        }
        names.into_iter().cloned().collect()
    }

    /// Whether `game` has a win outcome (so a win rate).
    pub fn has_win(&self, game: &str) -> bool {
        self.wins.get(game).copied().flatten().is_some()
    }
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
            let shared: Vec<(&Episode, &Episode)> =
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
    super::adjust_holm(&mut rows);
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
