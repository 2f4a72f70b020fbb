//! [`Moments`]: count, mean, sum of squared deviations, and the extremes with their seeds, of
//! one figure over a set of episodes, mergeable in any split.

use serde::{Deserialize, Serialize};

/// Running moments of one figure. Adding values one by one is Welford's update; merging two is
/// Chan, Golub and LeVeque's pairwise update, so the mean and `m2` of merged splits equal those
/// of the whole to rounding. Extremes keep the seed of the episode that reached them; a tie goes
/// to the smaller seed, so the extremes (and their seeds) do not depend on the merge order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    /// Values counted.
    pub count: u64,
    /// Their mean (0 when none).
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
    /// The smallest value (0 when none).
    pub min: f64,
    /// The seed of the episode with the smallest value.
    pub min_seed: u64,
    /// The largest value (0 when none).
    pub max: f64,
    /// The seed of the episode with the largest value.
    pub max_seed: u64,
}

impl Moments {
    /// Counts `value`, reached by episode `seed`.
    pub fn add(&mut self, value: f64, seed: u64) {
        if self.count == 0 {
            *self = Moments { count: 1, mean: value, m2: 0.0, min: value, min_seed: seed, max: value, max_seed: seed };
            return;
        }
        self.count += 1;
        let d = value - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (value - self.mean);
        self.take_min(value, seed);
        self.take_max(value, seed);
    }

    /// Adds everything `other` counted.
    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = other.clone();
            return;
        }
        let (na, nb) = (self.count as f64, other.count as f64);
        let n = na + nb;
        let d = other.mean - self.mean;
        self.mean += d * nb / n;
        self.m2 += other.m2 + d * d * na * nb / n;
        self.count += other.count;
        self.take_min(other.min, other.min_seed);
        self.take_max(other.max, other.max_seed);
    }

    fn take_min(&mut self, value: f64, seed: u64) {
        if value < self.min || (value == self.min && seed < self.min_seed) {
            (self.min, self.min_seed) = (value, seed);
        }
    }

    fn take_max(&mut self, value: f64, seed: u64) {
        if value > self.max || (value == self.max && seed < self.max_seed) {
            (self.max, self.max_seed) = (value, seed);
        }
    }

    /// The sample variance (`m2 / (count − 1)`); NaN below two values.
    pub fn variance(&self) -> f64 {
        if self.count < 2 {
            return f64::NAN;
        }
        self.m2 / (self.count - 1) as f64
    }

    /// Half-width of the 95% confidence interval of the mean (normal approximation); NaN below
    /// two values.
    pub fn ci95(&self) -> f64 {
        1.96 * (self.variance() / self.count as f64).sqrt()
    }

    /// The sum of the values.
    pub fn sum(&self) -> f64 {
        self.mean * self.count as f64
    }
}
