//! The Trolley Problem Arena (`trolley-rules-1`, rules in this folder): rounds of one operator
//! deciding which side of the track survives after three debate phases, until every agent has
//! been operator, majority and minority.
//!
//! One rules module drives both the headless engine and the live HTTP arena: the arena only
//! adds ids, clocks, storage and HTTP around the same calls. Nothing here knows HTTP: the
//! arena's JSON shapes live beside the arena (`coordinator::arena`), built from these queries.
//!
//! # Layout
//!
//! - `vocab.rs`: roles, sides, phases, decisions, statuses, causes (§1).
//! - `seats.rs`: [`SeatSet`], a 16-bit set of seats. `text.rs`: [`ArgText`], a trimmed,
//!   pre-hashed argument text.
//! - `config.rs`: [`TrolleyConfig`], the split rule (§2, §3). `scenario.rs`: named scenarios
//!   and overrides (§2).
//! - `roles.rs`: role assignment and the environment stream (§3). `draws.rs`: the stream's
//!   index, shuffle and chance as the hot loop draws them (same words, same results).
//! - `state.rs`: [`TrolleyState`] and its queries (§5), its arguments in `arguments.rs`.
//!   `lobby.rs`: create, register, start.
//!   `rules.rs`: argue, skip, decide (§4–§6). `flow.rs`: advance, deadlines, resolution,
//!   the end condition, the next round, open actions.
//! - `error.rs`: [`TrolleyError`], one variant per §6 kind. `events.rs`: [`Event`] and sinks.
//! - `engine.rs`: the headless `reset` / `step` API (§7). `observation.rs`: observations.
//! - `policies/`: `debater` and its aliases (§10), their templates, and `llm` (§11): the
//!   trolley prompt and answer mapping over the shared client in [`crate::llm`].
//! - `game.rs`: [`Trolley`], the prepared game and its episode loop. `record.rs`: the episode
//!   record (§13), its stats typed in `stats.rs`. `hash.rs`: the trajectory hash, with per-template tables. `replay.rs`: the
//!   replay JSON.
//!
//! # Driving it incrementally (the arena)
//!
//! ```
//! use simfleet::games::trolley::{TrolleyConfig, TrolleyState, Event, SkipCause};
//! let mut events: Vec<Event> = Vec::new();
//! let mut game = TrolleyState::new_game(TrolleyConfig::default(), 42, 0x5eed, &mut events)?;
//! for name in ["ann", "bob", "cy"] {
//!     game.register(name, &format!("id-{name}"), &mut events)?;
//! }
//! let round = game.start(&mut events)?;
//! let r = game.current_round().unwrap().clone();
//! for seat in r.sides().iter() {
//!     game.skip(round, seat, SkipCause::Agent, &mut events)?;
//! }
//! assert_eq!(game.current_round().unwrap().phase.as_str(), "phase_2");
//! # Ok::<(), simfleet::games::trolley::TrolleyError>(())
//! ```

mod arguments;
pub mod config;
pub mod contract;
mod draws;
pub mod engine;
pub mod error;
pub mod events;
pub mod flow;
mod game;
pub mod hash;
mod lobby;
pub mod observation;
pub mod policies;
pub mod record;
pub mod replay;
pub mod roles;
pub mod rules;
pub mod scenario;
pub mod seats;
pub mod state;
pub mod stats;
pub mod text;
pub mod vocab;

#[cfg(test)]
mod tests;

pub use config::{MinoritySize, TrolleyConfig};
pub use engine::{apply_step, check_step, reset, step, step_seats, StepError, TrolleyAction};
pub use error::{TextField, TrolleyError};
pub use events::{Event, EventSink, NoEvents};
pub use flow::{AdvanceAction, OpenActions, Waiting};
pub use game::Trolley;
pub use lobby::MAX_NAME_CHARS;
pub use roles::{assign_roles, Coverage, Roles};
pub use rules::{Acted, Resolution};
pub use scenario::Scenario;
pub use seats::SeatSet;
pub use state::{Agent, Argument, Round, RoundId, Skip, TrolleyState};
pub use text::ArgText;
pub use vocab::{ActionKind, AdvanceCause, Decision, GameStatus, Phase, Role, Side, SkipCause};

/// The rules version (§ title): any change to rules, draw order or policy semantics bumps it.
pub const RULES_VERSION: &str = "trolley-rules-1";
