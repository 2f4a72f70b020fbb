//! Scenarios (§2): the named ones, `NAME?field=value&…` overrides and their validation.
//!
//! Validation runs after the overrides, field by field in the table's order, and the first
//! failure is an `invalid_job` naming `scenario.<field>` and the value as written.

use serde::Serialize;

use super::config::{MinoritySize, TrolleyConfig};
use super::vocab::Decision;
use crate::field::{choice, int, scenario_path};
use crate::games::Entry;
use crate::protocol::JobError;
use crate::spec::Spec;

/// The fields in the spec's table order.
pub const FIELDS: [&str; 4] = ["num_agents", "minority_size", "max_rounds", "default_decision"];

/// The named scenarios (first = default), for `coordinator list`.
pub const SCENARIOS: [Entry; 5] = [
    Entry { name: "balanced_5p", about: "5 agents, 3 vs 1 (default)" },
    Entry { name: "trio_3p", about: "3 agents, 1 vs 1" },
    Entry { name: "balanced_6p", about: "6 agents, 3 vs 2" },
    Entry { name: "classic_7p_5v1", about: "7 agents, 5 vs 1 (the original project's fixed game)" },
    Entry { name: "large_10p", about: "10 agents, 5 vs 4" },
];

/// Every field of the named scenario `name` with its value there (`coordinator list`).
pub fn field_defaults(name: &str) -> Option<Vec<crate::games::FieldDefault>> {
    use crate::games::FieldDefault;
    let sc = Scenario::from_spec(&Spec { name: name.to_string(), arg: None, params: Vec::new() }).ok()?;
    let minority = match sc.minority_size {
        MinoritySize::Balanced => "balanced".to_string(),
        MinoritySize::Fixed(m) => m.to_string(),
    };
    Some(vec![
        FieldDefault::new(FIELDS[0], sc.num_agents),
        FieldDefault::new(FIELDS[1], minority),
        FieldDefault { note: "4 × num_agents unless given", ..FieldDefault::new(FIELDS[2], sc.max_rounds) },
        FieldDefault::new(FIELDS[3], sc.default_decision.as_str()),
    ])
}

/// A validated scenario: every field resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// The scenario's name.
    pub name: String,
    /// N, 3..=16.
    pub num_agents: u8,
    /// `balanced` or m.
    pub minority_size: MinoritySize,
    /// The round cap (default 4·N).
    pub max_rounds: u32,
    /// The decision of forced resolutions and fallbacks.
    pub default_decision: Decision,
}

impl Scenario {
    /// The named scenario's values before overrides (`None` for an unknown name).
    fn named(name: &str) -> Option<(u8, MinoritySize)> {
        Some(match name {
            "trio_3p" => (3, MinoritySize::Balanced),
            "balanced_5p" => (5, MinoritySize::Balanced),
            "balanced_6p" => (6, MinoritySize::Balanced),
            "classic_7p_5v1" => (7, MinoritySize::Fixed(1)),
            "large_10p" => (10, MinoritySize::Balanced),
            _ => return None,
        })
    }

    /// Parses and validates a scenario spec (`NAME?field=value&…`).
    pub fn from_spec(spec: &Spec) -> Result<Scenario, JobError> {
        let (n, minority) = Scenario::named(&spec.name).ok_or_else(|| {
            let known: Vec<_> = SCENARIOS.iter().map(|e| e.name).collect();
            JobError::invalid("scenario", &spec.name, format!("unknown scenario (known: {})", known.join(", ")))
        })?;
        if let Some(arg) = &spec.arg {
            return Err(JobError::invalid("scenario", arg, "trolley scenarios take no `:` argument"));
        }
        for (i, (key, value)) in spec.params.iter().enumerate() {
            if !FIELDS.contains(&key.as_str()) {
                return Err(JobError::invalid(
                    scenario_path(key),
                    value,
                    format!("unknown field (known: {})", FIELDS.join(", ")),
                ));
            }
            // Spec::parse already refuses repeated keys; a hand-built Spec might not.
            if spec.params[..i].iter().any(|(k, _)| k == key) {
                return Err(JobError::invalid(scenario_path(key), value, "field given twice"));
            }
        }
        let num_agents = match spec.get("num_agents") {
            Some(raw) => int(&scenario_path("num_agents"), raw, 3, 16)? as u8,
            None => n,
        };
        let minority_size = match spec.get("minority_size") {
            None => minority,
            Some("balanced") => MinoritySize::Balanced,
            Some(raw) => {
                let path = scenario_path("minority_size");
                let m = raw
                    .parse::<u8>()
                    .map_err(|_| JobError::invalid(&path, raw, "must be balanced or a whole number"))?;
                MinoritySize::Fixed(m)
            }
        };
        if let Err(reason) = minority_size.check(usize::from(num_agents)) {
            let value = spec.get("minority_size").unwrap_or("1");
            return Err(JobError::invalid(
                scenario_path("minority_size"),
                value,
                format!("{reason} (num_agents = {num_agents})"),
            ));
        }
        let max_rounds = match spec.get("max_rounds") {
            Some(raw) => int(&scenario_path("max_rounds"), raw, 1, i64::from(u32::MAX))? as u32,
            None => 4 * u32::from(num_agents),
        };
        let default_decision = match spec.get("default_decision") {
            Some(raw) => {
                let names = Decision::ALL.map(Decision::as_str);
                Decision::ALL[choice(&scenario_path("default_decision"), raw, &names)?]
            }
            None => Decision::SaveMajority,
        };
        Ok(Scenario { name: spec.name.clone(), num_agents, minority_size, max_rounds, default_decision })
    }

    /// The rules' config of this scenario (a fixed roster of N).
    pub fn config(&self) -> TrolleyConfig {
        TrolleyConfig::fixed(self.num_agents, self.minority_size, Some(self.max_rounds), self.default_decision)
    }

    /// m for this scenario.
    pub fn minority(&self) -> usize {
        self.minority_size.resolve(usize::from(self.num_agents))
    }
}
