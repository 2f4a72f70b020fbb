//! Ranking experiments: mixed teams from a roster (the `[[rankings]]` sweep section) and
//! `coordinator rank FILE`, which fits each policy's additive contribution to team reward.
//!
//! Team membership comes from the policy set names that `[[rankings]]` writes
//! (`team-007 (firefighter + hero + liar + liar)`, see [`teams`]), or, with `--sweep`, from the
//! sweep file's policy sets: then any cell whose policy set is a team counts, hand-written ones
//! included. The records must come from that sweep (the sweep ids are compared).
//!
//! # Layout
//!
//! - [`section`], [`teams`]: the `[[rankings]]` sweep section, its expansion into cells and
//!   the seeded team draw, read with the sweep file (`sweep::rankings`, `sweep::teams`).
//! - [`model`]: the additive model, accumulated row by row (or a summary file's cell at a
//!   time) and fitted in closed form.
//! - [`solver`]: the small dense Cholesky solver of its normal equations.
//! - [`table`]: the terminal table and the CSV output.

pub mod model;
pub mod solver;
pub mod table;

/// The `[[rankings]]` section and its team draw are read and expanded with the sweep file.
pub use crate::sweep::{rankings as section, teams};

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context};
use indexmap::IndexMap;

use crate::records::scan::{self, Episodes, Need};
use crate::records::summary_file::CellRow;
use crate::records::{Input, Row};
use crate::sweep::Sweep;
pub use model::{Fit, Model, PolicyFit};

/// The default ridge λ: one pseudo-episode pulling each contribution toward the roster average,
/// negligible against hundreds of episodes, enough to keep the equations solvable.
pub const DEFAULT_RIDGE: f64 = 1.0;

/// (game, policy set) → the policy of each seat.
type SeatsByPolicySet = HashMap<(String, String), Vec<String>>;

/// Where team membership comes from.
#[derive(Debug, Default)]
pub struct Membership {
    /// (game, policy set) → seats, from a sweep file; `None`: from team names only.
    sweep: Option<(String, SeatsByPolicySet)>,
}

impl Membership {
    /// Membership from the policy sets of `sweep`. Seats are called by their roster names where
    /// a `[[rankings]]` roster names their spec, so a hand-written `heroes` cell and the ranking
    /// teams count the same policy once.
    pub fn from_sweep(sweep: &Sweep) -> Membership {
        let mut names: HashMap<&str, &str> = HashMap::new();
        for c in &sweep.cells {
            if let Some(members) = teams::members_of(&c.policy_set.name) {
                if members.len() == c.policy_set.seats.len() {
                    for (name, spec) in members.into_iter().zip(&c.policy_set.seats) {
                        names.entry(spec.as_str()).or_insert(name);
                    }
                }
            }
        }
        let map = sweep
            .cells
            .iter()
            .map(|c| {
                // A seat no roster names is its spec, a `wasm:` entry its label (not its hash).
                let seats = c.policy_set.seats.iter().map(|s| match names.get(s.as_str()) {
                    Some(name) => name.to_string(),
                    None => simfleet::outside::wasm::label(s).unwrap_or_else(|| s.clone()),
                });
                ((c.game.as_str().to_string(), c.policy_set.name.clone()), seats.collect())
            })
            .collect();
        Membership { sweep: Some((sweep.id.clone(), map)) }
    }
}

/// Accumulates the ranking of every game in a results file, row by row.
#[derive(Debug, Default)]
pub struct Ranker {
    membership: Membership,
    models: IndexMap<String, Model>,
    versions: IndexMap<String, String>,
    /// Episodes of policy sets whose members are unknown, per policy set name.
    pub skipped: IndexMap<String, u64>,
    error: Option<String>,
}

impl Ranker {
    /// A ranker taking membership from `membership`.
    pub fn new(membership: Membership) -> Ranker {
        Ranker { membership, ..Ranker::default() }
    }

    /// Checks a row's sweep and engine version; false (with the error kept) when they do not fit.
    fn admit(&mut self, sweep: &str, game: &str, engine_version: &str) -> bool {
        if self.error.is_some() {
            return false;
        }
        if let Some((id, _)) = &self.membership.sweep {
            if id != sweep {
                self.error = Some(format!(
                    "the records come from sweep {sweep} but the sweep file is sweep {id}: pass the sweep file the \
                     records were made from (or leave out --sweep to read teams from their names)"
                ));
                return false;
            }
        }
        match self.versions.get(game) {
            Some(v) if v != engine_version => {
                self.error = Some(format!(
                    "the results mix engine versions of {game}: {v} and {engine_version}; rank each version separately"
                ));
                return false;
            }
            Some(_) => {}
            None => {
                self.versions.insert(game.to_string(), engine_version.to_string());
            }
        }
        if !self.models.contains_key(game) {
            self.models.insert(game.to_string(), Model::default());
        }
        true
    }

    /// The seats of `policy_set`, from the sweep file or its team name.
    fn members<'a>(membership: &'a Membership, game: &str, policy_set: &'a str) -> Option<Vec<&'a str>> {
        let from_sweep =
            membership.sweep.as_ref().and_then(|(_, m)| m.get(&(game.to_string(), policy_set.to_string())));
        match from_sweep {
            Some(seats) => Some(seats.iter().map(String::as_str).collect()),
            None => teams::members_of(policy_set),
        }
    }

    /// Adds consecutive episodes of one (sweep, game, engine version, scenario, policy set),
    /// given by `head` (whose own seed and reward are not read) and their (seed, team reward):
    /// what [`Ranker::add`] of each would do, the row's checks and the team's members looked
    /// up once.
    pub fn add_run(&mut self, head: &Row, mut episodes: impl ExactSizeIterator<Item = (u64, f64)>) {
        if !self.admit(&head.sweep, &head.game, &head.engine_version) {
            return;
        }
        let model = self.models.get_mut(&head.game).expect("admitted");
        if !model.knows_team(&head.policy_set) {
            let Some((seed, reward)) = episodes.next() else { return };
            match Ranker::members(&self.membership, &head.game, &head.policy_set) {
                Some(m) => model.add(&head.policy_set, Some(&m), &head.scenario, seed, reward),
                None => {
                    *self.skipped.entry(head.policy_set.clone()).or_default() += 1 + episodes.len() as u64;
                    return;
                }
            }
        }
        for (seed, reward) in episodes {
            model.add(&head.policy_set, None, &head.scenario, seed, reward);
        }
    }

    /// Adds one cell of a summary file (its team reward's count, sum and squared deviations).
    pub fn add_cell(&mut self, row: &CellRow) {
        if !self.admit(&row.sweep, &row.game, &row.engine_version) {
            return;
        }
        let model = self.models.get_mut(&row.game).expect("admitted");
        let reward = &row.aggregate.team_reward;
        match Ranker::members(&self.membership, &row.game, &row.policy_set) {
            Some(m) => model.add_aggregate(&row.policy_set, Some(&m), &row.scenario, reward),
            None => *self.skipped.entry(row.policy_set.clone()).or_default() += reward.count,
        }
    }

    /// Whether any episode of a team was seen.
    pub fn has_teams(&self) -> bool {
        !self.models.is_empty()
    }

    /// Fits every game that has at least two policies, in first-seen order.
    pub fn fit(&self, ridge: f64) -> Result<Vec<Fit>, String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        Ok(self.models.iter().filter_map(|(game, m)| m.fit(game, ridge)).collect())
    }
}

/// `coordinator rank FILE... [--sweep SWEEP]`: the fitted ranking of every game in `input`.
/// Records are read once by the parallel reader ([`crate::records::scan`]): each block's
/// episodes ([`Episodes`]) go into the model in file order as the block is done and are
/// dropped, so the fit is the row-at-a-time one exactly and memory holds the model, not the
/// episodes.
pub fn rank(input: &Input, sweep: Option<&Path>, ridge: f64) -> anyhow::Result<(Vec<Fit>, IndexMap<String, u64>)> {
    rank_with(input, sweep, ridge, |input, ranker| {
        let need = Need { sweep: true, llm: false, whole: false };
        let cut = scan::scan_each(input, need, scan::threads(), scan::BLOCK, |block: Episodes| {
            block.for_each_run(|_, head, run| ranker.add_run(head, run.iter().map(|e| (e.seed, e.reward))));
        })
        .with_context(|| format!("cannot read {input}"))?;
        Input::warn_partial(&cut);
        Ok(())
    })
}

/// [`rank`] with `read` adding a records file's episodes to the ranker.
fn rank_with(
    input: &Input,
    sweep: Option<&Path>,
    ridge: f64,
    read: impl FnOnce(&Input, &mut Ranker) -> anyhow::Result<()>,
) -> anyhow::Result<(Vec<Fit>, IndexMap<String, u64>)> {
    if !(ridge > 0.0 && ridge.is_finite()) {
        bail!("--ridge must be a positive number (got {ridge})");
    }
    let membership = match sweep {
        Some(path) => Membership::from_sweep(&Sweep::load(path)?),
        None => Membership::default(),
    };
    let mut ranker = Ranker::new(membership);
    if input.is_cells() {
        for row in input.read_cells()? {
            ranker.add_cell(&row);
        }
    } else {
        read(input, &mut ranker)?;
    }
    let fits = ranker.fit(ridge).map_err(anyhow::Error::msg)?;
    if fits.is_empty() {
        let hint = if sweep.is_none() {
            "its policy set names are not team names (`team-007 (a + b + c + d)`, written by [[rankings]]): \
             pass --sweep SWEEP.toml to take each policy set's seats from the sweep file"
        } else {
            "its policy sets have fewer than two distinct policies"
        };
        bail!("{input} holds no ranking: {hint}");
    }
    Ok((fits, ranker.skipped))
}
