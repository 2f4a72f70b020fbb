//! The native module of the `simfleet` Python package (`simfleet._native`): the engines of
//! the `simfleet` crate behind PyO3, stepped in batches with numpy arrays. The Python side
//! (python/simfleet/) builds the PettingZoo and Gymnasium environments on top.
//!
//! Nothing here has rules of its own: every decision a game makes is the crate's, so an
//! episode stepped from Python is the episode `coordinator run` plays (python/tests/).

use pyo3::prelude::*;

mod bucket_brigade;
mod transcode;
mod turns;

/// The engine version stamped on records (`<crate semver>+<rules_version>`) of `game`.
#[pyfunction]
fn engine_version(game: &str) -> PyResult<String> {
    let kind: simfleet::GameKind = game
        .parse()
        .map_err(|e: simfleet::games::UnknownGame| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(simfleet::engine_version(kind))
}

/// The first scenario of `game`: its default.
#[pyfunction]
fn default_scenario(game: &str) -> PyResult<&'static str> {
    let kind: simfleet::GameKind = game
        .parse()
        .map_err(|e: simfleet::games::UnknownGame| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(kind.info().scenarios[0].name)
}

/// The resolved scenario `spec` of `game` as JSON: every field, as the game validated it.
#[pyfunction]
fn scenario_json(game: &str, spec: &str) -> PyResult<String> {
    let value_error = |e: String| pyo3::exceptions::PyValueError::new_err(e);
    let parsed = simfleet::Spec::parse(spec)
        .map_err(|e| value_error(simfleet::JobError::invalid("scenario", spec, e.message).to_string()))?;
    let json = match game {
        "deception" => simfleet::games::deception::ScenarioConfig::from_spec(&parsed)
            .map(|c| serde_json::to_string(&c).expect("scenarios serialize")),
        "trolley" => simfleet::games::trolley::scenario::Scenario::from_spec(&parsed)
            .map(|c| serde_json::to_string(&c).expect("scenarios serialize")),
        "cogsguard" => simfleet::games::cogsguard::Scenario::parse(&parsed).map(|c| {
            serde_json::json!({"name": c.name, "num_agents": c.num_agents, "max_steps": c.max_steps, "clips": c.clips})
                .to_string()
        }),
        other => return Err(value_error(format!("no scenario fields for {other:?} from Python"))),
    };
    json.map_err(|e| value_error(e.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<bucket_brigade::BucketBrigadeCore>()?;
    m.add_class::<bucket_brigade::BucketBrigadePolicy>()?;
    m.add_class::<turns::TurnCore>()?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(default_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(transcode::msgpack_to_json_lines, m)?)?;
    Ok(())
}
