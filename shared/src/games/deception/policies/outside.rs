//! An outside seat of `deception` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: `random` on the seat's own stream, counted in the record's `outside` stat. An answer
//! inside the space that the rules refuse is the game's business, as any seat's: §8's fallback,
//! counted in `invalid_actions`.

use std::sync::Arc;

use serde_json::json;

use super::super::action::GameAction;
use super::super::contract;
use super::super::observation::AgentObservation;
use super::{RandomPolicy, ScriptedPolicy, Templates};
use crate::outside::{fail, policy_error, seat_seed, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    spec: String,
    /// Whether the record counts its faults: a `python:` seat's are the sweep's business; a
    /// Python environment's `agent` refuses an answer outside the space before sending it.
    recorded: bool,
    shell: SeatShell<Box<dyn Transport>>,
    fallback: RandomPolicy,
    templates: Arc<Templates>,
    /// Built-in policies a Python environment asked to decide with, by spec, each kept for the
    /// episode (their memory is the episode's, as in a sweep).
    builtins: Vec<(String, ScriptedPolicy)>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, templates: Arc<Templates>) -> OutsideSeat {
        OutsideSeat {
            spec: spec.to_string(),
            recorded: spec.name != "agent",
            shell: SeatShell::new(seat, transport),
            fallback: RandomPolicy::default_with(templates.clone()),
            templates,
            builtins: Vec::new(),
        }
    }

    /// Starts the episode of `seed`: the agent gets the seat's seed.
    pub fn reset(&mut self, seed: u64) {
        self.shell.reset();
        for (_, p) in &mut self.builtins {
            p.reset();
        }
        let s = seat_seed(seed, self.shell.seat);
        self.shell.transport.reset(s).unwrap_or_else(|e| fail(e));
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.recorded.then(|| self.shell.faults())
    }

    /// One decision. A transport that fails fails the job ([`fail`]).
    pub fn act(&mut self, obs: &AgentObservation<'_>, stream: &mut Stream) -> GameAction {
        let n = obs.agents.len();
        let mut answer = self.shell.transport.act(contract::encode(obs)).unwrap_or_else(|e| fail(e));
        if self.shell.transport.serves_builtins() {
            if let Some(spec) = answer.get("builtin").and_then(|s| s.as_str()).map(str::to_string) {
                // The built-in decides with this seat's stream, as it would in the seat.
                let chosen = self.builtin(&spec).act(obs, stream);
                let reply = json!({"policy_action": contract::encode_action(&chosen.kind, n)});
                answer = self.shell.transport.act(reply).unwrap_or_else(|e| fail(e));
            }
        }
        let fallback = &self.fallback;
        self.shell.decide(|_| answer, |a| contract::decode(&a, obs.agent_id, n), || fallback.act(obs, stream))
    }

    fn builtin(&mut self, spec: &str) -> &mut ScriptedPolicy {
        let seat = self.shell.seat;
        let i = match self.builtins.iter().position(|(s, _)| s == spec) {
            Some(i) => i,
            None => {
                let parsed = Spec::parse(spec)
                    .map_err(|e| e.to_string())
                    .and_then(|s| ScriptedPolicy::parse(&s, seat, &self.templates).map_err(|e| e.to_string()));
                let p =
                    parsed.unwrap_or_else(|e| fail(policy_error(seat, &self.spec, format!("builtin {spec:?}: {e}"))));
                self.builtins.push((spec.to_string(), p));
                self.builtins.len() - 1
            }
        };
        &mut self.builtins[i].1
    }
}
