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

    /// Starts the episode of `episode` for seat `seat`: [`Transport::reset`] with the seat's
    /// seed, unless the transport needs more (a `wasm:` seat also takes the seat's stream).
    fn start(&mut self, episode: u64, seat: usize) -> Result<(), JobError> {
        self.reset(seat_seed(episode, seat))
    }

    /// The agent's answer to `obs` (any JSON: the game checks it).
    fn act(&mut self, obs: Value) -> Result<Value, JobError>;

    /// The agent's answer to an observation already encoded as MessagePack (a game that writes
    /// its observation's bytes directly, for speed: Bucket Brigade). By default decoded and
    /// given to [`Transport::act`].
    fn act_encoded(&mut self, obs: &[u8]) -> Result<Value, JobError> {
        self.act(rmp_serde::from_slice(obs).expect("a game's own MessagePack observation"))
    }

    /// [`Transport::act_encoded`] for a game whose actions are short lists of codes (Bucket
    /// Brigade's `[signal, house, mode]`): the answer's entries into `codes` (each its value if
    /// a non-negative integer, else `None`) and their count, or `None` when the answer is not a
    /// list of at most `codes.len()` entries (or the agent faulted). The same reading as the
    /// JSON answer's, without building it.
    fn act_codes(&mut self, obs: &[u8], codes: &mut [Option<u64>]) -> Result<Option<usize>, JobError> {
        Ok(codes_of(&self.act_encoded(obs)?, codes))
    }

    /// Whether the agent has faulted in this episode (a `wasm:` seat that ran out of fuel,
    /// trapped or overran its memory: the kind, as the record's `outside` stat names it). Its
    /// answers are then `null`, and the fallback decides for the rest of the episode.
    fn fault(&self) -> Option<&'static str> {
        None
    }

    /// Whether the record's `outside` stat has this seat in every episode (a `python:` seat),
    /// or only in episodes where it faulted or answered outside the space (a `wasm:` seat,
    /// whose clean episodes are then byte for byte those of the native policy it ports).
    fn records_every_episode(&self) -> bool {
        true
    }

    /// Whether this is a Python environment's `"agent"` seat: it may ask for a built-in
    /// policy's choice (`{"builtin": "<spec>"}`) to step with the engine's own policies, and
    /// its faults are not the record's (the environment refuses an action outside the space
    /// before sending it, and a sweep has no such seat). A `python:` host is not.
    fn environment(&self) -> bool {
        false
    }
}

/// A JSON answer's codes ([`Transport::act_codes`]): of a list of at most `codes.len()`
/// entries, each entry's non-negative integer (`None` for any other entry), written into
/// `codes`; the list's length.
pub fn codes_of(answer: &Value, codes: &mut [Option<u64>]) -> Option<usize> {
    let list = answer.as_array().filter(|a| a.len() <= codes.len())?;
    for (c, v) in codes.iter_mut().zip(list) {
        *c = v.as_u64();
    }
    Some(list.len())
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

/// The transport of an outside seat `spec` (seat `seat`) of `game`, if it is one: `python:…`
/// starts its host (refusing a module that cannot be loaded), `wasm:…` instantiates its module
/// (refusing one this process does not have), `agent` takes the environment's seat.
/// `None`: not an outside seat.
pub fn transport_for(
    game: &str,
    seat: usize,
    spec: &Spec,
    env: &RunEnv,
) -> Option<Result<Box<dyn Transport>, JobError>> {
    match spec.name.as_str() {
        #[cfg(feature = "wasm")]
        "wasm" => Some(
            super::wasm::WasmSeat::parse(seat, spec)
                .and_then(|s| super::wasm::WasmTransport::start(&s, game))
                .map(|t| Box::new(t) as Box<dyn Transport>),
        ),
        #[cfg(not(feature = "wasm"))]
        "wasm" => Some(Err(JobError::invalid(
            format!("policy_set[{seat}]"),
            spec,
            format!("this build plays no wasm seats ({game} from Python takes python: and agent seats)"),
        ))),
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
