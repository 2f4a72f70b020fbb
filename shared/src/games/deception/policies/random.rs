//! The `random` policy (§10.1): uniform choices among legal actions; also the `random` fallback.

use std::sync::Arc;

use super::super::action::{ActionKind, GameAction};
use super::super::observation::AgentObservation;
use super::templates::Templates;
use crate::seeding::Stream;

/// `random?propose=0.05&abstain=0.1`.
#[derive(Clone, Debug)]
pub struct RandomPolicy {
    /// Chance of `propose_vote` on a discussion turn.
    pub propose: f64,
    /// Chance of abstaining (when allowed).
    pub abstain: f64,
    templates: Arc<Templates>,
}

impl RandomPolicy {
    /// Default chance of proposing a vote.
    pub const PROPOSE: f64 = 0.05;
    /// Default chance of abstaining.
    pub const ABSTAIN: f64 = 0.1;

    /// A policy with the given parameters.
    pub fn new(propose: f64, abstain: f64, templates: Arc<Templates>) -> RandomPolicy {
        RandomPolicy { propose, abstain, templates }
    }

    /// The policy with default parameters.
    pub fn default_with(templates: Arc<Templates>) -> RandomPolicy {
        RandomPolicy::new(Self::PROPOSE, Self::ABSTAIN, templates)
    }

    /// Decides. Draws, in order: discussion: chance(propose), then index(4) and the chosen
    /// kind's draws; voting: chance(abstain) when abstaining is allowed, then index(targets).
    pub fn act(&self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        let targets = &obs.legal.targets;
        let kind = if obs.is_voting() {
            if obs.allow_abstain && rng.chance(self.abstain) {
                ActionKind::Abstain
            } else {
                ActionKind::Vote { target: targets[rng.index(targets.len())] }
            }
        } else if rng.chance(self.propose) {
            ActionKind::ProposeVote
        } else {
            match rng.index(4) {
                0 => ActionKind::Discuss { message: self.templates.neutral(rng) },
                1 => ActionKind::Accuse { target: targets[rng.index(targets.len())] },
                2 => {
                    let (reasoning, defense_statement) = self.templates.defense(rng);
                    ActionKind::Defend { reasoning, defense_statement }
                }
                _ => ActionKind::Pass,
            }
        };
        GameAction::new(obs.agent_id, kind)
    }
}
