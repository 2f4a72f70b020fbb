//! Outside seats: seats whose decisions come from outside the engine, through a transport.
//!
//! Every outside seat has the same shell ([`shell::SeatShell`]): the game renders the seat's
//! observation, the transport answers, the game checks the answer's legality, and an illegal
//! answer is replaced by the seat's fallback and counted. A seat kind supplies only its
//! transport ([`Transport`]): [`python_host::PythonHost`] for `python:package.module:Class`
//! seats, and a Python environment's channels for its `"agent"` seats; `llm` seats
//! (`crate::llm::seat`) use the shell over their model client, whose attempts are their own.
//! A game adds only its contract (observation and action as JSON) and its fallback.
//!
//! A transport that fails (the policy raised, gave no answer in time, or its process died)
//! fails the job: [`fail`] unwinds with the [`JobError`], which the runner's `catch_unwind`
//! turns into the job's error result, so the engines' `play` stays infallible.

use crate::protocol::{JobError, JobErrorKind};
use crate::spec::Spec;

pub mod python_host;
pub mod shell;
pub mod transport;
#[cfg(feature = "wasm")]
pub mod wasm;

pub use python_host::{PythonHost, PythonSeat};
pub use shell::{add_faults, Builtins, SeatFaults, SeatShell};
pub use transport::{seat_seed, transport_for, AgentSeats, Transport};

/// Unwinds out of the engine with `error` as the job's error (no panic message is printed:
/// this is not a bug). The runner catches it ([`crate::runner::play_job`]).
pub fn fail(error: JobError) -> ! {
    std::panic::resume_unwind(Box::new(error))
}

/// A `policy_error` naming seat `seat`, its spec, and what happened.
pub fn policy_error(seat: usize, spec: &str, message: impl Into<String>) -> JobError {
    JobError {
        kind: JobErrorKind::PolicyError,
        field: Some(format!("policy_set[{seat}]")),
        value: Some(spec.to_string()),
        message: message.into(),
    }
}

/// Whether `spec` is a `python:…` or `wasm:…` seat's.
pub fn is_outside(spec: &Spec) -> bool {
    spec.name == "python" || spec.name == "wasm"
}
