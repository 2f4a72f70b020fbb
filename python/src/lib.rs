//! The native module of the `simfleet` Python package (`simfleet._native`): the engines of
//! the `simfleet` crate behind PyO3, stepped in batches with numpy arrays. The Python side
//! (python/simfleet/) builds the PettingZoo and Gymnasium environments on top.
//!
//! Nothing here has rules of its own: every decision a game makes is the crate's, so an
//! episode stepped from Python is the episode `coordinator run` plays (python/tests/).

use pyo3::prelude::*;

mod bucket_brigade;
mod transcode;

/// The engine version stamped on records (`<crate semver>+<rules_version>`) of `game`.
#[pyfunction]
fn engine_version(game: &str) -> PyResult<String> {
    let kind: simfleet::GameKind = game
        .parse()
        .map_err(|e: simfleet::games::UnknownGame| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(simfleet::engine_version(kind))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<bucket_brigade::BucketBrigadeCore>()?;
    m.add_class::<bucket_brigade::BucketBrigadePolicy>()?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(transcode::msgpack_to_json_lines, m)?)?;
    Ok(())
}
