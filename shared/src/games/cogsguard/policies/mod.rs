//! The policies of §13 behind one enum (static dispatch): `noop`, `random` and `pinky`.
//!
//! Interface: `reset` per episode, `act(&Observation, &mut Stream) -> u8` once per tick with the
//! seat's agent stream, and `debug()` (Pinky only, built only when a replay is requested).

use crate::field::policy_path;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;

use super::obs::Observation;
use super::pinky::{Pinky, PinkyConfig};
use super::types::action;

pub mod outside;

pub use outside::{OutsideSeat, Roster};

/// A parsed policy spec of one seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicySpec {
    /// Always `noop`.
    Noop,
    /// `index(12)` from the seat's stream.
    Random,
    /// The Pinky scripted policy.
    Pinky(PinkyConfig),
}

impl PolicySpec {
    /// Parses seat `seat`'s spec; errors name `policy_set[<seat>].<param>`.
    pub fn parse(seat: usize, spec: &Spec) -> Result<PolicySpec, JobError> {
        if let Some(a) = &spec.arg {
            return Err(JobError::invalid(format!("policy_set[{seat}]"), a, "cogsguard policies take no `:` argument"));
        }
        match spec.name.as_str() {
            "noop" | "random" => {
                if let Some((k, v)) = spec.params.first() {
                    return Err(JobError::invalid(
                        policy_path(seat, k),
                        v,
                        format!("{} takes no parameters", spec.name),
                    ));
                }
                Ok(if spec.name == "noop" { PolicySpec::Noop } else { PolicySpec::Random })
            }
            "pinky" => PinkyConfig::parse(seat, spec).map(PolicySpec::Pinky),
            other => Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                other,
                "unknown policy (known: noop, random, pinky)",
            )),
        }
    }
}

/// A policy instance of one seat.
#[derive(Debug)]
pub enum Policy {
    /// Always `noop`.
    Noop,
    /// Uniform over the 12 actions.
    Random,
    /// Pinky (boxed: its knowledge and buffers are large).
    Pinky(Box<Pinky>),
    /// `python:…`, or a Python environment's `agent` (boxed: it carries its transport).
    Outside(Box<OutsideSeat>),
}

impl Policy {
    /// A fresh policy of `spec` for seat `id` with rank `rank` (§13.3).
    pub fn new(spec: &PolicySpec, id: usize, rank: usize) -> Policy {
        match spec {
            PolicySpec::Noop => Policy::Noop,
            PolicySpec::Random => Policy::Random,
            PolicySpec::Pinky(cfg) => Policy::Pinky(Box::new(Pinky::new(*cfg, id, rank))),
        }
    }

    /// Resets per-episode state (buffers are kept).
    pub fn reset(&mut self) {
        if let Policy::Pinky(p) = self {
            p.reset();
        }
    }

    /// Starts the episode of `seed` (an outside seat's agent gets its seed).
    pub fn begin(&mut self, seed: u64) {
        match self {
            Policy::Outside(p) => p.reset(seed),
            p => p.reset(),
        }
    }

    /// Whether the policy reads observations (noop and random do not, so none is built).
    pub fn needs_obs(&self) -> bool {
        matches!(self, Policy::Pinky(_) | Policy::Outside(_))
    }

    /// The episode's faults, for outside seats that count them.
    pub fn outside_faults(&self) -> Option<crate::outside::SeatFaults> {
        match self {
            Policy::Outside(p) => p.faults(),
            _ => None,
        }
    }

    /// Chooses an action; `debug` asks Pinky to build its debug string.
    pub fn act(&mut self, obs: &Observation, rng: &mut Stream, debug: bool) -> u8 {
        match self {
            Policy::Noop => action::NOOP,
            Policy::Random => rng.index(action::COUNT as usize) as u8,
            Policy::Pinky(p) => p.act(obs, rng, debug),
            Policy::Outside(p) => p.act(obs, rng),
        }
    }

    /// The debug string of the last step (Pinky with debug on), else None.
    pub fn debug(&self) -> Option<&str> {
        match self {
            Policy::Pinky(p) => Some(p.debug()),
            _ => None,
        }
    }
}
