//! What stopping saved: episodes played against the cap and against the fixed design with the
//! same guarantee, the one seed count for every cell that a fixed-size interval at the same
//! simultaneous confidence would need to give the run's answers (estimated from the run's own
//! last looks), and against the smaller fixed design that need only decide what was decided.

use serde::Serialize;

use super::state::difference;
use super::{Decision, GroupState, Question, StopPlan};

/// The episodes of a stopping run and of its alternatives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Savings {
    /// Episodes played.
    pub played: u64,
    /// Episodes of every cell playing the cap.
    pub cap: u64,
    /// Seeds per cell of the fixed design with the same guarantee: every decided question
    /// decided, every capped one as precise as the run left it.
    pub fixed_seeds: u64,
    /// Its episodes (`fixed_seeds` per cell).
    pub fixed: u64,
    /// Seeds per cell of a fixed design that need only decide what the run decided.
    pub decided_seeds: u64,
    /// Its episodes.
    pub decided: u64,
}

impl Savings {
    /// The savings of a finished run whose groups ended in `states`.
    pub fn of(plan: &StopPlan, states: &[GroupState]) -> Savings {
        let played = states.iter().flat_map(|s| &s.played).sum();
        let (fixed_seeds, decided_seeds) = (fixed_seeds(plan, states, true), fixed_seeds(plan, states, false));
        let cells = plan.cells();
        Savings {
            played,
            cap: cells * plan.cap,
            fixed_seeds,
            fixed: cells * fixed_seeds,
            decided_seeds,
            decided: cells * decided_seeds,
        }
    }

    /// How many times fewer episodes than the fixed design.
    pub fn vs_fixed(&self) -> f64 {
        self.fixed as f64 / self.played.max(1) as f64
    }

    /// How many times fewer episodes than the fixed design for the decided questions only.
    pub fn vs_decided(&self) -> f64 {
        self.decided as f64 / self.played.max(1) as f64
    }

    /// How many times fewer episodes than the cap.
    pub fn vs_cap(&self) -> f64 {
        self.cap as f64 / self.played.max(1) as f64
    }
}

/// Seeds a fixed-size interval at `z` needs for a half-width of `gap` on values of standard
/// deviation `sd` (infinite when `gap` is not positive).
fn needed(z: f64, sd: f64, gap: f64) -> f64 {
    if gap <= 0.0 {
        return f64::INFINITY;
    }
    (z * sd / gap).powi(2)
}

/// The seed count at which a fixed design would give the run's answers, at the fixed design's
/// `z`: each decided question decided (as the run's last look estimates its mean and spread),
/// and, when `capped` is set, each capped question's interval as narrow as the run's was at
/// the cap (`cap · (z_fixed / z)²` seeds). The largest over those questions, in [2, cap]; 0
/// when there are none.
pub fn fixed_seeds(plan: &StopPlan, states: &[GroupState], capped: bool) -> u64 {
    let z = plan.split.z_fixed();
    let m = plan.config.margin;
    let sd = |v: f64| if v.is_finite() { v.max(0.0).sqrt() } else { 0.0 };
    // None counted (nothing decided, and capped ones left out): no seeds at all.
    let mut most: f64 = 0.0;
    let mut count = |o: Option<&super::Outcome>, decide: &dyn Fn() -> f64| match o.map(|o| o.decision) {
        Some(Decision::Capped) if capped => most = most.max(plan.cap as f64 * (z / plan.z).powi(2)).max(2.0),
        Some(Decision::Capped) | None => {}
        Some(_) => most = most.max(decide()).max(2.0),
    };
    for state in states {
        let shape = &plan.groups[state.group];
        for (i, set) in state.sets.iter().enumerate() {
            if let Some(h) = plan.config.half_width {
                count(state.outcome(i, Question::Precision), &|| needed(z, sd(set.variance()), h));
            }
            if let Some(d) = shape.baseline.and_then(|b| difference(&state.pairs, i, b)) {
                let (gap, s) = (d.mean.abs(), sd(d.variance()));
                count(state.outcome(i, Question::Baseline), &|| needed(z, s, gap - m).min(needed(z, s, m - gap)));
            }
        }
        if plan.config.best && shape.sets.len() > 1 {
            // Against the set of the highest mean: each other set must fall below it, or
            // within the margin of it.
            let top = (0..state.sets.len()).max_by(|&x, &y| state.sets[x].mean.total_cmp(&state.sets[y].mean));
            for j in (0..state.sets.len()).filter(|&j| Some(j) != top) {
                let Some(d) = top.and_then(|t| difference(&state.pairs, t, j)) else { continue };
                let (gap, s) = (d.mean.abs(), sd(d.variance()));
                count(state.outcome(j, Question::Best), &|| needed(z, s, gap).min(needed(z, s, m - gap)));
            }
        }
    }
    most.min(plan.cap as f64).ceil() as u64
}
