//! An outside seat of `cogsguard` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: `noop`, counted in the record's `outside` stat. (Every action id is legal in this
//! game: an action that fails, a move into a wall, is the world's business.)

use std::sync::{Arc, Mutex};

use super::super::contract;
use super::super::obs::Observation;
use super::super::types::action;
use super::{Policy, PolicySpec};
use crate::outside::{Builtins, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// Each seat's parsed scripted spec, as far as known: what a built-in policy's rank (§13.3)
/// counts. Outside seats fill theirs when a Python environment first asks for a built-in.
pub type Roster = Arc<Mutex<Vec<Option<PolicySpec>>>>;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    shell: SeatShell<Box<dyn Transport>>,
    roster: Roster,
    builtins: Builtins<Policy>,
    /// The observation's MessagePack, reused every tick.
    obs: Vec<u8>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, roster: Roster) -> OutsideSeat {
        OutsideSeat {
            shell: SeatShell::new(seat, transport),
            roster,
            builtins: Builtins::new(seat, spec),
            obs: Vec::with_capacity(4096),
        }
    }

    /// Starts the episode of `seed`.
    pub fn reset(&mut self, seed: u64) {
        self.builtins.iter_mut().for_each(Policy::reset);
        self.shell.start(seed);
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.shell.recorded_faults()
    }

    /// The built-in policy a Python environment decides with, if any (its Pinky's mode
    /// occupancy is the record's, as a scripted seat's would be).
    pub fn builtin_policy(&self) -> Option<&Policy> {
        self.builtins.iter().next()
    }

    /// One tick's action. A transport that fails fails the job.
    pub fn act(&mut self, obs: &Observation, rng: &mut Stream) -> u8 {
        let (builtins, roster) = (&mut self.builtins, &self.roster);
        // A built-in decides with this seat's stream, as it would in the seat; its rank counts
        // the earlier seats with the same spec, the other agent seats' built-ins included.
        contract::write(&mut self.obs, obs);
        let answer = self.shell.ask_encoded(&self.obs, |spec| {
            let policy = builtins.get(spec, |seat, s| {
                let parsed = PolicySpec::parse(seat, s)?;
                let mut roster = roster.lock().unwrap_or_else(|e| e.into_inner());
                roster[seat] = Some(parsed.clone());
                let rank = roster[..seat].iter().filter(|r| r.as_ref() == Some(&parsed)).count();
                Ok(Policy::new(&parsed, seat, rank))
            });
            contract::encode_action(policy.act(obs, rng, false))
        });
        self.shell.decide_after(answer, |a| contract::decode(&a), || action::NOOP)
    }
}
