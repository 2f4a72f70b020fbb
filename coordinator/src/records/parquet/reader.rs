//! Reading a Parquet export back into rows, for `summary`, `rank` and `report` (row by row
//! through the crate's record reader: no arrow needed), all columns or only those a command
//! names (column projection: the other column chunks are not decoded).

use std::fs::File;
use std::path::Path;

use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::record::Field;
use parquet::schema::types::Type;
use serde_json::Value;

use super::schema::JSON_COLUMNS_KEY;
use crate::records::row::Row;

fn value(field: &Field, json_text: bool) -> Result<Value, String> {
    Ok(match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float(x) => Value::from(f64::from(*x)),
        Field::Double(x) => Value::from(*x),
        Field::Str(s) if json_text => serde_json::from_str(s).map_err(|e| format!("JSON text {s:?}: {e}"))?,
        Field::Str(s) => Value::String(s.clone()),
        Field::ListInternal(list) => {
            Value::Array(list.elements().iter().map(|e| value(e, false)).collect::<Result<_, _>>()?)
        }
        other => return Err(format!("unexpected value {other}")),
    })
}

fn text(field: &Field, name: &str) -> Result<String, String> {
    match field {
        Field::Str(s) => Ok(s.clone()),
        other => Err(format!("column {name}: expected text, found {other}")),
    }
}

fn unsigned(field: &Field, name: &str) -> Result<u64, String> {
    match field {
        Field::ULong(n) => Ok(*n),
        Field::UInt(n) => Ok(u64::from(*n)),
        Field::Long(n) if *n >= 0 => Ok(*n as u64),
        Field::Int(n) if *n >= 0 => Ok(*n as u64),
        other => Err(format!("column {name}: expected an unsigned integer, found {other}")),
    }
}

/// Calls `f` with each row of the Parquet file at `path` and its 0-based row number. With
/// `columns`, only those columns (by name; `stats.<key>` for a stats entry; names the file lacks
/// are left out) are read and the row's other fields keep their defaults (empty, zero). Errors
/// are `(row number, message)`; row 0 is the file itself.
pub fn for_each_row(path: &Path, columns: Option<&[&str]>, mut f: impl FnMut(u64, Row)) -> Result<(), (u64, String)> {
    let file = File::open(path).map_err(|e| (0, e.to_string()))?;
    let reader = SerializedFileReader::new(file).map_err(|e| {
        (0, format!("{e} (a Parquet file is complete only once its writer finished; was the export interrupted?)"))
    })?;
    let json_columns = json_columns(reader.metadata().file_metadata());
    let projection = match columns {
        None => None,
        Some(names) => {
            let root = reader.metadata().file_metadata().schema();
            let fields = root.get_fields().iter().filter(|f| names.contains(&f.name())).cloned().collect();
            let projected = Type::group_type_builder(root.name()).with_fields(fields).build();
            Some(projected.map_err(|e| (0, e.to_string()))?)
        }
    };
    let rows = reader.get_row_iter(projection).map_err(|e| (0, e.to_string()))?;
    for (i, record) in rows.enumerate() {
        let n = i as u64 + 1;
        let record = record.map_err(|e| (n, e.to_string()))?;
        f(i as u64, row_of(&record, &json_columns).map_err(|e| (n, e))?);
    }
    Ok(())
}

/// One Parquet record as a row; `json_columns` are the columns stored as JSON text. Columns the
/// record lacks leave the row's fields at their defaults (empty, zero).
pub(crate) fn row_of(record: &parquet::record::Row, json_columns: &[String]) -> Result<Row, String> {
    let mut row = Row {
        sweep: String::new(),
        job: 0,
        game: String::new(),
        engine_version: String::new(),
        scenario: String::new(),
        policy_set: String::new(),
        seed: 0,
        outcome: String::new(),
        length: 0,
        truncated: false,
        team_reward: 0.0,
        agent_rewards: Vec::new(),
        trajectory_hash: String::new(),
        stats: Default::default(),
    };
    for (name, field) in record.get_column_iter() {
        match name.as_str() {
            "sweep" => row.sweep = text(field, name)?,
            "job" => row.job = unsigned(field, name)?,
            "game" => row.game = text(field, name)?,
            "engine_version" => row.engine_version = text(field, name)?,
            "scenario" => row.scenario = text(field, name)?,
            "policy_set" => row.policy_set = text(field, name)?,
            "seed" => row.seed = unsigned(field, name)?,
            "outcome" => row.outcome = text(field, name)?,
            "length" => row.length = u32::try_from(unsigned(field, name)?).map_err(|e| e.to_string())?,
            "truncated" => row.truncated = matches!(field, Field::Bool(true)),
            "team_reward" => {
                row.team_reward = value(field, false)?.as_f64().ok_or("column team_reward: not a number")?
            }
            "agent_rewards" => {
                row.agent_rewards = serde_json::from_value(value(field, false)?).map_err(|e| e.to_string())?
            }
            "trajectory_hash" => row.trajectory_hash = text(field, name)?,
            other => {
                if let Some(key) = other.strip_prefix("stats.") {
                    let json_text = json_columns.iter().any(|c| c == other);
                    let v = value(field, json_text).map_err(|e| format!("column {other}: {e}"))?;
                    if !v.is_null() {
                        row.stats.insert(key.to_string(), v);
                    }
                }
            }
        }
    }
    Ok(row)
}

/// The columns the writer stored as JSON text (its `JSON_COLUMNS_KEY` metadata).
pub(crate) fn json_columns(meta: &parquet::file::metadata::FileMetaData) -> Vec<String> {
    meta.key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key == JSON_COLUMNS_KEY)
        .filter_map(|kv| kv.value.as_deref())
        .flat_map(|v| v.split(',').filter(|c| !c.is_empty()).map(String::from))
        .collect()
}
