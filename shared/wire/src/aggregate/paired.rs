//! What a summary job with paired policy sets carries besides its first set's aggregate: the
//! other sets' aggregates, and the moments of the per-seed differences between every two sets,
//! which is what a paired comparison needs (the variance of a difference depends on how the two
//! sets' results move together seed by seed, which the cells' own moments drop).

use serde::{Deserialize, Serialize};

use super::{CellAggregate, Moments};

/// The paired part of a summary job's result ([`crate::protocol::JobResult::paired`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// The aggregates of the job's paired policy sets, in the job's order
    /// ([`crate::protocol::Job::paired`]).
    pub cells: Vec<PairedCell>,
    /// The per-seed differences between every two of the job's policy sets, numbered 0 for the
    /// job's `policy_set` and 1, 2, … for its paired sets: `(0, 1), (0, 2), …, (1, 2), …`.
    pub differences: Vec<Difference>,
}

/// One paired policy set's aggregate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PairedCell {
    /// The policy set's name.
    pub policy_set: String,
    /// Its episodes' aggregate.
    pub summary: CellAggregate,
}

/// The moments of the per-seed difference between two policy sets played on the same seeds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// The first set's number (its value minus the second's).
    pub a: u32,
    /// The second set's number.
    pub b: u32,
    /// Team reward of `a` minus team reward of `b`, per seed: count, mean and squared
    /// deviations (merged as a cell's moments are), and the extremes with their seeds (the seeds
    /// where the sets differ most either way).
    pub team_reward: Moments,
    /// Win (1) or not (0) of `a` minus that of `b`, per seed; absent for a game without a win
    /// outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win: Option<Moments>,
}

/// One set's figures of one seed, what a difference is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeedValue {
    /// The episode's seed.
    pub seed: u64,
    /// The episode's team reward.
    pub team_reward: f64,
    /// Whether the episode ended with the game's win outcome.
    pub win: bool,
}

/// The differences between every two of `sets` (each set's values in the same seed order),
/// counted in seed order; `win` says whether the game has a win outcome.
pub fn differences(sets: &[Vec<SeedValue>], win: bool) -> Vec<Difference> {
    let mut out = Vec::with_capacity(sets.len() * sets.len().saturating_sub(1) / 2);
    for (a, xs) in sets.iter().enumerate() {
        for (b, ys) in sets.iter().enumerate().skip(a + 1) {
            let mut d = Difference {
                a: a as u32,
                b: b as u32,
                team_reward: Moments::default(),
                win: win.then(Moments::default),
            };
            for (x, y) in xs.iter().zip(ys) {
                d.team_reward.add(x.team_reward - y.team_reward, x.seed);
                if let Some(w) = d.win.as_mut() {
                    w.add(f64::from(u8::from(x.win)) - f64::from(u8::from(y.win)), x.seed);
                }
            }
            out.push(d);
        }
    }
    out
}
