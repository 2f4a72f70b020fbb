//! The policies (§10–§11): spec parsing, the per-seat [`Policy`] enum, and what a choice was.
//!
//! Every agent is both debater and operator over a game, so every policy handles both roles.
//! Scripted policies are stateless apart from the seat's random stream, which the engine
//! recreates per episode: a seed's record never depends on what ran before it. An `llm` seat
//! keeps only per-episode counters (and, for replays, its calls), reset before every episode;
//! its random draws are its fallback's.

pub mod debater;
pub mod llm;
pub mod outside;
pub mod templates;

use crate::field::{choice, policy_path, unit, within};
use crate::games::trolley::engine::TrolleyAction;
use crate::games::trolley::state::TrolleyState;
use crate::games::trolley::vocab::Decision;
use crate::games::Entry;
use crate::llm::LlmStats;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

pub use debater::{Debater, DebaterParams, Drawn, OperatorRule, Template};
pub use llm::{LlmCall, LlmParams, LlmPolicy};
pub use outside::OutsideSeat;
pub use templates::Templates;

/// The policy names for `coordinator list`.
pub const POLICIES: [Entry; 6] = [
    Entry {
        name: "debater",
        about: "debater[?persuasion=0.5&skip=0.1&operator=persuadable&bias=0.2&p_majority=0.5]: template arguments; decides by `operator`",
    },
    Entry { name: "utilitarian", about: "utilitarian[?persuasion=…&skip=…]: debater whose operator always saves the majority" },
    Entry { name: "random", about: "random[?…&p_majority=0.5]: debater whose operator saves the majority with probability p_majority" },
    Entry { name: "persuadable", about: "persuadable[?…&bias=0.2]: debater whose operator weighs the arguments, prior `bias` for the larger side" },
    Entry { name: "contrarian", about: "contrarian[?…]: debater whose operator saves the side with the smaller argument weight" },
    Entry {
        name: "llm",
        about: "llm?model=M&endpoint=URL[&api_key_env=OPENAI_API_KEY&temperature=0&max_tokens=300&timeout_s=30\
                &max_retries=2&rpm=N&tpm=N&fallback=debater]: an OpenAI-compatible chat model",
    },
];

/// The parameter keys of `debater`, in the spec's order.
const KEYS: [&str; 5] = ["persuasion", "skip", "operator", "bias", "p_majority"];

/// Parses one seat's scripted policy spec (§10): `debater` or an alias. `llm` is refused here
/// (it is no scripted policy: [`Policy::parse`] handles it, and it cannot be a fallback).
pub fn parse(seat: usize, spec: &Spec) -> Result<DebaterParams, JobError> {
    let alias = match spec.name.as_str() {
        "debater" => None,
        "utilitarian" => Some(OperatorRule::Utilitarian),
        "random" => Some(OperatorRule::Random),
        "persuadable" => Some(OperatorRule::Persuadable),
        "contrarian" => Some(OperatorRule::Contrarian),
        "llm" => {
            return Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                "llm",
                "`llm` is not a scripted policy (an llm fallback must be debater or one of its aliases)",
            ))
        }
        other => {
            let known: Vec<_> = POLICIES.iter().map(|e| e.name).collect();
            return Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                other,
                format!("unknown policy (known: {})", known.join(", ")),
            ));
        }
    };
    if let Some(arg) = &spec.arg {
        return Err(JobError::invalid(format!("policy_set[{seat}]"), arg, "trolley policies take no `:` argument"));
    }
    let mut p = DebaterParams { operator: alias.unwrap_or(OperatorRule::Persuadable), ..DebaterParams::default() };
    for (i, (key, raw)) in spec.params.iter().enumerate() {
        let path = policy_path(seat, key);
        if spec.params[..i].iter().any(|(k, _)| k == key) {
            return Err(JobError::invalid(path, raw, "parameter given twice"));
        }
        match key.as_str() {
            "persuasion" => p.persuasion = unit(&path, raw)?,
            "skip" => p.skip = unit(&path, raw)?,
            "bias" => p.bias = within(&path, raw, -0.5, 0.5)?,
            "p_majority" => p.p_majority = unit(&path, raw)?,
            "operator" if alias.is_some() => {
                return Err(JobError::invalid(
                    path,
                    raw,
                    format!("`{}` already fixes the operator rule; use debater?operator=…", spec.name),
                ));
            }
            "operator" => {
                p.operator = OperatorRule::ALL[choice(&path, raw, &OperatorRule::ALL.map(OperatorRule::as_str))?]
            }
            _ => {
                return Err(JobError::invalid(path, raw, format!("unknown parameter (known: {})", KEYS.join(", "))));
            }
        }
    }
    Ok(p)
}

/// Why a policy chose what it chose (rendered as the replay's `reasoning` only when asked).
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// A scripted choice: the figures it was drawn with.
    Scripted(Drawn),
    /// An `llm` seat's model chose; its `reasoning` (cut to 2000 characters, empty if none).
    Model(String),
    /// An `llm` seat spent its attempts; its fallback policy chose, for this reason.
    LlmFallback(Box<Reason>),
    /// An outside seat (its spec) answered.
    Outside(String),
}

impl Reason {
    /// The replay's `reasoning` text.
    pub fn describe(&self) -> String {
        match self {
            Reason::Scripted(drawn) => drawn.describe(),
            Reason::Model(reasoning) if reasoning.is_empty() => "model (no reasoning given)".into(),
            Reason::Model(reasoning) => reasoning.clone(),
            Reason::LlmFallback(inner) => format!("llm attempts spent; fallback {}", inner.describe()),
            Reason::Outside(spec) => format!("{spec} answered"),
        }
    }
}

/// One seat's policy, ready to play.
#[derive(Debug)]
pub enum Policy {
    /// `debater` and its aliases.
    Debater(Debater),
    /// `llm` (boxed: it carries a client, counters and a call log).
    Llm(Box<LlmPolicy>),
    /// `python:…`, or a Python environment's `agent` (boxed: it carries its transport).
    Outside(Box<OutsideSeat>),
}

impl Policy {
    /// Builds a scripted seat's policy from its parsed parameters and the game's templates.
    pub fn new(params: DebaterParams, templates: &'static Templates) -> Policy {
        Policy::Debater(Debater::new(params, templates))
    }

    /// Parses the spec of `seat` (§10, §11). An `llm` seat needs a transport in `env.chat`.
    pub fn parse(seat: usize, spec: &Spec, templates: &'static Templates, env: &RunEnv) -> Result<Policy, JobError> {
        if let Some(transport) = crate::outside::transport_for("trolley", seat, spec, env) {
            return Ok(Policy::Outside(Box::new(OutsideSeat::new(seat, spec, transport?, templates))));
        }
        match spec.name.as_str() {
            "llm" => Ok(Policy::Llm(Box::new(LlmPolicy::parse(seat, spec, templates, env)?))),
            _ => Ok(Policy::new(parse(seat, spec)?, templates)),
        }
    }

    /// Starts the episode of `seed`; `keep_calls` makes an `llm` seat keep its calls for the
    /// replay.
    pub fn reset(&mut self, keep_calls: bool, seed: u64) {
        match self {
            Policy::Llm(p) => p.reset(keep_calls),
            Policy::Outside(p) => p.reset(seed),
            Policy::Debater(_) => {}
        }
    }

    /// The action of `seat` in the current round; random draws come from the seat's stream.
    pub fn act(&mut self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        match self {
            Policy::Debater(d) => d.act(state, seat, rng),
            Policy::Llm(p) => p.act(state, seat, rng),
            Policy::Outside(p) => p.act(state, seat, rng),
        }
    }

    /// The episode's faults, for outside seats that count them.
    pub fn outside_faults(&self) -> Option<crate::outside::SeatFaults> {
        match self {
            Policy::Outside(p) => p.faults(),
            _ => None,
        }
    }

    /// The episode's `llm` stats, for `llm` seats.
    pub fn llm_stats(&self) -> Option<&LlmStats> {
        match self {
            Policy::Llm(p) => Some(p.stats()),
            _ => None,
        }
    }

    /// The episode's calls, for `llm` seats asked to keep them.
    pub fn llm_calls(&self) -> &[LlmCall] {
        match self {
            Policy::Llm(p) => p.calls(),
            _ => &[],
        }
    }
}

/// The decision a fallback applies (§7): `default_decision`.
pub fn fallback_decision(state: &TrolleyState) -> Decision {
    state.config().default_decision
}
