//! An outside seat of `trolley` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: §7's fallback (skip in a debate phase, the default decision after), counted in the
//! record's `outside` stat. An answer inside the space that the rules refuse is the game's
//! business, as any seat's: the same fallback, counted in `invalid_actions`.

use serde_json::json;

use super::super::contract;
use super::super::engine::TrolleyAction;
use super::super::state::TrolleyState;
use super::{parse, Policy, Reason, Templates};
use crate::outside::{fail, policy_error, seat_seed, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    spec: String,
    /// Whether the record counts its faults (a `python:` seat's; not an environment's `agent`,
    /// which refuses an answer outside the space before sending it).
    recorded: bool,
    shell: SeatShell<Box<dyn Transport>>,
    templates: &'static Templates,
    /// Built-in policies a Python environment asked to decide with, by spec.
    builtins: Vec<(String, Policy)>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, templates: &'static Templates) -> OutsideSeat {
        OutsideSeat {
            spec: spec.to_string(),
            recorded: spec.name != "agent",
            shell: SeatShell::new(seat, transport),
            templates,
            builtins: Vec::new(),
        }
    }

    /// Starts the episode of `seed`: the agent gets the seat's seed.
    pub fn reset(&mut self, seed: u64) {
        self.shell.reset();
        let s = seat_seed(seed, self.shell.seat);
        self.shell.transport.reset(s).unwrap_or_else(|e| fail(e));
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.recorded.then(|| self.shell.faults())
    }

    /// One decision of `seat` in the current phase. A transport that fails fails the job.
    pub fn act(&mut self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let mut answer = self.shell.transport.act(contract::encode(state, seat)).unwrap_or_else(|e| fail(e));
        if self.shell.transport.serves_builtins() {
            if let Some(spec) = answer.get("builtin").and_then(|s| s.as_str()).map(str::to_string) {
                // The built-in decides with this seat's stream, as it would in the seat.
                let (chosen, _) = self.builtin(&spec).act(state, seat, rng);
                let reply = json!({"policy_action": contract::encode_action(&chosen)});
                answer = self.shell.transport.act(reply).unwrap_or_else(|e| fail(e));
            }
        }
        let phase = state.current_round().map(|r| r.phase);
        let action = self.shell.decide(
            |_| answer,
            |a| contract::decode(&a),
            || match phase.and_then(|p| p.debate_index()) {
                Some(_) => TrolleyAction::SKIP,
                None => TrolleyAction::Decide { decision: super::fallback_decision(state) },
            },
        );
        (action, Reason::Outside(self.spec.clone()))
    }

    fn builtin(&mut self, spec: &str) -> &mut Policy {
        let seat = self.shell.seat;
        let i = match self.builtins.iter().position(|(s, _)| s == spec) {
            Some(i) => i,
            None => {
                let parsed = Spec::parse(spec)
                    .map_err(|e| e.to_string())
                    .and_then(|s| parse(seat, &s).map_err(|e| e.to_string()));
                let params =
                    parsed.unwrap_or_else(|e| fail(policy_error(seat, &self.spec, format!("builtin {spec:?}: {e}"))));
                self.builtins.push((spec.to_string(), Policy::new(params, self.templates)));
                self.builtins.len() - 1
            }
        };
        &mut self.builtins[i].1
    }
}
