//! Request bodies (§12): their JSON shapes, and the create-game body resolved into a rules
//! config plus the arena's clocks.
//!
//! Handlers parse a body only after the game and round lookups (§6 order), so parsing returns
//! a `Result` that the handler reports at the right moment. Shape errors (not JSON, a missing
//! field, a wrong JSON type) are `malformed_body` (422); values of the right type that the
//! game cannot use are `invalid_config` (400), found by the rules' own validation wherever the
//! value fits the config's types. Unknown fields are ignored.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use simfleet::games::trolley::{Decision, MinoritySize, TrolleyConfig, TrolleyError};

/// Parses a JSON body.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, TrolleyError> {
    serde_json::from_slice(bytes).map_err(|e| TrolleyError::MalformedBody(e.to_string()))
}

/// Parses a body whose fields are all optional: an empty body means `{}`.
pub fn parse_optional<T: DeserializeOwned + Default>(bytes: &[u8]) -> Result<T, TrolleyError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        Ok(T::default())
    } else {
        parse(bytes)
    }
}

/// `POST …/agents/register`.
#[derive(Debug, Deserialize)]
pub struct RegisterBody {
    /// 1..=40 characters after trimming (checked by the rules).
    pub display_name: String,
}

/// `POST …/arguments`.
#[derive(Debug, Deserialize)]
pub struct ArgumentBody {
    /// The arguing agent.
    pub agent_id: String,
    /// 1..=500 characters after trimming (checked by the rules).
    pub text: String,
}

/// `POST …/skip`.
#[derive(Debug, Deserialize)]
pub struct SkipBody {
    /// The skipping agent.
    pub agent_id: String,
}

/// `POST …/decision`.
#[derive(Debug, Deserialize)]
pub struct DecisionBody {
    /// The operator.
    pub agent_id: String,
    /// `save_majority` or `save_minority` (checked by the rules).
    pub decision: String,
}

/// `POST …/advance`.
#[derive(Debug, Default, Deserialize)]
pub struct AdvanceBody {
    /// `next_phase` (default) or `resolve_round`.
    pub action: Option<String>,
    /// For `resolve_round`; default the game's `default_decision`.
    pub decision: Option<String>,
}

/// The longest deadline or pause accepted, so that `now + deadline` cannot overflow: a year.
pub const MAX_WAIT_SECONDS: u64 = 365 * 24 * 3600;

/// A game's clocks (§12), in whole seconds; `None` waits indefinitely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// Each debate phase's deadline.
    pub phase_deadline_seconds: Option<u64>,
    /// The operator's deadline.
    pub decision_deadline_seconds: Option<u64>,
    /// The pause between a resolution and the next round (0 = at once, `None` = until an admin
    /// `next_phase`).
    pub round_pause_seconds: Option<u64>,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing { phase_deadline_seconds: Some(120), decision_deadline_seconds: Some(120), round_pause_seconds: Some(5) }
    }
}

impl Timing {
    /// The seconds as durations.
    pub fn durations(&self) -> [Option<Duration>; 3] {
        [self.phase_deadline_seconds, self.decision_deadline_seconds, self.round_pause_seconds]
            .map(|s| s.map(Duration::from_secs))
    }
}

/// `POST /api/games`: every field optional. Present-but-null and absent differ only for the
/// clocks (null = no deadline, absent = the default); a null `default_decision` is the default.
#[derive(Debug, Default, Deserialize)]
pub struct CreateGameBody {
    min_agents: Option<Whole>,
    max_agents: Option<Whole>,
    minority_size: Option<Value>,
    max_rounds: Option<Whole>,
    default_decision: Option<String>,
    seed: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    phase_deadline_seconds: Option<Option<Whole>>,
    #[serde(default, deserialize_with = "present")]
    decision_deadline_seconds: Option<Option<Whole>>,
    #[serde(default, deserialize_with = "present")]
    round_pause_seconds: Option<Option<Whole>>,
}

/// Marks a field as present, so that `null` (`Some(None)`) differs from absent (`None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Whole>>, D::Error> {
    Option::<Whole>::deserialize(d).map(Some)
}

/// A JSON integer as JSON Schema counts them: `29262` and `29262.0` alike (a number whose
/// fraction is zero). Values past `i64` saturate: every field's range is far inside it, so they
/// are refused as out of range all the same. Any other number or type is a shape error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Whole(i64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        whole(&n).map(Whole).ok_or_else(|| serde::de::Error::custom(format!("expected an integer, got {n}")))
    }
}

/// `n` as a whole number, saturated to `i64`; `None` if it has a fraction.
fn whole(n: &serde_json::Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.as_u64().is_some() {
        return Some(i64::MAX);
    }
    // Float to int casts saturate in Rust.
    n.as_f64().filter(|f| f.is_finite() && f.fract() == 0.0).map(|f| f as i64)
}

/// A seed given as a JSON number: `0..2^64`, a zero fraction allowed.
fn seed_of(n: &serde_json::Number) -> Option<u64> {
    // 2^64 as f64 is exact; every smaller integral f64 converts exactly.
    const END: f64 = 18_446_744_073_709_551_616.0;
    n.as_u64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && (0.0..END).contains(f)).map(|f| f as u64))
}

/// A create-game body, resolved.
#[derive(Clone, Copy, Debug)]
pub struct NewGame {
    /// The rules' config (validated by `new_game`).
    pub config: TrolleyConfig,
    /// The seed, if the client chose one.
    pub seed: Option<u64>,
    /// The clocks.
    pub timing: Timing,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> TrolleyError {
    TrolleyError::InvalidConfig { field, reason: reason.into() }
}

/// A number that must fit the config's integer type; out of range is `invalid_config` (the
/// rules check the meaningful bounds once it fits).
fn fit<T: TryFrom<i64>>(field: &'static str, value: i64) -> Result<T, TrolleyError> {
    T::try_from(value).map_err(|_| invalid(field, format!("out of range: {value}")))
}

impl CreateGameBody {
    /// The config, seed and clocks this body asks for.
    pub fn resolve(self) -> Result<NewGame, TrolleyError> {
        let defaults = TrolleyConfig::default();
        let minority_size = match self.minority_size {
            None | Some(Value::Null) => MinoritySize::Balanced,
            Some(Value::String(s)) if s == "balanced" => MinoritySize::Balanced,
            Some(Value::String(s)) => {
                return Err(invalid("minority_size", format!("{s:?}: must be balanced or a number")))
            }
            Some(Value::Number(n)) => match whole(&n) {
                Some(m) => MinoritySize::Fixed(fit("minority_size", m)?),
                None => return Err(invalid("minority_size", format!("{n}: must be a whole number"))),
            },
            Some(other) => {
                return Err(TrolleyError::MalformedBody(format!(
                    "minority_size: expected \"balanced\" or an integer, got {other}"
                )))
            }
        };
        let default_decision = match self.default_decision {
            None => defaults.default_decision,
            Some(d) => Decision::parse(&d)
                .ok_or_else(|| invalid("default_decision", format!("{d:?}: must be save_majority or save_minority")))?,
        };
        let config = TrolleyConfig {
            min_agents: self.min_agents.map_or(Ok(defaults.min_agents), |v| fit("min_agents", v.0))?,
            max_agents: self.max_agents.map_or(Ok(defaults.max_agents), |v| fit("max_agents", v.0))?,
            minority_size,
            max_rounds: self.max_rounds.map(|v| fit("max_rounds", v.0)).transpose()?,
            default_decision,
        };
        let seed = match self.seed {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => {
                Some(seed_of(&n).ok_or_else(|| invalid("seed", format!("{n}: must be 0..2^64")))?)
            }
            // Digits only: `str::parse` would also take a leading `+`, which the schema's pattern
            // does not.
            Some(Value::String(s)) => Some(
                s.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| s.parse().ok())
                    .flatten()
                    .ok_or_else(|| invalid("seed", format!("{s:?}: must be a decimal number 0..2^64")))?,
            ),
            Some(other) => {
                return Err(TrolleyError::MalformedBody(format!(
                    "seed: expected an integer or a decimal string, got {other}"
                )))
            }
        };
        let defaults = Timing::default();
        let timing = Timing {
            phase_deadline_seconds: wait(
                "phase_deadline_seconds",
                self.phase_deadline_seconds,
                defaults.phase_deadline_seconds,
                1,
            )?,
            decision_deadline_seconds: wait(
                "decision_deadline_seconds",
                self.decision_deadline_seconds,
                defaults.decision_deadline_seconds,
                1,
            )?,
            round_pause_seconds: wait(
                "round_pause_seconds",
                self.round_pause_seconds,
                defaults.round_pause_seconds,
                0,
            )?,
        };
        Ok(NewGame { config, seed, timing })
    }
}

/// A clock field: absent → the default, null → none, else `min..=MAX_WAIT_SECONDS`. A deadline
/// of 0 would skip every phase before anyone could act, so deadlines start at 1; a pause of 0
/// means "at once" (§12).
fn wait(
    field: &'static str,
    value: Option<Option<Whole>>,
    default: Option<u64>,
    min: u64,
) -> Result<Option<u64>, TrolleyError> {
    match value {
        None => Ok(default),
        Some(None) => Ok(None),
        Some(Some(Whole(v))) => match u64::try_from(v) {
            Ok(s) if (min..=MAX_WAIT_SECONDS).contains(&s) => Ok(Some(s)),
            _ => Err(invalid(field, format!("must be null or {min}..={MAX_WAIT_SECONDS} seconds, got {v}"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(json: &str) -> Result<NewGame, TrolleyError> {
        parse_optional::<CreateGameBody>(json.as_bytes()).and_then(CreateGameBody::resolve)
    }

    #[test]
    fn defaults_and_explicit_values() {
        let g = create("").unwrap();
        assert_eq!((g.config, g.seed, g.timing), (TrolleyConfig::default(), None, Timing::default()));
        let g = create(
            r#"{"min_agents": 5, "minority_size": 2, "seed": "18446744073709551615", "phase_deadline_seconds": null,
                "round_pause_seconds": 0, "default_decision": "save_minority", "extra": [1]}"#,
        )
        .unwrap();
        assert_eq!(g.config.min_agents, 5);
        assert_eq!(g.config.minority_size, MinoritySize::Fixed(2));
        assert_eq!(g.config.default_decision, Decision::SaveMinority);
        assert_eq!(g.seed, Some(u64::MAX));
        assert_eq!(g.timing.phase_deadline_seconds, None);
        assert_eq!(g.timing.decision_deadline_seconds, Some(120));
        assert_eq!(g.timing.round_pause_seconds, Some(0));
    }

    #[test]
    fn shapes_are_422_and_values_400() {
        let kind = |json: &str| create(json).unwrap_err().kind();
        assert_eq!(kind("{"), "malformed_body");
        assert_eq!(kind("[]"), "malformed_body");
        assert_eq!(kind(r#"{"min_agents": "3"}"#), "malformed_body");
        assert_eq!(kind(r#"{"min_agents": 3.5}"#), "malformed_body");
        assert_eq!(kind(r#"{"minority_size": true}"#), "malformed_body");
        assert_eq!(kind(r#"{"min_agents": 1000}"#), "invalid_config");
        assert_eq!(kind(r#"{"minority_size": "big"}"#), "invalid_config");
        assert_eq!(kind(r#"{"max_rounds": -1}"#), "invalid_config");
        assert_eq!(kind(r#"{"seed": -1}"#), "invalid_config");
        assert_eq!(kind(r#"{"default_decision": "save_all"}"#), "invalid_config");
        assert_eq!(kind(r#"{"phase_deadline_seconds": 0}"#), "invalid_config");
        assert_eq!(kind(r#"{"round_pause_seconds": -1}"#), "invalid_config");
        assert_eq!(kind(r#"{"seed": "+5"}"#), "invalid_config");
        assert_eq!(kind(r#"{"seed": 18446744073709551616}"#), "invalid_config");
        assert_eq!(kind(r#"{"round_pause_seconds": 1e300}"#), "invalid_config");
    }

    #[test]
    fn integers_may_be_written_with_a_zero_fraction_and_null_means_the_default() {
        let g = create(
            r#"{"round_pause_seconds": 29262.0, "min_agents": 6.0, "minority_size": 2.0, "seed": 1e3,
                "max_rounds": 2e0, "default_decision": null}"#,
        )
        .unwrap();
        assert_eq!(g.timing.round_pause_seconds, Some(29262));
        assert_eq!(g.config.min_agents, 6);
        assert_eq!(g.config.minority_size, MinoritySize::Fixed(2));
        assert_eq!(g.config.max_rounds, Some(2));
        assert_eq!(g.seed, Some(1000));
        assert_eq!(g.config.default_decision, TrolleyConfig::default().default_decision);
    }
}
