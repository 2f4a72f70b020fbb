//! simfleet's shared library: everything the worker and the coordinator both need.
//!
//! # Layout
//!
//! - The wire layer, the crate `simfleet-wire` (`shared/wire/`), re-exported here at the same
//!   paths: [`protocol`] (`Job`, `JobResult`, `EpisodeRecord`, `JobError`, MessagePack), [`stats`],
//!   [`msgpack`], [`aggregate`] (mergeable aggregates of episodes), [`seeding`], [`spec`],
//!   [`field`] and [`names`] (NATS names).
//! - [`policy`]: what every game's policies share (metric labels).
//! - [`games`]: the `Game` trait, `GameKind`, `AnyGame`, and one folder per game.
//! - [`runner`]: the one play loop ([`runner::play_job`]) and the sinks its records go to.
//! - [`llm`]: the sans-IO LLM client; `llm::http` (feature `llm-http`) does its HTTP.
//! - [`outside`]: outside seats' shell and the `python:` seats' host process.
//! - `nats` (feature `nats`): the NATS plumbing of both binaries: connection, credentials and
//!   TLS, the JetStream topology.
//!
//! Layers, bottom up: the wire layer knows no game (it is a crate of its own, so the compiler
//! sees to it); [`games`] build on it; [`runner`] plays the games. Engines are synchronous and
//! sans-IO: no tokio, NATS, metrics or logging inside them; the two features (`llm-http`,
//! `nats`) are the only I/O in this crate, and no engine uses them.
#![deny(missing_docs)]

use std::sync::Arc;

pub use simfleet_wire::{aggregate, field, msgpack, names, protocol, seeding, spec, stats};

pub mod games;
pub mod llm;
#[cfg(feature = "nats")]
pub mod nats;
pub mod outside;
pub mod policy;
pub mod runner;

pub use games::{AnyGame, Episode, Game, GameInfo, GameKind};
pub use protocol::{EpisodeRecord, Job, JobError, JobErrorKind, JobResult, PROTOCOL_VERSION};
pub use runner::{engine_version, play_job, prepare_job, run_job};
pub use spec::Spec;

/// What a job may use from outside the engines.
#[derive(Clone, Default)]
pub struct RunEnv {
    /// The transport for `llm` seats; an `llm` seat without one is an `invalid_job`.
    pub chat: Option<Arc<dyn llm::ChatTransport>>,
    /// The id stamped on results (`JobResult::worker`).
    pub worker: String,
    /// The `"agent"` seats' transports: a Python environment's only (`None` in every sweep).
    pub agents: Option<Arc<dyn outside::AgentSeats>>,
}

impl std::fmt::Debug for RunEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunEnv")
            .field("chat", &self.chat.is_some())
            .field("worker", &self.worker)
            .field("agents", &self.agents.is_some())
            .finish()
    }
}
