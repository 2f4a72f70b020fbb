//! [`Episodes`]: every episode of a scan, kept compactly (24 bytes each) for the figures whose
//! sums are not mergeable — the ranking's model and the paired comparisons run their sums in
//! the order the rows came — and replayed in file order once the file is read, so those
//! figures are the row-at-a-time ones exactly. Memory grows with episodes, not with the file.

use indexmap::IndexSet;
use simfleet::protocol::StatsMap;

use super::block::{Accumulate, ScanRow};
use crate::cell_order::Place;
use crate::records::row::Row;

/// (sweep, game, engine version, scenario, policy set).
pub type Group = (String, String, String, String, String);

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
pub struct Episode {
    group: u32,
    /// Index of its outcome ([`Episodes::outcome`]).
    pub outcome: u32,
    /// Length.
    pub length: u32,
    /// Seed.
    pub seed: u64,
    /// Team reward.
    pub reward: f64,
}

/// The episodes of a block of rows (needs [`super::block::Need::sweep`]); merged in file order.
#[derive(Debug, Default)]
pub struct Episodes {
    groups: IndexSet<Group>,
    /// Each group's place in the sweep's order (its first job), by group index.
    places: Vec<Place>,
    outcomes: Vec<String>,
    episodes: Vec<Episode>,
    /// The previous row's group: consecutive rows are mostly of one.
    last: Option<u32>,
}

impl Episodes {
    /// The groups met, by the index [`Episodes::for_each_run`] hands over.
    pub fn groups(&self) -> &IndexSet<Group> {
        &self.groups
    }

    /// The place of group `g` in the sweep's order ([`crate::cell_order`]).
    pub fn place(&self, g: usize) -> Place {
        self.places[g]
    }

    /// The outcome of index `i`.
    pub fn outcome(&self, i: u32) -> &str {
        &self.outcomes[i as usize]
    }

    /// Calls `f` with each run of consecutive episodes of one group, in file order: the group's
    /// index, a row holding its strings (and the run's first episode), and the run.
    pub fn for_each_run(&self, mut f: impl FnMut(usize, &Row, &[Episode])) {
        let mut start = 0;
        while start < self.episodes.len() {
            let g = self.episodes[start].group;
            let end =
                self.episodes[start..].iter().position(|e| e.group != g).map_or(self.episodes.len(), |n| start + n);
            let row = self.row(start);
            f(g as usize, &row, &self.episodes[start..end]);
            start = end;
        }
    }

    /// Episode `i` as a row.
    fn row(&self, i: usize) -> Row {
        let e = &self.episodes[i];
        let (s, game, v, sc, ps) = &self.groups[e.group as usize];
        Row {
            sweep: s.clone(),
            job: 0,
            game: game.clone(),
            engine_version: v.clone(),
            scenario: sc.clone(),
            policy_set: ps.clone(),
            seed: e.seed,
            outcome: self.outcomes[e.outcome as usize].clone(),
            length: e.length,
            truncated: false,
            team_reward: e.reward,
            agent_rewards: Vec::new(),
            trajectory_hash: String::new(),
            stats: StatsMap::default(),
        }
    }

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
            None => {
                self.places.push(Place::UNKNOWN);
                self.groups.insert_full((key.0.into(), key.1.into(), key.2.into(), key.3.into(), key.4.into())).0
            }
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
}

impl Accumulate for Episodes {
    fn add(&mut self, row: &ScanRow<'_>) {
        let group = self.group_of(row);
        self.places[group as usize].earliest(Place::of_job(row.job));
        let outcome = Self::outcome_of(&mut self.outcomes, row.outcome);
        self.episodes.push(Episode { group, outcome, length: row.length, seed: row.seed, reward: row.team_reward });
    }

    fn merge(&mut self, later: Episodes) {
        let groups: Vec<u32> = later
            .groups
            .into_iter()
            .zip(later.places)
            .map(|(g, place)| {
                let i = match self.groups.get_index_of(&g) {
                    Some(i) => i,
                    None => {
                        self.places.push(Place::UNKNOWN);
                        self.groups.insert_full(g).0
                    }
                };
                self.places[i].earliest(place);
                i as u32
            })
            .collect();
        let outcomes: Vec<u32> = later.outcomes.iter().map(|o| Self::outcome_of(&mut self.outcomes, o)).collect();
        if self.episodes.is_empty() {
            // Nothing met yet, so the maps above are the identity: move, do not copy.
            self.episodes = later.episodes;
            self.last = None;
            return;
        }
        self.episodes.reserve(later.episodes.len());
        self.episodes.extend(later.episodes.into_iter().map(|e| Episode {
            group: groups[e.group as usize],
            outcome: outcomes[e.outcome as usize],
            ..e
        }));
        self.last = None;
    }
}
