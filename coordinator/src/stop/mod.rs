//! Sweeps that stop each cell when its answer is decided: the statistics of a `[stop]` table,
//! free of I/O so that every decision is a pure function of the results folded in seed order.
//!
//! A `[stop]` table ([`config`]) asks up to three questions of every (game, scenario): each
//! cell's mean to within `half_width`, each policy set against a `baseline`, and the `best`
//! policy set. Each stopping group ([`plan::GroupShape`]) plays its seeds in blocks that end at
//! deterministic checkpoints ([`schedule`]); after each block the coordinator folds what the
//! group's open sets played ([`state::GroupState::fold`]) and the cells whose questions are
//! answered stop. Each interval is a normal-approximation interval at a level split by
//! Bonferroni over every question of the sweep and every checkpoint ([`plan::AlphaSplit`]): the
//! union bound makes the error simultaneous over all of them whatever the stopping rule, since
//! no question is ever asked anywhere but at a checkpoint ([`interval`]). [`block`] plays a
//! sweep through the folds (the jobs of each block, their results counted in job order) and
//! [`report`] says what was decided and saved.

pub mod block;
/// The `[stop]` table is a section of the sweep file: read with it.
pub use crate::sweep::stop_table as config;
pub mod decisions;
pub mod interval;
pub mod log;
pub mod normal;
pub mod outcome;
pub mod plan;
pub mod report;
pub mod savings;
pub mod schedule;
pub mod state;

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;

pub use config::{Metric, StopConfig};
pub use interval::Interval;
pub use outcome::{Decision, Outcome, Question};
pub use plan::{AlphaSplit, GroupShape, StopPlan};
pub use state::{FoldRecord, GroupState};
