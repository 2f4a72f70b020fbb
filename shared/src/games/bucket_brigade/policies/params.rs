//! The heuristic policy's ten parameters θ0..θ9 (spec §8.2) and their two written forms:
//! `heuristic:v0,…,v9` and `?name=value&…` overrides. Errors name `policy_set[<seat>].<param>`.

use crate::field;
use crate::protocol::JobError;

/// θ0..θ9 of the heuristic policy, each in [0, 1], in the spec's fixed order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params(pub [f64; 10]);

/// θ0: chance the signal tells the intent, and that a WORK signal is kept.
pub const HONESTY_BIAS: usize = 0;
/// θ1: base intent to work.
pub const WORK_TENDENCY: usize = 1;
/// θ2: pull towards houses next to a fire.
pub const NEIGHBOR_HELP_BIAS: usize = 2;
/// θ3: pull towards home, and extra intent when home burns.
pub const OWN_HOUSE_PRIORITY: usize = 3;
/// θ4: intent per burning fraction; push away from houses between fires.
pub const RISK_AVERSION: usize = 4;
/// θ5: pull towards houses where others signalled WORK.
pub const COORDINATION_WEIGHT: usize = 5;
/// θ6: chance of a uniformly random action.
pub const EXPLORATION_RATE: usize = 6;
/// θ7: chance of repeating last night's action.
pub const FATIGUE_MEMORY: usize = 7;
/// θ8: damping of the intent to work.
pub const REST_REWARD_BIAS: usize = 8;
/// θ9: chance of working anyway after signalling REST (times the intent).
pub const ALTRUISM_FACTOR: usize = 9;

impl Params {
    /// The parameter names, in θ order.
    pub const NAMES: [&'static str; 10] = [
        "honesty_bias",
        "work_tendency",
        "neighbor_help_bias",
        "own_house_priority",
        "risk_aversion",
        "coordination_weight",
        "exploration_rate",
        "fatigue_memory",
        "rest_reward_bias",
        "altruism_factor",
    ];

    /// The base of a bare `heuristic`: every parameter 0.5.
    pub const NEUTRAL: Params = Params([0.5; 10]);

    /// The value of the parameter called `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        Params::NAMES.iter().position(|n| *n == name).map(|i| self.0[i])
    }

    /// `v0,v1,…,v9`: exactly ten numbers in θ order, each finite and in [0, 1].
    pub fn parse_list(seat: usize, list: &str) -> Result<Params, JobError> {
        let values: Vec<&str> = list.split(',').collect();
        if values.len() != 10 {
            return Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                format!("heuristic:{list}"),
                format!("expected exactly 10 comma-separated values (θ0..θ9), got {}", values.len()),
            ));
        }
        let mut out = [0.0; 10];
        for (i, raw) in values.iter().enumerate() {
            out[i] = field::unit(&field::policy_path(seat, Params::NAMES[i]), raw)?;
        }
        Ok(Params(out))
    }

    /// Applies `name=value` overrides in order. Unknown names, repeats and values that are not
    /// finite numbers in [0, 1] are errors naming the parameter.
    pub fn with_overrides(mut self, seat: usize, overrides: &[(String, String)]) -> Result<Params, JobError> {
        for (k, (name, raw)) in overrides.iter().enumerate() {
            let path = field::policy_path(seat, name);
            let Some(i) = Params::NAMES.iter().position(|n| n == name) else {
                return Err(JobError::invalid(
                    path,
                    raw,
                    format!("unknown parameter (known: {})", Params::NAMES.join(", ")),
                ));
            };
            // `Spec::parse` already refuses repeats; a hand-built `Spec` might not.
            if overrides[..k].iter().any(|(n, _)| n == name) {
                return Err(JobError::invalid(path, raw, "parameter given twice"));
            }
            self.0[i] = field::unit(&path, raw)?;
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn list_form_needs_ten_unit_numbers() {
        let p = Params::parse_list(0, "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,1").unwrap();
        assert_eq!(p.0, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0]);
        let e = Params::parse_list(2, "0.1,0.2").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("policy_set[2]"));
        assert!(e.message.contains("got 2"), "{e}");
        assert!(Params::parse_list(0, "0,0,0,0,0,0,0,0,0,0,0").is_err());
        let e = Params::parse_list(1, "0,0,0,0,1.5,0,0,0,0,0").unwrap_err();
        assert_eq!(e.to_string(), "invalid policy_set[1].risk_aversion = 1.5: must be within [0, 1]");
        let e = Params::parse_list(1, "0,0,0,0,0,0,0,0,0,x").unwrap_err();
        assert_eq!(e.to_string(), "invalid policy_set[1].altruism_factor = x: not a number");
        let e = Params::parse_list(1, "NaN,0,0,0,0,0,0,0,0,0").unwrap_err();
        assert_eq!(e.to_string(), "invalid policy_set[1].honesty_bias = NaN: must be a finite number");
    }

    #[test]
    fn overrides_name_the_parameter() {
        let p =
            Params::NEUTRAL.with_overrides(0, &pairs(&[("work_tendency", "0.9"), ("altruism_factor", "0")])).unwrap();
        assert_eq!(p.get("work_tendency"), Some(0.9));
        assert_eq!(p.get("altruism_factor"), Some(0.0));
        assert_eq!(p.get("honesty_bias"), Some(0.5));
        let e = Params::NEUTRAL.with_overrides(3, &pairs(&[("bravery", "1")])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("policy_set[3].bravery"));
        assert!(e.message.starts_with("unknown parameter"), "{e}");
        let e = Params::NEUTRAL.with_overrides(0, &pairs(&[("exploration_rate", "-0.5")])).unwrap_err();
        assert_eq!(e.to_string(), "invalid policy_set[0].exploration_rate = -0.5: must be within [0, 1]");
        let e = Params::NEUTRAL
            .with_overrides(0, &pairs(&[("exploration_rate", "0"), ("exploration_rate", "1")]))
            .unwrap_err();
        assert_eq!(e.to_string(), "invalid policy_set[0].exploration_rate = 1: parameter given twice");
    }
}
