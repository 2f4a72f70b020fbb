//! The messages between coordinator and workers, and the episode record every export carries.
//!
//! Everything here is a plain serde struct encoded with rmp-serde as named-field maps, so a
//! field added later (with `#[serde(default)]`) does not break older readers. The protocol is
//! versioned: a worker that gets a job of another version answers it with a typed
//! [`JobError`] of kind `unsupported_version` instead of guessing ([`check_version`]).
//!
//! Nothing here names a game (this crate cannot: it does not depend on the games): an
//! episode's game-specific figures are [`Stats`], a map or a game's own typed value behind a
//! trait object.
//!
//! - `job.rs`: [`Job`], [`JobEnvelope`], [`SeedRange`], [`PolicySet`], [`Collect`];
//! - `record.rs`: [`EpisodeRecord`];
//! - `result.rs`: [`JobResult`];
//! - `error.rs`: [`JobError`] and its kinds, [`check_version`], [`DecodeError`];
//! - `codec.rs`: [`encode`] and [`decode`];
//! - `writer.rs`: [`JobResult::encode`] and [`ResultWriter`], the hand-written result encoder.

mod codec;
mod error;
mod job;
mod record;
mod result;
mod writer;

pub use codec::{decode, encode};
pub use error::{check_version, DecodeError, JobError, JobErrorKind};
pub use job::{Collect, Job, JobEnvelope, PolicySet, SeedRange};
pub use record::EpisodeRecord;
pub use result::JobResult;
pub use writer::ResultWriter;

pub use crate::stats::{Stats, StatsMap};

/// The newest version of [`Job`] and [`JobResult`] this build speaks: 2 adds a summary job's
/// paired policy sets ([`Job::paired`], [`JobResult::paired`]).
pub const PROTOCOL_VERSION: u32 = 2;

/// The oldest version this build still speaks: a job is sent as the oldest version that carries
/// it ([`Job::required_version`]) and answered in the job's version, so a records job and its
/// result are the bytes of version 1.
pub const MIN_PROTOCOL_VERSION: u32 = 1;

#[cfg(test)]
mod tests;
