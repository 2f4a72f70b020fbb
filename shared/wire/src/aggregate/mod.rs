//! Mergeable aggregates of episodes: what a sweep collects per job instead of its records when
//! it runs with `collect = "summary"`, and what every reader of results merges per cell.
//!
//! [`Moments`] (count, mean, squared deviations, extremes with their seeds), [`Histogram`]
//! (exact bucket counts with the game's Prometheus buckets) and [`CellAggregate`] (one cell:
//! outcomes, truncations, team reward and length, per-seat rewards, numeric stats, histograms,
//! `llm` tokens, calls, fallbacks and failed calls: [`LlmCounts`]), and [`Paired`]: the other policy sets' aggregates and the [`Moments`] of
//! the per-seed differences between every two sets of a summary job with paired sets. The runner (`simfleet::runner`) counts a summary job's episodes into a
//! [`CellBuilder`] as they are played. Merging is
//! exact for counts and numerically stable for moments, so the parts of a cell merged in job
//! order give the aggregate of the whole.

mod builder;
mod cell;
mod histogram;
mod llm;
mod moments;
mod paired;

pub use builder::CellBuilder;
pub use cell::{llm_tokens, CellAggregate, Histograms, OutcomeCount};
pub use histogram::{bucket_of, Buckets, Histogram};
pub use llm::{failure_of, FailedCalls, LlmCounts};
pub use moments::Moments;
pub use paired::{differences, Difference, Paired, PairedCell, SeedValue};

/// Aggregates that cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AggregateError {
    /// Two histograms of different bucket bounds (results of different builds).
    #[error("the histograms have different buckets: results of different simfleet builds")]
    Buckets,
}

#[cfg(test)]
mod tests;
