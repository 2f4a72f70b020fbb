//! [`Transport`]: how an outside seat's decisions travel. A game encodes the seat's
//! observation as the agent contract's JSON (docs/agents.md), the transport carries it to the
//! agent and brings back its answer, and the game decodes and checks that answer. The engines
//! know nothing else of the agent: a `python:` seat's host process ([`PythonHost`]) and a
//! Python environment's `"agent"` seat (the `simfleet` package's channels to its caller, in
//! `python/src/`) are the same seat to them.
//!
//! [`AgentSeats`] hands a job its `"agent"` seats' transports: only a Python environment has
//! them (through [`crate::RunEnv::agents`]); a sweep never does.

use std::fmt::Debug;

use serde_json::Value;

use super::{PythonHost, PythonSeat};
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

/// Stream ids of the seeds handed to outside seats: `1000 + seat`, apart from every engine
/// stream (the environment's 0, seat i's i + 1).
const SEAT_SEED_STREAM: u64 = 1000;

/// The seed an outside seat `seat` gets in the episode of `seed` (its `reset(seed)`): the
/// first draw of ChaCha stream `1000 + seat` keyed by the episode's seed.
pub fn seat_seed(seed: u64, seat: usize) -> u64 {
    Stream::new(seed, SEAT_SEED_STREAM + seat as u64).next_u64()
}

/// Carries one outside seat's observations out and its answers back.
pub trait Transport: Debug + Send {
    /// Starts an episode; `seed` is the seat's ([`seat_seed`]).
    fn reset(&mut self, seed: u64) -> Result<(), JobError>;

    /// The agent's answer to `obs` (any JSON: the game checks it).
    fn act(&mut self, obs: Value) -> Result<Value, JobError>;

    /// Whether this is a Python environment's `"agent"` seat: it may ask for a built-in
    /// policy's choice (`{"builtin": "<spec>"}`) to step with the engine's own policies, and
    /// its faults are not the record's (the environment refuses an action outside the space
    /// before sending it, and a sweep has no such seat). A `python:` host is not.
    fn environment(&self) -> bool {
        false
    }
}

impl Transport for PythonHost {
    fn reset(&mut self, seed: u64) -> Result<(), JobError> {
        PythonHost::reset(self, seed)
    }

    fn act(&mut self, obs: Value) -> Result<Value, JobError> {
        PythonHost::act(self, obs)
    }
}

/// The source of a job's `"agent"` seats: one transport per seat, made at prepare.
pub trait AgentSeats: Send + Sync {
    /// The transport of `"agent"` seat `seat`.
    fn seat(&self, seat: usize) -> Box<dyn Transport>;
}

/// The transport of an outside seat `spec` (seat `seat`), if it is one: `python:…` starts its
/// host (refusing a module that cannot be loaded), `agent` takes the environment's seat.
/// `None`: not an outside seat.
pub fn transport_for(seat: usize, spec: &Spec, env: &RunEnv) -> Option<Result<Box<dyn Transport>, JobError>> {
    match spec.name.as_str() {
        "python" => Some(
            PythonSeat::parse(seat, spec)
                .and_then(|s| PythonHost::start(&s))
                .map(|h| Box::new(h) as Box<dyn Transport>),
        ),
        "agent" => Some(match &env.agents {
            Some(agents) => Ok(agents.seat(seat)),
            None => Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                "agent",
                "\"agent\" seats are played from Python (simfleet.make); a sweep names a policy for every seat",
            )),
        }),
        _ => None,
    }
}
