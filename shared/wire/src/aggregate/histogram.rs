//! [`Histogram`]: exact bucket counts of one figure, with the bounds the worker's Prometheus
//! histograms use ([`Buckets`], which each game states in its `GameInfo`).

use serde::{Deserialize, Serialize};

use super::AggregateError;

/// Default histogram buckets of a game's metrics (each spec lists them).
#[derive(Debug)]
pub struct Buckets {
    /// `simfleet_<game>_episode_team_reward`.
    pub team_reward: &'static [f64],
    /// `simfleet_<game>_episode_length`.
    pub length: &'static [f64],
    /// `simfleet_<game>_agent_reward`.
    pub agent_reward: &'static [f64],
}

/// The bucket of `value` among `bounds` (strictly increasing upper bounds; `bounds.len()` is
/// `+Inf`): the first whose bound is at least the value. The one rule of every histogram of the
/// project, the worker's Prometheus histograms included.
///
/// Counted without branches, not searched: for the dozen or so bounds of a histogram a binary
/// search mispredicts a branch on most values, and the worker finds six to a dozen buckets per
/// episode (its metrics, and a summary's aggregate). For increasing bounds the count of bounds
/// below the value is the partition point (tested against it).
pub fn bucket_of(bounds: &[f64], value: f64) -> usize {
    bounds.iter().map(|b| usize::from(*b < value)).sum()
}

/// Counts per bucket, not cumulative: `counts[i]` counts values in `(bounds[i−1], bounds[i]]`,
/// the last slot those above every bound (`+Inf`). A value goes to the first bucket whose upper
/// bound is at least the value, the rule of the worker's exact histograms, so the counts of a
/// sweep equal what Prometheus scraped for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Upper bounds, strictly increasing.
    pub bounds: Vec<f64>,
    /// One count per bound, then `+Inf`.
    pub counts: Vec<u64>,
}

impl Histogram {
    /// An empty histogram over `bounds`.
    pub fn new(bounds: &[f64]) -> Histogram {
        Histogram { bounds: bounds.to_vec(), counts: vec![0; bounds.len() + 1] }
    }

    /// Counts `value`.
    pub fn record(&mut self, value: f64) {
        self.counts[bucket_of(&self.bounds, value)] += 1;
    }

    /// Adds `other`'s counts; its bounds must be these.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), AggregateError> {
        if self.bounds != other.bounds || self.counts.len() != other.counts.len() {
            return Err(AggregateError::Buckets);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        Ok(())
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}
