//! Scenarios (§2): the configurable rules, the named scenarios and how a job's scenario string
//! (`NAME?field=value&…`) becomes a validated [`ScenarioConfig`].
//!
//! Parsing here only turns words and digits into typed values; whether a value is allowed is
//! decided by [`super::rules::validate_field`], field by field in table order, so the first
//! failure reported is the first in the spec's table.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::rules;
use crate::field;
use crate::games::Entry;
use crate::protocol::JobError;
use crate::spec::Spec;

/// How a vote ejects (§5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EjectRule {
    /// The single most-voted agent is ejected.
    Plurality,
    /// The leader is ejected only with more than half of the active agents' votes.
    AbsoluteMajority,
}

impl EjectRule {
    /// The word written in scenario strings.
    pub const fn as_str(self) -> &'static str {
        match self {
            EjectRule::Plurality => "plurality",
            EjectRule::AbsoluteMajority => "absolute_majority",
        }
    }
}

/// What a plurality tie does (§5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TiePolicy {
    /// Nobody is ejected.
    NoEject,
    /// One of the tied leaders, drawn from the environment stream, is ejected.
    Random,
}

impl TiePolicy {
    /// The word written in scenario strings.
    pub const fn as_str(self) -> &'static str {
        match self {
            TiePolicy::NoEject => "no_eject",
            TiePolicy::Random => "random",
        }
    }
}

/// Who wins when `max_ticks` votes pass without a decision (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutWinner {
    /// The imposters survived: they win.
    Imposters,
    /// Nobody wins.
    None,
}

impl TimeoutWinner {
    /// The word written in scenario strings.
    pub const fn as_str(self) -> &'static str {
        match self {
            TimeoutWinner::Imposters => "imposters",
            TimeoutWinner::None => "none",
        }
    }
}

/// What replaces an invalid action (§8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvalidActionFallback {
    /// `pass` in discussion; `abstain` (or a random vote when abstaining is not allowed).
    Pass,
    /// What the default `random` policy would do.
    Random,
}

impl InvalidActionFallback {
    /// The word written in scenario strings.
    pub const fn as_str(self) -> &'static str {
        match self {
            InvalidActionFallback::Pass => "pass",
            InvalidActionFallback::Random => "random",
        }
    }
}

/// A scenario: its name plus every field of §2.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioConfig {
    /// The named scenario it started from.
    pub name: Cow<'static, str>,
    /// N, 4..=10.
    pub num_agents: u32,
    /// M, ≥ 1 with 2M < N.
    pub num_imposters: u32,
    /// 1..=200 votes at most.
    pub max_ticks: u32,
    /// Round-robins over the active agents per tick, 0..=10.
    pub discussion_rounds_per_tick: u32,
    /// Plurality or absolute majority.
    pub eject_rule: EjectRule,
    /// What a plurality tie does.
    pub tie_policy: TiePolicy,
    /// The winner of a timeout.
    pub timeout_winner: TimeoutWinner,
    /// Whether `abstain` is a legal vote.
    pub allow_abstain: bool,
    /// The substitute of an invalid action.
    pub invalid_action_fallback: InvalidActionFallback,
}

/// A field of §2, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScenarioField {
    /// `num_agents`.
    NumAgents,
    /// `num_imposters`.
    NumImposters,
    /// `max_ticks`.
    MaxTicks,
    /// `discussion_rounds_per_tick`.
    DiscussionRoundsPerTick,
    /// `eject_rule`.
    EjectRule,
    /// `tie_policy`.
    TiePolicy,
    /// `timeout_winner`.
    TimeoutWinner,
    /// `allow_abstain`.
    AllowAbstain,
    /// `invalid_action_fallback`.
    InvalidActionFallback,
}

impl ScenarioField {
    /// Every field, in the order of the spec's table (and of validation).
    pub const ALL: [ScenarioField; 9] = [
        ScenarioField::NumAgents,
        ScenarioField::NumImposters,
        ScenarioField::MaxTicks,
        ScenarioField::DiscussionRoundsPerTick,
        ScenarioField::EjectRule,
        ScenarioField::TiePolicy,
        ScenarioField::TimeoutWinner,
        ScenarioField::AllowAbstain,
        ScenarioField::InvalidActionFallback,
    ];

    /// The field name.
    pub const fn name(self) -> &'static str {
        match self {
            ScenarioField::NumAgents => "num_agents",
            ScenarioField::NumImposters => "num_imposters",
            ScenarioField::MaxTicks => "max_ticks",
            ScenarioField::DiscussionRoundsPerTick => "discussion_rounds_per_tick",
            ScenarioField::EjectRule => "eject_rule",
            ScenarioField::TiePolicy => "tie_policy",
            ScenarioField::TimeoutWinner => "timeout_winner",
            ScenarioField::AllowAbstain => "allow_abstain",
            ScenarioField::InvalidActionFallback => "invalid_action_fallback",
        }
    }
}

/// Every field of the named scenario `name` with its value there (`coordinator list`).
pub fn field_defaults(name: &str) -> Option<Vec<crate::games::FieldDefault>> {
    let cfg = ScenarioConfig::named(name)?;
    Some(ScenarioField::ALL.iter().map(|f| crate::games::FieldDefault::new(f.name(), cfg.value_of(*f))).collect())
}

/// A scenario that fails validation: the field and why (what `reset` returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The field at fault.
    pub field: ScenarioField,
    /// What is wrong, for a person.
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid scenario.{}: {}", self.field.name(), self.reason)
    }
}

impl std::error::Error for ConfigError {}

/// The named scenarios; the first is the default.
pub const SCENARIOS: &[Entry] = &[
    Entry { name: "classic_5p1i", about: "5 agents, 1 imposter, 20 ticks, 2 discussion rounds; all defaults" },
    Entry { name: "quick_4p1i", about: "4 agents, 1 imposter, 6 ticks, 1 discussion round" },
    Entry { name: "crowded_8p2i", about: "8 agents, 2 imposters, 20 ticks, 2 discussion rounds" },
    Entry { name: "strict_majority_7p2i", about: "7 agents, 2 imposters, 20 ticks; eject_rule=absolute_majority" },
    Entry {
        name: "tiebreak_6p1i",
        about: "6 agents, 1 imposter, 12 ticks; tie_policy=random, timeout_winner=none, allow_abstain=false",
    },
];

impl ScenarioConfig {
    /// A named scenario, or `None` for an unknown name.
    pub fn named(name: &str) -> Option<ScenarioConfig> {
        let base = |name: &'static str, n, m, ticks, rounds| ScenarioConfig {
            name: Cow::Borrowed(name),
            num_agents: n,
            num_imposters: m,
            max_ticks: ticks,
            discussion_rounds_per_tick: rounds,
            eject_rule: EjectRule::Plurality,
            tie_policy: TiePolicy::NoEject,
            timeout_winner: TimeoutWinner::Imposters,
            allow_abstain: true,
            invalid_action_fallback: InvalidActionFallback::Pass,
        };
        Some(match name {
            "classic_5p1i" => base("classic_5p1i", 5, 1, 20, 2),
            "quick_4p1i" => base("quick_4p1i", 4, 1, 6, 1),
            "crowded_8p2i" => base("crowded_8p2i", 8, 2, 20, 2),
            "strict_majority_7p2i" => {
                ScenarioConfig { eject_rule: EjectRule::AbsoluteMajority, ..base("strict_majority_7p2i", 7, 2, 20, 2) }
            }
            "tiebreak_6p1i" => ScenarioConfig {
                tie_policy: TiePolicy::Random,
                timeout_winner: TimeoutWinner::None,
                allow_abstain: false,
                ..base("tiebreak_6p1i", 6, 1, 12, 2)
            },
            _ => return None,
        })
    }

    /// The default scenario, `classic_5p1i`.
    pub fn classic() -> ScenarioConfig {
        ScenarioConfig::named("classic_5p1i").expect("the default scenario exists")
    }

    /// Parses and validates a job's scenario string. Errors are `invalid_job` naming
    /// `scenario.<field>` (or `scenario` for the name) and the value as written.
    pub fn from_spec(spec: &Spec) -> Result<ScenarioConfig, JobError> {
        if let Some(arg) = &spec.arg {
            return Err(JobError::invalid("scenario", arg, "deception scenarios take no `:` argument"));
        }
        let mut cfg = ScenarioConfig::named(&spec.name).ok_or_else(|| {
            let known: Vec<&str> = SCENARIOS.iter().map(|e| e.name).collect();
            JobError::invalid("scenario", &spec.name, format!("unknown scenario (known: {})", known.join(", ")))
        })?;
        for (i, (k, v)) in spec.params.iter().enumerate() {
            if !ScenarioField::ALL.iter().any(|f| f.name() == k) {
                return Err(JobError::invalid(field::scenario_path(k), v, "unknown field"));
            }
            if spec.params[..i].iter().any(|(pk, _)| pk == k) {
                return Err(JobError::invalid(field::scenario_path(k), v, "field given twice"));
            }
        }
        for f in ScenarioField::ALL {
            let raw = spec.get(f.name());
            if let Some(raw) = raw {
                cfg.set(f, raw)?;
            }
            rules::validate_field(&cfg, f).map_err(|e| {
                let value = raw.map(str::to_string).unwrap_or_else(|| cfg.value_of(f));
                JobError::invalid(field::scenario_path(f.name()), value, e.reason)
            })?;
        }
        Ok(cfg)
    }

    /// Sets `f` from its written form: decimal integers or the listed words. Only the syntax is
    /// checked here; ranges are the rules' business.
    fn set(&mut self, f: ScenarioField, raw: &str) -> Result<(), JobError> {
        let path = field::scenario_path(f.name());
        // Integers too large or negative for u32 are kept as u32::MAX, which every range of §2
        // rejects, so the rules module words the error.
        let int = || -> Result<u32, JobError> {
            let v = field::int(&path, raw, i64::MIN, i64::MAX)?;
            Ok(u32::try_from(v).unwrap_or(u32::MAX))
        };
        match f {
            ScenarioField::NumAgents => self.num_agents = int()?,
            ScenarioField::NumImposters => self.num_imposters = int()?,
            ScenarioField::MaxTicks => self.max_ticks = int()?,
            ScenarioField::DiscussionRoundsPerTick => self.discussion_rounds_per_tick = int()?,
            ScenarioField::EjectRule => {
                self.eject_rule = [EjectRule::Plurality, EjectRule::AbsoluteMajority]
                    [field::choice(&path, raw, &["plurality", "absolute_majority"])?]
            }
            ScenarioField::TiePolicy => {
                self.tie_policy =
                    [TiePolicy::NoEject, TiePolicy::Random][field::choice(&path, raw, &["no_eject", "random"])?]
            }
            ScenarioField::TimeoutWinner => {
                self.timeout_winner =
                    [TimeoutWinner::Imposters, TimeoutWinner::None][field::choice(&path, raw, &["imposters", "none"])?]
            }
            ScenarioField::AllowAbstain => self.allow_abstain = field::boolean(&path, raw)?,
            ScenarioField::InvalidActionFallback => {
                self.invalid_action_fallback = [InvalidActionFallback::Pass, InvalidActionFallback::Random]
                    [field::choice(&path, raw, &["pass", "random"])?]
            }
        }
        Ok(())
    }

    /// The resolved value of `f`, as it would be written in a scenario string.
    pub fn value_of(&self, f: ScenarioField) -> String {
        match f {
            ScenarioField::NumAgents => self.num_agents.to_string(),
            ScenarioField::NumImposters => self.num_imposters.to_string(),
            ScenarioField::MaxTicks => self.max_ticks.to_string(),
            ScenarioField::DiscussionRoundsPerTick => self.discussion_rounds_per_tick.to_string(),
            ScenarioField::EjectRule => self.eject_rule.as_str().to_string(),
            ScenarioField::TiePolicy => self.tie_policy.as_str().to_string(),
            ScenarioField::TimeoutWinner => self.timeout_winner.as_str().to_string(),
            ScenarioField::AllowAbstain => self.allow_abstain.to_string(),
            ScenarioField::InvalidActionFallback => self.invalid_action_fallback.as_str().to_string(),
        }
    }
}
