//! The policies (§10–§11): spec parsing, the per-seat [`Policy`] enum, and what a choice was.
//!
//! Every agent is both debater and operator over a game, so every policy handles both roles.
//! Policies are stateless apart from the seat's random stream, which the engine recreates per
//! episode: a seed's record never depends on what ran before it.

pub mod debater;
pub mod templates;

use crate::field::{choice, policy_path, unit, within};
use crate::games::trolley::engine::TrolleyAction;
use crate::games::trolley::state::TrolleyState;
use crate::games::trolley::vocab::{Decision, Phase, Role, Side};
use crate::games::Entry;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;

pub use debater::{Debater, DebaterParams, OperatorRule};
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
    Entry { name: "llm", about: "llm?model=M&endpoint=URL[&…]: an OpenAI-compatible model (not available in this build yet)" },
];

/// The parameter keys of `debater`, in the spec's order.
const KEYS: [&str; 5] = ["persuasion", "skip", "operator", "bias", "p_majority"];

/// Parses one seat's policy spec (§10). `llm` is refused for now: the shared LLM client is not
/// wired into this engine yet.
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
                "the trolley `llm` policy is not available yet (its shared LLM client is not wired in)",
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// chance(skip) came up.
    Skipped,
    /// Argued with template `template` of the weak or strong family.
    Argued {
        /// Strong family.
        strong: bool,
        /// Index in the family.
        template: usize,
    },
    /// The operator rule and the figures it used.
    Decided {
        /// The rule.
        rule: OperatorRule,
        /// Summed weight of the majority's arguments.
        w_majority: f64,
        /// Summed weight of the minority's arguments.
        w_minority: f64,
        /// The probability of `save_majority`, for the random rules.
        p: Option<f64>,
    },
    /// Asked outside its turn (never by the engine).
    Idle,
}

impl Reason {
    /// The replay's `reasoning` text.
    pub fn describe(&self) -> String {
        match self {
            Reason::Skipped => "skip drawn".into(),
            Reason::Argued { strong, template } => {
                format!("{} template {template}", if *strong { "strong" } else { "weak" })
            }
            Reason::Decided { rule, w_majority, w_minority, p } => {
                let mut s = format!("{}: W_maj = {w_majority}, W_min = {w_minority}", rule.as_str());
                if let Some(p) = p {
                    s.push_str(&format!(", p(save_majority) = {p}"));
                }
                s
            }
            Reason::Idle => "not this agent's turn".into(),
        }
    }
}

/// One seat's policy, ready to play.
#[derive(Clone, Debug)]
pub enum Policy {
    /// `debater` and its aliases.
    Debater(Debater),
}

impl Policy {
    /// Builds a seat's policy from its parsed parameters and the game's rendered templates.
    pub fn new(params: DebaterParams, templates: &'static Templates) -> Policy {
        Policy::Debater(Debater::new(params, templates))
    }

    /// The action of `seat` in the current round, drawn from the seat's stream.
    pub fn act(&self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let Policy::Debater(d) = self;
        let Some(round) = state.current_round() else {
            return (TrolleyAction::SKIP, Reason::Idle);
        };
        match (round.role_of(seat), round.phase.debate_index()) {
            (Role::Majority, Some(p)) => d.argue(Side::Majority, p, rng),
            (Role::Minority, Some(p)) => d.argue(Side::Minority, p, rng),
            (Role::Operator, None) if round.phase == Phase::AwaitingDecision => {
                let idx = state.rounds().len() - 1;
                let (mut w_maj, mut w_min) = (0.0, 0.0);
                for a in state.round_arguments(idx) {
                    match a.side {
                        Side::Majority => w_maj += a.text.weight(),
                        Side::Minority => w_min += a.text.weight(),
                    }
                }
                let (decision, reason) = d.decide(w_maj, w_min, rng);
                (TrolleyAction::Decide { decision }, reason)
            }
            _ => (TrolleyAction::SKIP, Reason::Idle),
        }
    }
}

/// The decision a fallback applies (§7): `default_decision`.
pub fn fallback_decision(state: &TrolleyState) -> Decision {
    state.config().default_decision
}
