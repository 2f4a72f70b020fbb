//! An outside seat of `deception` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: `random` on the seat's own stream, counted in the record's `outside` stat. An answer
//! inside the space that the rules refuse is the game's business, as any seat's: §8's fallback,
//! counted in `invalid_actions`.

use std::sync::Arc;

use super::super::action::GameAction;
use super::super::contract;
use super::super::observation::AgentObservation;
use super::{RandomPolicy, ScriptedPolicy, Templates};
use crate::outside::{Builtins, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    shell: SeatShell<Box<dyn Transport>>,
    fallback: RandomPolicy,
    templates: Arc<Templates>,
    builtins: Builtins<ScriptedPolicy>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, templates: Arc<Templates>) -> OutsideSeat {
        OutsideSeat {
            shell: SeatShell::new(seat, transport),
            fallback: RandomPolicy::default_with(templates.clone()),
            templates,
            builtins: Builtins::new(seat, spec),
        }
    }

    /// Starts the episode of `seed`.
    pub fn reset(&mut self, seed: u64) {
        self.builtins.iter_mut().for_each(ScriptedPolicy::reset);
        self.shell.start(seed);
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.shell.recorded_faults()
    }

    /// One decision. A transport that fails fails the job.
    pub fn act(&mut self, obs: &AgentObservation<'_>, stream: &mut Stream) -> GameAction {
        let n = obs.agents.len();
        let (builtins, templates) = (&mut self.builtins, &self.templates);
        // A built-in decides with this seat's stream, as it would in the seat.
        let answer = self.shell.ask(contract::encode(obs), |spec| {
            let policy = builtins.get(spec, |seat, s| ScriptedPolicy::parse(s, seat, templates));
            contract::encode_action(&policy.act(obs, stream).kind, n)
        });
        let fallback = &self.fallback;
        self.shell.decide_after(answer, |a| contract::decode(&a, obs.agent_id, n), || fallback.act(obs, stream))
    }
}
