//! Reading a results file back, row by row, whatever its format: for `summary`, `rank` and
//! `report`, and for a resumed `watch` ([`super::resume`]), which must find the jobs already in
//! its output and where a partial trailing record begins.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::Path;

use super::error::ImportError;
use super::format::Format;
use super::parquet;
use super::row::Row;

/// Calls `f` with each row of `path` and its byte offset; stops at the first error. A
/// partial trailing row (no final newline, or a truncated MessagePack map) is reported as
/// `Ok(Some(offset))`: where the file should be cut.
pub fn for_each_row(path: &Path, f: impl FnMut(u64, Row)) -> Result<Option<u64>, ImportError> {
    for_each_row_of(path, None, f)
}

/// [`for_each_row`], reading only `columns` (names as in [`Row`]; `stats.<key>` for a stats
/// entry) where the format allows: a Parquet file decodes only those column chunks, and the
/// row's other fields keep their defaults. The line formats decode whole rows (a row's fields
/// are interleaved in its bytes), so `f` must use only the fields it asked for.
pub fn for_each_row_of(
    path: &Path,
    columns: Option<&[&str]>,
    mut f: impl FnMut(u64, Row),
) -> Result<Option<u64>, ImportError> {
    let ioerr = |source: io::Error| ImportError::Io { path: path.display().to_string(), source };
    let rowerr = |row: u64, message: String| ImportError::Row { path: path.display().to_string(), row, message };
    let format = Format::of(path)?;
    let file = File::open(path).map_err(ioerr)?;
    let len = file.metadata().map_err(ioerr)?.len();
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut offset = 0u64;
    let mut n = 0u64;
    match format {
        Format::Jsonl => {
            let mut line = String::new();
            loop {
                line.clear();
                let read = reader.read_line(&mut line).map_err(ioerr)? as u64;
                if read == 0 {
                    return Ok(None);
                }
                n += 1;
                if !line.ends_with('\n') {
                    return Ok(Some(offset));
                }
                let row: Row = serde_json::from_str(&line).map_err(|e| rowerr(n, e.to_string()))?;
                f(offset, row);
                offset += read;
            }
        }
        Format::Msgpack => loop {
            if offset == len {
                return Ok(None);
            }
            n += 1;
            let mut de = rmp_serde::Deserializer::new(&mut reader);
            match serde::Deserialize::deserialize(&mut de) {
                Ok(row) => {
                    let pos = reader.stream_position().map_err(ioerr)?;
                    f(offset, row);
                    offset = pos;
                }
                Err(rmp_serde::decode::Error::InvalidMarkerRead(e) | rmp_serde::decode::Error::InvalidDataRead(e))
                    if e.kind() == io::ErrorKind::UnexpectedEof =>
                {
                    return Ok(Some(offset));
                }
                Err(e) => return Err(rowerr(n, e.to_string())),
            }
        },
        Format::Csv => {
            let mut text = String::new();
            reader.read_to_string(&mut text).map_err(ioerr)?;
            let complete = text.rfind('\n').map_or(0, |i| i + 1);
            let cut = (complete < text.len()).then_some(complete as u64);
            let mut rdr = csv::ReaderBuilder::new().from_reader(&text.as_bytes()[..complete]);
            let headers = rdr.headers().map_err(|e| rowerr(0, e.to_string()))?.clone();
            for rec in rdr.records() {
                n += 1;
                let rec = rec.map_err(|e| rowerr(n, e.to_string()))?;
                let pos = rec.position().map_or(0, |p| p.byte());
                f(pos, csv_row(&headers, &rec).map_err(|m| rowerr(n, m))?);
            }
            Ok(cut)
        }
        Format::Parquet => {
            drop(reader);
            parquet::reader::for_each_row(path, columns, f).map_err(|(row, message)| rowerr(row, message))?;
            Ok(None)
        }
    }
}

pub(crate) fn csv_row(headers: &csv::StringRecord, rec: &csv::StringRecord) -> Result<Row, String> {
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
