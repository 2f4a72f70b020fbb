//! A CSV record back into a [`Row`]: the row's scalar columns by name, and every other column
//! a stats entry (JSON where it parses as JSON, else text; an empty cell is no entry). What the
//! row-at-a-time reader and the whole-row block decoder both build.

use crate::records::row::Row;

/// The row of `rec`, a record of a file whose header is `headers`.
pub(super) fn csv_row(headers: &csv::StringRecord, rec: &csv::StringRecord) -> Result<Row, String> {
    let mut obj = serde_json::Map::new();
    let mut stats = serde_json::Map::new();
    for (h, v) in headers.iter().zip(rec.iter()) {
        let value = match h {
            "sweep" | "game" | "engine_version" | "scenario" | "policy_set" | "outcome" | "trajectory_hash" => {
                serde_json::Value::String(v.to_string())
            }
            "job" | "seed" | "length" | "truncated" | "team_reward" | "agent_rewards" => {
                serde_json::from_str(v).map_err(|e| format!("column {h}: {e}"))?
            }
            _ => {
                if !v.is_empty() {
                    let parsed = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
                    stats.insert(h.to_string(), parsed);
                }
                continue;
            }
        };
        obj.insert(h.to_string(), value);
    }
    obj.insert("stats".into(), serde_json::Value::Object(stats));
    serde_json::from_value(serde_json::Value::Object(obj)).map_err(|e| e.to_string())
}
