//! The interval of a mean at one look: `mean ± z·s/√n`, with `z` at the level the look was
//! given ([`super::plan::AlphaSplit`]). Its coverage at a fixed sample size is the normal
//! approximation's; asking only at the checkpoints, each at its share of the error, is what
//! makes the whole sequence of looks valid together (the union bound).

use serde::{Deserialize, Serialize};
use simfleet::aggregate::Moments;

/// A closed interval `[low, high]`; empty when `low > high` (a running intersection of
/// intervals that disagree, which says an assumption failed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The interval of `m`'s mean at `z`, or `None` below two values. For a metric of 0/1
    /// values (`binary`: wins, or their per-seed differences) the half-width is at least
    /// `z²/(n + z²)`, Wilson's bound when no value differs from the rest: a run of 64 losses
    /// does not prove a win share of exactly 0.
    pub fn of_mean(m: &Moments, z: f64, binary: bool) -> Option<Interval> {
        if m.count < 2 {
            return None;
        }
        let n = m.count as f64;
        let mut half = z * (m.variance().max(0.0) / n).sqrt();
        if binary {
            half = half.max(z * z / (n + z * z));
        }
        Some(Interval { low: m.mean - half, high: m.mean + half })
    }

    /// The values in both.
    pub fn intersect(self, other: Interval) -> Interval {
        Interval { low: self.low.max(other.low), high: self.high.min(other.high) }
    }

    /// Whether no value is in it.
    pub fn is_empty(self) -> bool {
        self.low > self.high
    }

    /// Whether `x` is in it.
    pub fn contains(self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// Half its width.
    pub fn half_width(self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The moments of a 0/1 metric from a count of ones among `count` values (a cell's wins):
/// exact, as adding the values one by one would give up to rounding.
pub fn binary_moments(ones: u64, count: u64) -> Moments {
    if count == 0 {
        return Moments::default();
    }
    let p = ones as f64 / count as f64;
    Moments {
        count,
        mean: p,
        m2: count as f64 * p * (1.0 - p),
        min: if ones == count { 1.0 } else { 0.0 },
        min_seed: 0,
        max: if ones == 0 { 0.0 } else { 1.0 },
        max_seed: 0,
    }
}
