//! The plan of a stopping sweep: its groups (each (game, scenario) with its policy sets), its
//! checkpoints, and how the error is split over questions and looks.

use serde::Serialize;

use super::{normal, schedule, StopConfig};

/// One stopping group: the policy sets of one (game, scenario), which play the same seeds so
/// that their differences are paired.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupShape {
    /// The game id.
    pub game: String,
    /// The scenario string.
    pub scenario: String,
    /// The policy set names, in cell order.
    pub sets: Vec<String>,
    /// Each set's position in the sweep's cells.
    pub cells: Vec<usize>,
    /// The baseline's position in `sets`, when the plan compares with one.
    pub baseline: Option<usize>,
}

impl GroupShape {
    /// Number of pairs of sets.
    pub fn pairs(&self) -> u64 {
        let p = self.sets.len() as u64;
        p * p.saturating_sub(1) / 2
    }
}

/// The error `1 − confidence` split by Bonferroni over every question unit of the sweep (each
/// cell's precision, each comparison with the baseline, each pair of a best race) and every
/// checkpoint: each look of each unit misses with at most `alpha / (units · looks)`, so all of
/// them hold together with probability at least `confidence`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AlphaSplit {
    /// `1 − confidence`.
    pub alpha: f64,
    /// Question units.
    pub units: u64,
    /// Checkpoints.
    pub looks: u64,
}

impl AlphaSplit {
    /// The error of one look of one unit.
    pub fn per_look(&self) -> f64 {
        self.alpha / (self.units.max(1) * self.looks.max(1)) as f64
    }

    /// The `z` of every look.
    pub fn z(&self) -> f64 {
        normal::two_sided(self.per_look())
    }

    /// The `z` of a fixed design with the same simultaneous guarantee: one look per unit.
    pub fn z_fixed(&self) -> f64 {
        normal::two_sided(self.alpha / self.units.max(1) as f64)
    }
}

/// Everything the folds need.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StopPlan {
    /// The questions.
    pub config: StopConfig,
    /// The most seeds a cell plays.
    pub cap: u64,
    /// Seed counts of the looks ([`schedule::checkpoints`]).
    pub checkpoints: Vec<u64>,
    /// The groups, in cell order.
    pub groups: Vec<GroupShape>,
    /// The error split.
    pub split: AlphaSplit,
    /// [`AlphaSplit::z`], computed once.
    pub z: f64,
}

impl StopPlan {
    /// The plan of `groups` with at most `cap` seeds per cell.
    pub fn new(config: StopConfig, cap: u64, groups: Vec<GroupShape>) -> StopPlan {
        let checkpoints = schedule::checkpoints(cap);
        let mut units = 0;
        for g in &groups {
            if config.half_width.is_some() {
                units += g.sets.len() as u64;
            }
            if g.baseline.is_some() {
                units += g.sets.len() as u64 - 1;
            }
            if config.best {
                units += g.pairs();
            }
        }
        let split = AlphaSplit { alpha: 1.0 - config.confidence, units, looks: checkpoints.len() as u64 };
        StopPlan { config, cap, checkpoints, groups, z: split.z(), split }
    }

    /// Number of cells.
    pub fn cells(&self) -> u64 {
        self.groups.iter().map(|g| g.sets.len() as u64).sum()
    }

    /// Whether the metric takes 0/1 values.
    pub fn binary(&self) -> bool {
        self.config.metric == super::Metric::Win
    }
}

impl crate::sweep::Sweep {
    /// The plan of a stopping sweep (`None` without `[stop]`): its groups are the cells of each
    /// (game, scenario), its cap `seeds.count`.
    pub fn stop_plan(&self) -> Option<StopPlan> {
        let config = self.stop.clone()?;
        let shapes = self
            .stop_groups()
            .into_iter()
            .map(|g| {
                let first = &self.cells[g[0]];
                let sets: Vec<String> = g.iter().map(|&i| self.cells[i].policy_set.name.clone()).collect();
                let baseline = config.baseline.as_ref().and_then(|b| sets.iter().position(|s| s == b));
                GroupShape { game: first.game.to_string(), scenario: first.scenario.clone(), sets, cells: g, baseline }
            })
            .collect();
        Some(StopPlan::new(config, self.seeds.count, shapes))
    }
}
