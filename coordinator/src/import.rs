//! Reading exported rows back: for `summary FILE`, and for a resumed `watch`, which must find the
//! jobs already in its output and cut off a partial trailing record or job.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::Path;

use crate::export::Format;
use crate::row::Row;

/// Why a results file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Unknown extension.
    #[error(transparent)]
    Format(#[from] crate::export::ExportError),
    /// Reading failed.
    #[error("reading {path} failed: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: io::Error,
    },
    /// A row does not parse.
    #[error("{path}: row {row} does not parse: {message}")]
    Row {
        /// The file.
        path: String,
        /// 1-based row number.
        row: u64,
        /// Why.
        message: String,
    },
}

/// Calls `f` with each row of `path` and its byte offset; stops at the first error. A
/// partial trailing row (no final newline, or a truncated MessagePack map) is reported as
/// `Ok(Some(offset))`: where the file should be cut.
pub fn for_each_row(path: &Path, mut f: impl FnMut(u64, Row)) -> Result<Option<u64>, ImportError> {
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
            crate::parquet::reader::for_each_row(path, f).map_err(|(row, message)| rowerr(row, message))?;
            Ok(None)
        }
    }
}

fn csv_row(headers: &csv::StringRecord, rec: &csv::StringRecord) -> Result<Row, String> {
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

/// What a resumed `watch` finds in its output file.
#[derive(Debug, Default)]
pub struct Resume {
    /// Rows per job index, of the jobs complete in the file.
    pub jobs: BTreeMap<u64, u64>,
    /// Rows kept.
    pub rows: u64,
    /// Bytes cut from the end (a partial row or a partial job).
    pub truncated_bytes: u64,
}

/// Scans `path` and cuts it back to whole jobs: a partial trailing row, and the rows of a last job
/// with fewer rows than `expected(job)`, are removed (their result was never acknowledged, so it
/// will be delivered again).
pub fn resume(path: &Path, expected: impl Fn(u64) -> u64) -> Result<Resume, ImportError> {
    if Format::of(path)? == Format::Parquet {
        // Its offsets are row numbers, not bytes: cutting the file would destroy it.
        return Err(crate::export::ExportError::NotAppendable.into());
    }
    let ioerr = |source: io::Error| ImportError::Io { path: path.display().to_string(), source };
    let len = std::fs::metadata(path).map_err(ioerr)?.len();
    let mut jobs: BTreeMap<u64, u64> = BTreeMap::new();
    // (job, offset of its first row) of the job being read.
    let mut last: Option<(u64, u64)> = None;
    let mut cut = for_each_row(path, |offset, row| {
        if last.map(|(j, _)| j) != Some(row.job) {
            last = Some((row.job, offset));
        }
        *jobs.entry(row.job).or_default() += 1;
    })?;
    if let Some((job, start)) = last {
        if jobs.get(&job).copied().unwrap_or(0) < expected(job) {
            jobs.remove(&job);
            cut = Some(start);
        }
    }
    let mut truncated_bytes = 0;
    if let Some(at) = cut {
        truncated_bytes = len - at;
        let f = std::fs::OpenOptions::new().write(true).open(path).map_err(ioerr)?;
        f.set_len(at).map_err(ioerr)?;
        f.sync_data().map_err(ioerr)?;
    }
    let rows = jobs.values().sum();
    Ok(Resume { jobs, rows, truncated_bytes })
}
