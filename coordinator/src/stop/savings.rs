//! What stopping saved: episodes played against the cap and against the fixed design with the
//! same guarantee, the one seed count for every cell that a fixed-size interval at the same
//! simultaneous confidence would need to decide every question the run decided, estimated
//! from the run's own last looks.

use serde::Serialize;

use super::state::difference;
use super::{GroupState, Question, StopPlan};

/// The episodes of a stopping run and of its alternatives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Savings {
    /// Episodes played.
    pub played: u64,
    /// Episodes of every cell playing the cap.
    pub cap: u64,
    /// Seeds per cell of the fixed design with the same guarantee.
    pub fixed_seeds: u64,
    /// Its episodes (`fixed_seeds` per cell).
    pub fixed: u64,
}

impl Savings {
    /// The savings of a finished run whose groups ended in `states`.
    pub fn of(plan: &StopPlan, states: &[GroupState]) -> Savings {
        let played = states.iter().flat_map(|s| &s.played).sum();
        let fixed_seeds = fixed_seeds(plan, states);
        Savings { played, cap: plan.cells() * plan.cap, fixed_seeds, fixed: plan.cells() * fixed_seeds }
    }

    /// How many times fewer episodes than the fixed design.
    pub fn vs_fixed(&self) -> f64 {
        self.fixed as f64 / self.played.max(1) as f64
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

/// The seed count at which a fixed design would answer each question the way the run's last
/// look estimates it, at the fixed design's `z`: the largest over every question, clamped to
/// [2, cap] (a question no seed count answers, such as a difference exactly at the margin,
/// needs the cap either way).
pub fn fixed_seeds(plan: &StopPlan, states: &[GroupState]) -> u64 {
    let z = plan.split.z_fixed();
    let m = plan.config.margin;
    let sd = |v: f64| if v.is_finite() { v.max(0.0).sqrt() } else { 0.0 };
    let mut most: f64 = 2.0;
    for state in states {
        let shape = &plan.groups[state.group];
        for (i, set) in state.sets.iter().enumerate() {
            if let Some(h) = plan.config.half_width {
                most = most.max(needed(z, sd(set.variance()), h));
            }
            if let (Some(b), Some(_)) = (shape.baseline, state.outcome(i, Question::Baseline)) {
                if let Some(d) = difference(&state.pairs, i, b) {
                    let (gap, s) = (d.mean.abs(), sd(d.variance()));
                    most = most.max(needed(z, s, gap - m).min(needed(z, s, m - gap)));
                }
            }
        }
        if plan.config.best && shape.sets.len() > 1 {
            // Against the set of the highest mean: each other set must fall below it, or
            // within the margin of it.
            let top = (0..state.sets.len()).max_by(|&x, &y| state.sets[x].mean.total_cmp(&state.sets[y].mean));
            for j in (0..state.sets.len()).filter(|&j| Some(j) != top) {
                let Some(d) = top.and_then(|t| difference(&state.pairs, t, j)) else { continue };
                let (gap, s) = (d.mean.abs(), sd(d.variance()));
                most = most.max(needed(z, s, gap).min(needed(z, s, m - gap)));
            }
        }
    }
    most.min(plan.cap as f64).ceil() as u64
}
