//! The per-seed values of every cell of a results file, grouped by (game, scenario): what
//! pairing needs. Two numbers per episode (team reward, and whether it was a win), so memory
//! grows with episodes, about 40 bytes each.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::{IndexMap, IndexSet};
use simfleet::GameKind;

use super::CompareError;
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
