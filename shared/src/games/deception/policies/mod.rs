//! The policies of §10, parsed from a job's policy set: `random`, `heuristic` and `llm`.
//!
//! A policy is built per seat at `prepare` and reset before every episode; `act` gets the
//! seat's observation and the seat's own stream, and nothing else.

use std::sync::Arc;

use super::action::GameAction;
use super::observation::AgentObservation;
use crate::field;
use crate::games::Entry;
use crate::llm::LlmStats;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

pub mod heuristic;
pub mod llm;
pub mod outside;
pub mod random;
pub mod templates;

pub use heuristic::{HeuristicParams, HeuristicPolicy};
pub use llm::{LlmCall, LlmPolicy};
pub use outside::OutsideSeat;
pub use random::RandomPolicy;
pub use templates::Templates;

/// The policy names with their spec syntax, for `coordinator list`.
pub const POLICIES: &[Entry] = &[
    Entry { name: "random", about: "random[?propose=0.05&abstain=0.1]: uniform over legal actions and targets" },
    Entry {
        name: "heuristic",
        about: "heuristic[?suspicion_from_accusation=0.3&defense_credibility=0.5&bandwagon=0.5&aggression=0.5&deflection=0.5]: \
                plays its role from public heat and private suspicion",
    },
    Entry {
        name: "llm",
        about: "llm?model=M&endpoint=URL[&api_key_env=OPENAI_API_KEY&temperature=0&max_tokens=300&timeout_s=30\
                &max_retries=2&rpm=N&tpm=N&history=60&fallback=heuristic]: an OpenAI-compatible chat model",
    },
];

/// A policy that needs no I/O: `random` or `heuristic`.
#[derive(Clone, Debug)]
pub enum ScriptedPolicy {
    /// §10.1.
    Random(RandomPolicy),
    /// §10.2.
    Heuristic(HeuristicPolicy),
}

impl ScriptedPolicy {
    /// Parses a scripted spec for `seat`; errors name `policy_set[<seat>].<param>`.
    pub fn parse(spec: &Spec, seat: usize, templates: &Arc<Templates>) -> Result<ScriptedPolicy, JobError> {
        match spec.name.as_str() {
            "random" => {
                check_keys(spec, seat, &["propose", "abstain"])?;
                let p = |k: &str, d: f64| spec.get(k).map_or(Ok(d), |v| field::unit(&field::policy_path(seat, k), v));
                Ok(ScriptedPolicy::Random(RandomPolicy::new(
                    p("propose", RandomPolicy::PROPOSE)?,
                    p("abstain", RandomPolicy::ABSTAIN)?,
                    templates.clone(),
                )))
            }
            "heuristic" => {
                let keys =
                    ["suspicion_from_accusation", "defense_credibility", "bandwagon", "aggression", "deflection"];
                check_keys(spec, seat, &keys)?;
                let d = HeuristicParams::default();
                let p = |k: &str, d: f64| spec.get(k).map_or(Ok(d), |v| field::unit(&field::policy_path(seat, k), v));
                let params = HeuristicParams {
                    suspicion_from_accusation: p(keys[0], d.suspicion_from_accusation)?,
                    defense_credibility: p(keys[1], d.defense_credibility)?,
                    bandwagon: p(keys[2], d.bandwagon)?,
                    aggression: p(keys[3], d.aggression)?,
                    deflection: p(keys[4], d.deflection)?,
                };
                if params.suspicion_from_accusation <= 0.0 {
                    return Err(JobError::invalid(
                        field::policy_path(seat, keys[0]),
                        spec.get(keys[0]).unwrap_or("0"),
                        "must be greater than 0",
                    ));
                }
                Ok(ScriptedPolicy::Heuristic(HeuristicPolicy::new(params, templates.clone())))
            }
            other => Err(unknown_policy(seat, other, "random, heuristic")),
        }
    }

    /// Forgets the episode.
    pub fn reset(&mut self) {
        if let ScriptedPolicy::Heuristic(h) = self {
            h.reset();
        }
    }

    /// Decides.
    pub fn act(&mut self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        match self {
            ScriptedPolicy::Random(p) => p.act(obs, rng),
            ScriptedPolicy::Heuristic(p) => p.act(obs, rng),
        }
    }
}

/// The policy of one seat.
#[derive(Debug)]
pub enum SeatPolicy {
    /// `random` or `heuristic`.
    Scripted(ScriptedPolicy),
    /// `llm` (boxed: it carries a client and a call log).
    Llm(Box<LlmPolicy>),
    /// `python:…`, or a Python environment's `agent` (boxed: it carries its transport).
    Outside(Box<OutsideSeat>),
    /// Tests only: always plays this action, legal or not (exercises §8's fallbacks).
    #[cfg(test)]
    Puppet(super::action::ActionKind),
}

impl SeatPolicy {
    /// Parses the spec of `seat`. An `llm` seat needs `env.chat`.
    pub fn parse(spec: &Spec, seat: usize, templates: &Arc<Templates>, env: &RunEnv) -> Result<SeatPolicy, JobError> {
        if let Some(transport) = crate::outside::transport_for("deception", seat, spec, env) {
            return Ok(SeatPolicy::Outside(Box::new(OutsideSeat::new(seat, spec, transport?, templates.clone()))));
        }
        match spec.name.as_str() {
            "llm" => Ok(SeatPolicy::Llm(Box::new(LlmPolicy::parse(spec, seat, templates, env)?))),
            "random" | "heuristic" => Ok(SeatPolicy::Scripted(ScriptedPolicy::parse(spec, seat, templates)?)),
            other => Err(unknown_policy(seat, other, "random, heuristic, llm")),
        }
    }

    /// Starts the episode of `seed`; `replay` says whether to keep an `llm` call log.
    pub fn reset(&mut self, replay: bool, seed: u64) {
        match self {
            SeatPolicy::Scripted(p) => p.reset(),
            SeatPolicy::Llm(p) => p.reset(replay),
            SeatPolicy::Outside(p) => p.reset(seed),
            #[cfg(test)]
            SeatPolicy::Puppet(_) => {}
        }
    }

    /// Decides.
    pub fn act(&mut self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        match self {
            SeatPolicy::Scripted(p) => p.act(obs, rng),
            SeatPolicy::Llm(p) => p.act(obs, rng),
            SeatPolicy::Outside(p) => p.act(obs, rng),
            #[cfg(test)]
            SeatPolicy::Puppet(kind) => GameAction::new(obs.agent_id, kind.clone()),
        }
    }

    /// The episode's `llm` stats, for `llm` seats.
    pub fn llm_stats(&self) -> Option<&LlmStats> {
        match self {
            SeatPolicy::Llm(p) => Some(p.stats()),
            _ => None,
        }
    }

    /// The episode's faults, for outside seats.
    pub fn outside_faults(&self) -> Option<crate::outside::SeatFaults> {
        match self {
            SeatPolicy::Outside(p) => p.faults(),
            _ => None,
        }
    }

    /// The episode's calls, for `llm` seats asked to keep them.
    pub fn llm_calls(&self) -> &[LlmCall] {
        match self {
            SeatPolicy::Llm(p) => p.calls(),
            _ => &[],
        }
    }
}

fn unknown_policy(seat: usize, name: &str, known: &str) -> JobError {
    JobError::invalid(format!("policy_set[{seat}]"), name, format!("unknown policy (known: {known})"))
}

/// Rejects a `:ARG`, unknown keys and repeated keys.
pub(crate) fn check_keys(spec: &Spec, seat: usize, known: &[&str]) -> Result<(), JobError> {
    if let Some(arg) = &spec.arg {
        return Err(JobError::invalid(
            format!("policy_set[{seat}]"),
            arg,
            format!("{} takes no `:` argument", spec.name),
        ));
    }
    for (i, (k, v)) in spec.params.iter().enumerate() {
        if !known.contains(&k.as_str()) {
            return Err(JobError::invalid(
                field::policy_path(seat, k),
                v,
                format!("unknown parameter of {} (known: {})", spec.name, known.join(", ")),
            ));
        }
        if spec.params[..i].iter().any(|(pk, _)| pk == k) {
            return Err(JobError::invalid(field::policy_path(seat, k), v, "parameter given twice"));
        }
    }
    Ok(())
}
