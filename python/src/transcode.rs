//! MessagePack results files as JSON Lines, for `simfleet.read`: the coordinator's `.msgpack`
//! is named-field maps concatenated with no outer array, which polars cannot read itself.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Every value of `data` (concatenated MessagePack values) as one JSON line each.
#[pyfunction]
pub fn msgpack_to_json_lines<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let out = py.detach(|| transcode(data)).map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &out))
}

fn transcode(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut rest = data;
    let mut out = Vec::with_capacity(data.len() * 2);
    let mut row = 0u64;
    while !rest.is_empty() {
        let mut de = rmp_serde::Deserializer::new(&mut rest);
        let value: serde_json::Value =
            serde::Deserialize::deserialize(&mut de).map_err(|e| format!("MessagePack row {}: {e}", row + 1))?;
        serde_json::to_writer(&mut out, &value).map_err(|e| e.to_string())?;
        out.push(b'\n');
        row += 1;
    }
    Ok(out)
}
