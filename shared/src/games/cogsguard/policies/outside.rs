//! An outside seat of `cogsguard` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: `noop`, counted in the record's `outside` stat. (Every action id is legal in this
//! game: an action that fails, a move into a wall, is the world's business.)

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::super::contract;
use super::super::obs::Observation;
use super::super::types::action;
use super::{Policy, PolicySpec};
use crate::outside::{fail, policy_error, seat_seed, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// Each seat's parsed scripted spec, as far as known: what a built-in policy's rank (§13.3)
/// counts. Outside seats fill theirs when a Python environment first asks for a built-in.
pub type Roster = Arc<Mutex<Vec<Option<PolicySpec>>>>;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    spec: String,
    /// Whether the record counts its faults (a `python:` seat's; not an environment's `agent`,
    /// which refuses an answer outside the space before sending it).
    recorded: bool,
    shell: SeatShell<Box<dyn Transport>>,
    roster: Roster,
    /// The built-in policy a Python environment decides with (one per seat: its rank is the
    /// seat's), with its spec.
    builtin: Option<(String, Policy)>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, roster: Roster) -> OutsideSeat {
        OutsideSeat {
            spec: spec.to_string(),
            recorded: spec.name != "agent",
            shell: SeatShell::new(seat, transport),
            roster,
            builtin: None,
        }
    }

    /// Starts the episode of `seed`: the agent gets the seat's seed.
    pub fn reset(&mut self, seed: u64) {
        self.shell.reset();
        if let Some((_, p)) = &mut self.builtin {
            p.reset();
        }
        let s = seat_seed(seed, self.shell.seat);
        self.shell.transport.reset(s).unwrap_or_else(|e| fail(e));
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.recorded.then(|| self.shell.faults())
    }

    /// One tick's action. A transport that fails fails the job.
    pub fn act(&mut self, obs: &Observation, rng: &mut Stream) -> u8 {
        let mut answer = self.shell.transport.act(contract::encode(obs)).unwrap_or_else(|e| fail(e));
        if self.shell.transport.serves_builtins() {
            if let Some(spec) = answer.get("builtin").and_then(|s| s.as_str()).map(str::to_string) {
                // The built-in decides with this seat's stream, as it would in the seat.
                let chosen = self.builtin(&spec).act(obs, rng, false);
                let reply = json!({"policy_action": contract::encode_action(chosen)});
                answer = self.shell.transport.act(reply).unwrap_or_else(|e| fail(e));
            }
        }
        self.shell.decide(|_| answer, |a| contract::decode(&a), || action::NOOP)
    }

    /// The built-in policy a Python environment decides with, if any (its Pinky's mode
    /// occupancy is the record's, as a scripted seat's would be).
    pub fn builtin_policy(&self) -> Option<&Policy> {
        self.builtin.as_ref().map(|(_, p)| p)
    }

    fn builtin(&mut self, spec: &str) -> &mut Policy {
        let seat = self.shell.seat;
        let known = matches!(&self.builtin, Some((s, _)) if s == spec);
        if !known {
            let parsed = Spec::parse(spec)
                .map_err(|e| e.to_string())
                .and_then(|s| PolicySpec::parse(seat, &s).map_err(|e| e.to_string()))
                .unwrap_or_else(|e| fail(policy_error(seat, &self.spec, format!("builtin {spec:?}: {e}"))));
            let mut roster = self.roster.lock().expect("one engine thread");
            roster[seat] = Some(parsed.clone());
            let rank = roster[..seat].iter().filter(|s| s.as_ref() == Some(&parsed)).count();
            self.builtin = Some((spec.to_string(), Policy::new(&parsed, seat, rank)));
        }
        &mut self.builtin.as_mut().expect("made above").1
    }
}
