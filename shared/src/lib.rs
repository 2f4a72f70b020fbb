//! simfleet's shared library: everything the worker and the coordinator both need.
//!
//! # Layout
//!
//! - [`protocol`]: `Job`, `JobResult`, `EpisodeRecord`, `JobError`, MessagePack encode/decode,
//!   the version check and the failed result; [`stats`]: a record's stats, a map or a game's own
//!   struct behind the [`stats::TypedStats`] trait object.
//! - [`aggregate`]: mergeable aggregates of episodes (moments, histograms, one cell), what a
//!   summary sweep collects instead of records.
//! - [`seeding`]: episode seed -> ChaCha streams, the random primitives, the trajectory hash.
//! - [`spec`]: the `NAME[:ARG][?k=v&…]` grammar of policy and scenario strings.
//! - [`field`]: typed scenario fields and policy parameters, with errors naming the field.
//! - [`policy`]: what every game's policies share (metric labels).
//! - [`games`]: the `Game` trait, `GameKind`, `AnyGame`, and one folder per game.
//! - [`runner`]: `run_job`, the one function that plays episodes.
//! - [`topology`]: NATS stream, subject, consumer and KV names; the sweep KV entry.
//! - [`llm`]: the sans-IO LLM client; `llm::http` (feature `llm-http`) does its HTTP.
//! - `nats` (feature `nats`): the NATS plumbing of both binaries: connection, credentials and
//!   TLS, the JetStream topology.
//!
//! Layers, bottom up: [`protocol`], [`stats`], [`seeding`], [`spec`] and [`field`] know no game;
//! [`games`] build on them; [`runner`] plays the games. Engines are synchronous and sans-IO: no
//! tokio, NATS, metrics or logging inside them; the two features (`llm-http`, `nats`) are the
//! only I/O in this crate, and no engine uses them.
#![deny(missing_docs)]

use std::sync::Arc;

pub mod aggregate;
pub mod field;
pub mod games;
pub mod llm;
pub mod msgpack;
#[cfg(feature = "nats")]
pub mod nats;
pub mod policy;
pub mod protocol;
pub mod runner;
pub mod seeding;
pub mod spec;
pub mod stats;
pub mod topology;

pub use games::{AnyGame, Episode, Game, GameInfo, GameKind};
pub use protocol::{EpisodeRecord, Job, JobError, JobErrorKind, JobResult, PROTOCOL_VERSION};
pub use runner::{engine_version, prepare_job, run_job, run_job_with};
pub use spec::Spec;

/// What a job may use from outside the engines.
#[derive(Clone, Default)]
pub struct RunEnv {
    /// The transport for `llm` seats; an `llm` seat without one is an `invalid_job`.
    pub chat: Option<Arc<dyn llm::ChatTransport>>,
    /// The id stamped on results (`JobResult::worker`).
    pub worker: String,
}

impl std::fmt::Debug for RunEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunEnv").field("chat", &self.chat.is_some()).field("worker", &self.worker).finish()
    }
}
