//! simfleet's wire layer: what crosses between coordinator and workers, and the pieces every
//! game is built on, with no knowledge of any game.
//!
//! # Layout
//!
//! - [`protocol`]: `Job`, `JobResult`, `EpisodeRecord`, `JobError`, MessagePack encode/decode,
//!   the version check, and the hand-written result encoder (`ResultWriter`).
//! - [`stats`]: a record's stats, a map or a game's own struct behind the
//!   [`stats::TypedStats`] trait object.
//! - [`msgpack`]: the shortest MessagePack forms as direct writes.
//! - [`aggregate`]: mergeable aggregates of episodes (moments, histograms, one cell).
//! - [`seeding`]: episode seed -> ChaCha streams, the random primitives, the trajectory hash.
//! - [`spec`]: the `NAME[:ARG][?k=v&…]` grammar of policy and scenario strings; [`field`]:
//!   typed fields whose errors name the field.
//! - [`names`]: NATS stream, subject, consumer and KV names; the sweep's KV entry.
//!
//! # The layering invariant
//!
//! This crate is the bottom of the workspace: the library `simfleet` (the games and the runner)
//! depends on it and re-exports its modules at the same paths (`simfleet::protocol`, …), and
//! Cargo refuses a dependency cycle, so nothing here can import a game or the runner, directly
//! or through another module. Its only dependencies are serialization and random-number crates.
#![deny(missing_docs)]

pub mod aggregate;
pub mod field;
pub mod msgpack;
pub mod names;
pub mod protocol;
pub mod seeding;
pub mod spec;
pub mod stats;
