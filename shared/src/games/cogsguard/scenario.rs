//! Named scenarios and their overrides (§2): `arena` (default), `machina`, `ascii`.
//!
//! Validation happens here, once per job: an unknown field, a field not meant for the scenario
//! or a bad value is an `invalid_job` naming `scenario.<field>` and the value as written.

use serde_json::{json, Value};

use crate::field::{boolean, int, scenario_path};
use crate::protocol::JobError;
use crate::seeding::fnv64;
use crate::spec::Spec;

use super::ascii::{self, FIXTURES};
use super::layout::Layout;
use super::mapgen::GenParams;

/// Scenario names, the first being the default.
pub const SCENARIOS: [&str; 3] = ["arena", "machina", "ascii"];

const FIELDS: [&str; 8] = ["num_agents", "max_steps", "clips", "coverage_permille", "rows", "cols", "map", "map_text"];

/// The fields of the named scenario `name` with their values there (`coordinator list`): a
/// generated map's size, coverage and team, or for `ascii` the map and what it may set.
pub fn field_defaults(name: &str) -> Option<Vec<crate::games::FieldDefault>> {
    use crate::games::FieldDefault;
    if name == "ascii" {
        let none = |name, note| FieldDefault { name, default: None, note };
        return Some(vec![
            none("max_steps", "the map's, else 1000"),
            none("clips", "the map's, else true"),
            none("map", "a fixture: tiny_3p; map or map_text is required"),
            none("map_text", "the map's rows; map or map_text is required"),
        ]);
    }
    let sc = Scenario::parse(&Spec { name: name.to_string(), arg: None, params: Vec::new() }).ok()?;
    let MapSource::Generated(g) = &sc.source else { return None };
    Some(vec![
        FieldDefault::new("num_agents", sc.num_agents),
        FieldDefault::new("max_steps", sc.max_steps),
        FieldDefault::new("clips", sc.clips),
        FieldDefault::new("coverage_permille", g.coverage_permille),
        FieldDefault::new("rows", g.rows),
        FieldDefault::new("cols", g.cols),
    ])
}

/// Where the map comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapSource {
    /// Generated per seed from the map stream (§4.2).
    Generated(GenParams),
    /// A fixed ASCII map (§4.5).
    Ascii(Layout),
}

/// A validated scenario with every field resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// `arena`, `machina` or `ascii`.
    pub name: &'static str,
    /// Team size.
    pub num_agents: usize,
    /// Episode length.
    pub max_steps: u32,
    /// Whether the clips events run.
    pub clips: bool,
    /// The `map=` fixture name (ascii).
    pub map: Option<String>,
    /// The `map_text=` text (ascii).
    pub map_text: Option<String>,
    /// The map.
    pub source: MapSource,
}

fn get_int(spec: &Spec, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, JobError> {
    spec.get(key).map(|v| int(&scenario_path(key), v, lo, hi)).transpose()
}

fn not_for(spec: &Spec, keys: &[&str], why: &str) -> Result<(), JobError> {
    match keys.iter().find_map(|k| spec.get(k).map(|v| (k, v))) {
        Some((k, v)) => Err(JobError::invalid(scenario_path(k), v, why)),
        None => Ok(()),
    }
}

impl Scenario {
    /// Parses and validates a scenario spec.
    pub fn parse(spec: &Spec) -> Result<Scenario, JobError> {
        let name = SCENARIOS.into_iter().find(|n| *n == spec.name).ok_or_else(|| {
            JobError::invalid("scenario", &spec.name, "unknown scenario (known: arena, machina, ascii)")
        })?;
        if let Some(a) = &spec.arg {
            return Err(JobError::invalid("scenario", a, "cogsguard scenarios take no `:` argument"));
        }
        if let Some((k, v)) = spec.unknown_key(&FIELDS) {
            return Err(JobError::invalid(scenario_path(k), v, "unknown field"));
        }
        let max_steps = get_int(spec, "max_steps", 1, 100_000)?.map(|v| v as u32);
        let clips = spec.get("clips").map(|v| boolean(&scenario_path("clips"), v)).transpose()?;
        if name == "ascii" {
            not_for(spec, &["num_agents", "coverage_permille", "rows", "cols"], "not for ascii: the map sets it")?;
            let (map, map_text) = (spec.get("map"), spec.get("map_text"));
            let (text, path, raw) = match (map, map_text) {
                (Some(_), Some(t)) => {
                    return Err(JobError::invalid(scenario_path("map_text"), t, "give map or map_text, not both"))
                }
                (None, None) => {
                    return Err(JobError::invalid(
                        scenario_path("map"),
                        "",
                        "ascii needs map=<fixture> or map_text=<rows>",
                    ))
                }
                (Some(m), None) => {
                    let text = FIXTURES.iter().find(|(n, _)| *n == m).map(|(_, t)| *t).ok_or_else(|| {
                        JobError::invalid(scenario_path("map"), m, "unknown fixture (known: tiny_3p)")
                    })?;
                    (text, "map", m)
                }
                (None, Some(t)) => (t, "map_text", t),
            };
            let layout = ascii::parse(text).map_err(|e| JobError::invalid(scenario_path(path), raw, e.0))?;
            return Ok(Scenario {
                name,
                num_agents: layout.pads.len(),
                max_steps: max_steps.or(layout.max_steps).unwrap_or(1000),
                clips: clips.or(layout.clips).unwrap_or(true),
                map: map.map(str::to_string),
                map_text: map_text.map(str::to_string),
                source: MapSource::Ascii(layout),
            });
        }
        not_for(spec, &["map", "map_text"], "only for ascii")?;
        let (side, steps, coverage) = if name == "arena" { (40, 1000, 100) } else { (88, 10_000, 50) };
        let gen = GenParams {
            rows: get_int(spec, "rows", 30, 200)?.unwrap_or(side) as u16,
            cols: get_int(spec, "cols", 30, 200)?.unwrap_or(side) as u16,
            border: 5,
            coverage_permille: get_int(spec, "coverage_permille", 0, 200)?.unwrap_or(coverage) as u32,
            num_agents: get_int(spec, "num_agents", 1, 20)?.unwrap_or(8) as usize,
        };
        Ok(Scenario {
            name,
            num_agents: gen.num_agents,
            max_steps: max_steps.unwrap_or(steps),
            clips: clips.unwrap_or(true),
            map: None,
            map_text: None,
            source: MapSource::Generated(gen),
        })
    }

    /// The replay's `scenario` object: the name and every field resolved.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "name": self.name, "num_agents": self.num_agents, "max_steps": self.max_steps, "clips": self.clips,
        });
        let m = v.as_object_mut().expect("a json object");
        match &self.source {
            MapSource::Generated(g) => {
                m.insert("coverage_permille".into(), g.coverage_permille.into());
                m.insert("rows".into(), g.rows.into());
                m.insert("cols".into(), g.cols.into());
                m.insert("border".into(), g.border.into());
            }
            MapSource::Ascii(l) => {
                if let Some(map) = &self.map {
                    m.insert("map".into(), map.clone().into());
                }
                if let Some(t) = &self.map_text {
                    m.insert("map_text".into(), t.clone().into());
                }
                m.insert("rows".into(), l.rows.into());
                m.insert("cols".into(), l.cols.into());
                m.insert("border".into(), 0.into());
            }
        }
        v
    }
}

/// The `scenario` metric label (§2): the spec string, with `map_text=<text>` written
/// `map_text#<fnv8>` (first 8 hex digits of the FNV-1a 64 of the decoded text).
pub fn metric_label(scenario: &str) -> String {
    let Ok(spec) = Spec::parse(scenario) else {
        return scenario.to_string();
    };
    let Some(text) = spec.get("map_text") else {
        return scenario.to_string();
    };
    let fnv8 = format!("{:016x}", fnv64(text.as_bytes()));
    let mut out = spec.name.clone();
    for (i, (k, v)) in spec.params.iter().enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        if k == "map_text" {
            out.push_str("map_text#");
            out.push_str(&fnv8[..8]);
        } else {
            out.push_str(k);
            out.push('=');
            out.push_str(&crate::spec::percent_encode(v));
        }
    }
    out
}

/// Episodes per job by scenario: fixed constants sized so a Pinky job takes well under a second.
pub fn default_episodes_per_job(scenario: &Spec) -> u64 {
    match scenario.name.as_str() {
        "machina" => 2,
        "ascii" => 50,
        _ => 20,
    }
}
