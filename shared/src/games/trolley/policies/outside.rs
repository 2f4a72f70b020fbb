//! An outside seat of `trolley` (`python:…`, or a Python environment's `"agent"`): the seat
//! shell over its transport, the observation and action of the agent contract
//! ([`contract`](super::super::contract)), and the fallback for an answer outside the action
//! space: §7's fallback (skip in a debate phase, the default decision after), counted in the
//! record's `outside` stat. An answer inside the space that the rules refuse is the game's
//! business, as any seat's: the same fallback, counted in `invalid_actions`.

use super::super::contract;
use super::super::engine::TrolleyAction;
use super::super::state::TrolleyState;
use super::{parse, Policy, Reason, Templates};
use crate::outside::{Builtins, SeatFaults, SeatShell, Transport};
use crate::seeding::Stream;
use crate::spec::Spec;

/// One outside seat.
#[derive(Debug)]
pub struct OutsideSeat {
    spec: String,
    shell: SeatShell<Box<dyn Transport>>,
    templates: &'static Templates,
    builtins: Builtins<Policy>,
}

impl OutsideSeat {
    /// Seat `seat` (spec `spec`) answered through `transport`.
    pub fn new(seat: usize, spec: &Spec, transport: Box<dyn Transport>, templates: &'static Templates) -> OutsideSeat {
        OutsideSeat {
            spec: spec.to_string(),
            shell: SeatShell::new(seat, transport),
            templates,
            builtins: Builtins::new(seat, spec),
        }
    }

    /// Starts the episode of `seed` (scripted trolley policies keep nothing between decisions).
    pub fn reset(&mut self, seed: u64) {
        self.shell.start(seed);
    }

    /// The episode's faults, when the record counts them.
    pub fn faults(&self) -> Option<SeatFaults> {
        self.shell.recorded_faults()
    }

    /// One decision of `seat` in the current phase. A transport that fails fails the job.
    pub fn act(&mut self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let (builtins, templates) = (&mut self.builtins, self.templates);
        // A built-in decides with this seat's stream, as it would in the seat.
        let answer = self.shell.ask(contract::encode(state, seat), |spec| {
            let policy = builtins.get(spec, |seat, s| Ok(Policy::new(parse(seat, s)?, templates)));
            contract::encode_action(&policy.act(state, seat, rng).0)
        });
        let debating = state.current_round().and_then(|r| r.phase.debate_index()).is_some();
        let action = self.shell.decide_after(
            answer,
            |a| contract::decode(&a),
            || match debating {
                true => TrolleyAction::SKIP,
                false => TrolleyAction::Decide { decision: super::fallback_decision(state) },
            },
        );
        (action, Reason::Outside(self.spec.clone()))
    }
}
