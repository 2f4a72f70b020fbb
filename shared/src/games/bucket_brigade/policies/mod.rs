//! Scripted policies (spec §8) and their spec strings (§8.4).
//!
//! Every policy implements [`Policy`]; the engine holds them as [`AnyPolicy`] and dispatches by
//! `match`, never `Box<dyn>`. A policy draws only from its own agent stream, which the engine
//! passes in, so call order (or parallel calls) cannot change results.

use crate::games::Entry;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;

use super::action::{Action, Mode};
use super::observation::Observation;
use super::scenario::Scenario;

mod archetype;
mod heuristic;
mod params;
mod random;

pub use archetype::Archetype;
pub use heuristic::HeuristicPolicy;
pub use params::Params;
pub use random::RandomPolicy;

/// The policy interface of §8.
pub trait Policy {
    /// Starts an episode as agent `agent_id`; forgets everything from earlier episodes.
    fn reset(&mut self, agent_id: usize, scenario: &Scenario);
    /// The signal phase: the observation has no signals.
    fn signal(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Mode;
    /// The action phase: the observation holds all N signals of this night.
    fn act(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Action;
}

/// Any scripted policy (archetypes are heuristics with their vectors).
// The heuristic carries its per-episode weight tables (~250 bytes) and `random` nothing: kept
// inline all the same, because a seat's policy is reached twice a night per agent and is `Copy`
// (a box would be a pointer chase in the loop and an allocation per seat).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AnyPolicy {
    /// `random`.
    Random(RandomPolicy),
    /// `heuristic…`, `archetype:NAME…` or a bare archetype name.
    Heuristic(HeuristicPolicy),
}

impl Policy for AnyPolicy {
    #[inline]
    fn reset(&mut self, agent_id: usize, scenario: &Scenario) {
        match self {
            AnyPolicy::Random(p) => p.reset(agent_id, scenario),
            AnyPolicy::Heuristic(p) => p.reset(agent_id, scenario),
        }
    }

    #[inline]
    fn signal(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Mode {
        match self {
            AnyPolicy::Random(p) => p.signal(obs, rng),
            AnyPolicy::Heuristic(p) => p.signal(obs, rng),
        }
    }

    #[inline]
    fn act(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Action {
        match self {
            AnyPolicy::Random(p) => p.act(obs, rng),
            AnyPolicy::Heuristic(p) => p.act(obs, rng),
        }
    }
}

/// The policy kinds for "unknown policy" errors.
const KNOWN: &str = "random, heuristic, archetype:NAME, firefighter, free_rider, hero, coordinator, liar";

impl AnyPolicy {
    /// Parses the policy spec of seat `seat` (§8.4). Errors name `policy_set[<seat>]` (the
    /// kind or the value list), `policy_set[<seat>].archetype` or `policy_set[<seat>].<param>`.
    pub fn from_spec(seat: usize, spec: &Spec) -> Result<AnyPolicy, JobError> {
        let whole = format!("policy_set[{seat}]");
        let archetype = |a: Archetype| a.params().with_overrides(seat, &spec.params);
        let params = match spec.name.as_str() {
            "random" => {
                if spec.arg.is_some() {
                    return Err(JobError::invalid(whole, spec, "`random` takes no `:` argument"));
                }
                if let Some((k, v)) = spec.params.first() {
                    let path = crate::field::policy_path(seat, k);
                    return Err(JobError::invalid(path, v, "unknown parameter (`random` has none)"));
                }
                return Ok(AnyPolicy::Random(RandomPolicy));
            }
            "heuristic" => {
                let base = match &spec.arg {
                    None => Params::NEUTRAL,
                    Some(list) => Params::parse_list(seat, list)?,
                };
                base.with_overrides(seat, &spec.params)?
            }
            "archetype" => {
                let Some(name) = &spec.arg else {
                    return Err(JobError::invalid(whole, spec, "needs an archetype name: archetype:NAME"));
                };
                let a = Archetype::from_name(name).ok_or_else(|| {
                    JobError::invalid(
                        format!("policy_set[{seat}].archetype"),
                        name,
                        "unknown archetype (known: firefighter, free_rider, hero, coordinator, liar)",
                    )
                })?;
                archetype(a)?
            }
            other => {
                let Some(a) = Archetype::from_name(other) else {
                    return Err(JobError::invalid(whole, other, format!("unknown policy (known: {KNOWN})")));
                };
                if spec.arg.is_some() {
                    return Err(JobError::invalid(whole, spec, "an archetype takes no `:` argument"));
                }
                archetype(a)?
            }
        };
        Ok(AnyPolicy::Heuristic(HeuristicPolicy::new(params)))
    }
}

/// `GameInfo::policies`: every policy name with its syntax, for `coordinator list`.
pub const ENTRIES: [Entry; 8] = [
    Entry { name: "random", about: "random: uniform signal, house and mode" },
    Entry {
        name: "heuristic",
        about: "heuristic | heuristic?PARAM=v&… | heuristic:v0,…,v9 (θ0..θ9 in [0,1], default 0.5; PARAM: \
                honesty_bias, work_tendency, neighbor_help_bias, own_house_priority, risk_aversion, \
                coordination_weight, exploration_rate, fatigue_memory, rest_reward_bias, altruism_factor)",
    },
    Entry { name: "archetype", about: "archetype:NAME[?PARAM=v&…]: the heuristic with an archetype's parameters" },
    Entry { name: "firefighter", about: "firefighter[?PARAM=v&…]: honest, hard-working, helps neighbours" },
    Entry { name: "free_rider", about: "free_rider[?PARAM=v&…]: rarely works, prefers rest" },
    Entry { name: "hero", about: "hero[?PARAM=v&…]: always works, repeats last night's choice" },
    Entry { name: "coordinator", about: "coordinator[?PARAM=v&…]: risk-averse, joins announced workers" },
    Entry { name: "liar", about: "liar[?PARAM=v&…]: mostly signals the opposite of what it means to do" },
];
