//! Mergeable aggregates of episodes: what a sweep collects per job instead of its records when
//! it runs with `collect = "summary"`, and what every reader of results merges per cell.
//!
//! [`Moments`] (count, mean, squared deviations, extremes with their seeds), [`Histogram`]
//! (exact bucket counts with the game's Prometheus buckets) and [`CellAggregate`] (one cell:
//! outcomes, truncations, team reward and length, per-seat rewards, numeric stats, histograms,
//! `llm` tokens). [`summarize`] turns a played job's result into a summary result;
//! [`run_summary_job`] plays a job straight into one, a record at a time. Merging is
//! exact for counts and numerically stable for moments, so the parts of a cell merged in job
//! order give the aggregate of the whole.

mod builder;
mod cell;
mod histogram;
mod moments;

pub use builder::CellBuilder;
pub use cell::{llm_tokens, CellAggregate, Histograms, OutcomeCount};
pub use histogram::{bucket_of, Histogram};
pub use moments::Moments;

use crate::games::GameKind;
use crate::protocol::{EpisodeRecord, Job, JobResult};
use crate::RunEnv;

/// Aggregates that cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AggregateError {
    /// Two histograms of different bucket bounds (results of different builds).
    #[error("the histograms have different buckets: results of different simfleet builds")]
    Buckets,
}

/// A played job's result as a summary result: its records replaced by their aggregate (in
/// `summary`). A failed result, one of a game this build does not know, or one that is a summary
/// already is returned as it is.
pub fn summarize(mut result: JobResult) -> JobResult {
    if result.error.is_some() || result.summary.is_some() {
        return result;
    }
    let Ok(game) = result.game.parse::<GameKind>() else { return result };
    result.summary = Some(Box::new(CellAggregate::of_records(game, &result.records)));
    result.records = Vec::new();
    result.replays = None;
    result
}

/// `summarize(run_job(job, env))`, the same result, without keeping the records: each episode
/// is counted into the aggregate, shown to `each` (the worker's metrics), and dropped as it is
/// played. Holding a summary job's hundred thousand records until the end took the worker's
/// peak memory to 100–300 MB (two jobs at once) and, with dropping them, cost 10–30% of the
/// job's CPU time (scripts/bench-overhead in BENCHMARKS.md).
pub fn run_summary_job(job: &Job, env: &RunEnv, each: &mut dyn FnMut(&EpisodeRecord)) -> JobResult {
    let mut aggregate = job.game.parse::<GameKind>().ok().map(CellBuilder::new);
    let mut result = crate::runner::run_job_with(job, env, &mut |record| {
        each(&record);
        if let Some(a) = aggregate.as_mut() {
            a.add(&record);
        }
    });
    if result.error.is_some() {
        return result;
    }
    // A known game: the job played.
    result.summary = aggregate.map(|a| Box::new(a.finish()));
    result.replays = None;
    result
}

#[cfg(test)]
mod tests;
