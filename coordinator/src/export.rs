//! Writing episode rows to a file whose format is chosen by its extension: `.jsonl` (one object
//! a line), `.csv` (one fixed header), `.msgpack` (named-field maps, concatenated, no outer
//! array), `.parquet` (row groups of 64k rows, see [`crate::parquet`]). Writers stream: memory
//! does not grow with the number of rows. Call [`RecordWriter::finish`] when done: a Parquet
//! file is readable only once its footer is written.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use simfleet::protocol::JobResult;
use simfleet::GameKind;

use crate::parquet::ParquetSink;
use crate::row::{RowRef, SCALAR_COLUMNS};

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON Lines.
    Jsonl,
    /// Comma-separated values with one header.
    Csv,
    /// Concatenated MessagePack maps.
    Msgpack,
    /// Apache Parquet.
    Parquet,
}

impl Format {
    /// The format of `path`, by extension.
    pub fn of(path: &Path) -> Result<Format, ExportError> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => Ok(Format::Jsonl),
            Some("csv") => Ok(Format::Csv),
            Some("msgpack") => Ok(Format::Msgpack),
            Some("parquet") => Ok(Format::Parquet),
            other => Err(ExportError::UnknownFormat(other.unwrap_or("").to_string())),
        }
    }
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The extension names no format.
    #[error(
        "cannot tell the format of the output file from its extension {0:?}: use .jsonl, .csv, .msgpack or .parquet"
    )]
    UnknownFormat(String),
    /// Writing failed.
    #[error("writing the output file failed: {0}")]
    Io(#[from] io::Error),
    /// A CSV-specific failure.
    #[error("writing CSV failed: {0}")]
    Csv(#[from] csv::Error),
    /// A Parquet-specific failure.
    #[error("writing Parquet failed: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A stats value that does not fit the Parquet column type fixed by the first row group.
    #[error(
        "stats key {key:?} held {kind} in the first row group of the Parquet file but now holds {value}: \
         a Parquet column keeps one type; export to .jsonl or .csv instead"
    )]
    StatType {
        /// The stats key.
        key: String,
        /// What the column holds.
        kind: &'static str,
        /// The value that does not fit.
        value: String,
    },
    /// Parquet files cannot be appended to.
    #[error(
        "cannot append to a Parquet file (its footer is written once, at the end): write .jsonl, .csv or \
         .msgpack to resume, and convert afterwards"
    )]
    NotAppendable,
    /// The writer failed earlier or is finished.
    #[error("the Parquet writer failed earlier or is already finished; the file is incomplete")]
    Failed,
}

/// The CSV stats columns of a sweep's games: every stats key of each game, in game order, once.
pub fn stat_columns(games: &[GameKind]) -> Vec<&'static str> {
    let mut cols: Vec<&'static str> = Vec::new();
    for g in games {
        for k in g.info().stat_keys {
            if !cols.contains(k) {
                cols.push(k);
            }
        }
    }
    cols
}

// One Sink per writer: the size of the CSV variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Sink {
    Jsonl(BufWriter<File>),
    Csv { w: csv::Writer<File>, stats: Vec<&'static str>, fields: Vec<String> },
    Msgpack(BufWriter<File>),
    Parquet(Box<ParquetSink>),
}

/// A streaming writer of episode rows.
pub struct RecordWriter {
    sink: Sink,
    rows: u64,
}

impl RecordWriter {
    /// Creates (truncates) `path`; `games` fixes the CSV stats columns.
    pub fn create(path: &Path, games: &[GameKind]) -> Result<RecordWriter, ExportError> {
        let format = Format::of(path)?;
        let file = File::create(path)?;
        RecordWriter::from_file(file, format, games, true)
    }

    /// Appends to an existing file of `format` (used by a resumed `watch`). No CSV header.
    pub fn append(path: &Path, games: &[GameKind]) -> Result<RecordWriter, ExportError> {
        let format = Format::of(path)?;
        if format == Format::Parquet {
            return Err(ExportError::NotAppendable);
        }
        let file = std::fs::OpenOptions::new().append(true).open(path)?;
        let header = format == Format::Csv && file.metadata()?.len() == 0;
        RecordWriter::from_file(file, format, games, header)
    }

    fn from_file(file: File, format: Format, games: &[GameKind], header: bool) -> Result<RecordWriter, ExportError> {
        let sink = match format {
            Format::Jsonl => Sink::Jsonl(BufWriter::with_capacity(1 << 20, file)),
            Format::Msgpack => Sink::Msgpack(BufWriter::with_capacity(1 << 20, file)),
            Format::Parquet => Sink::Parquet(Box::new(ParquetSink::new(file, stat_columns(games)))),
            Format::Csv => {
                let mut w = csv::WriterBuilder::new().buffer_capacity(1 << 20).from_writer(file);
                let stats = stat_columns(games);
                if header {
                    let mut head: Vec<&str> = SCALAR_COLUMNS.to_vec();
                    head.extend(["agent_rewards", "trajectory_hash"]);
                    head.extend(stats.iter().copied());
                    w.write_record(&head)?;
                }
                Sink::Csv { w, stats, fields: Vec::new() }
            }
        };
        Ok(RecordWriter { sink, rows: 0 })
    }

    /// Writes every record of `result` (nothing for an error result), contiguously.
    pub fn write_result(&mut self, result: &JobResult) -> Result<(), ExportError> {
        for rec in &result.records {
            self.write(&RowRef::new(result, rec))?;
        }
        Ok(())
    }

    /// Writes one row.
    pub fn write(&mut self, row: &RowRef<'_>) -> Result<(), ExportError> {
        match &mut self.sink {
            Sink::Jsonl(w) => {
                serde_json::to_writer(&mut *w, row).map_err(io::Error::from)?;
                w.write_all(b"\n")?;
            }
            Sink::Msgpack(w) => {
                let mut ser = rmp_serde::Serializer::new(&mut *w).with_struct_map();
                serde::Serialize::serialize(row, &mut ser).map_err(io::Error::other)?;
            }
            Sink::Csv { w, stats, fields } => {
                fields.clear();
                fields.extend([
                    row.sweep.to_string(),
                    row.job.to_string(),
                    row.game.to_string(),
                    row.engine_version.to_string(),
                    row.scenario.to_string(),
                    row.policy_set.to_string(),
                    row.seed.to_string(),
                    row.outcome.to_string(),
                    row.length.to_string(),
                    row.truncated.to_string(),
                    json(&row.team_reward),
                    json(&row.agent_rewards),
                    row.trajectory_hash.to_string(),
                ]);
                for key in stats.iter() {
                    fields.push(match row.stats.get(*key) {
                        None | Some(serde_json::Value::Null) => String::new(),
                        Some(serde_json::Value::String(s)) => s.clone(),
                        Some(v) => json(v),
                    });
                }
                w.write_record(fields.iter())?;
            }
            Sink::Parquet(p) => p.write(row)?,
        }
        self.rows += 1;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flushes buffered rows to the file (and to disk), so that a reader or a resumed `watch`
    /// sees every row written so far.
    pub fn flush(&mut self) -> Result<(), ExportError> {
        match &mut self.sink {
            Sink::Jsonl(w) | Sink::Msgpack(w) => {
                w.flush()?;
                w.get_ref().sync_data()?;
            }
            Sink::Csv { w, .. } => {
                w.flush()?;
                w.get_ref().sync_data()?;
            }
            Sink::Parquet(p) => p.flush()?,
        }
        Ok(())
    }

    /// Flushes everything and completes the file (a Parquet file gets its last row group and
    /// footer). Returns the number of rows written.
    pub fn finish(mut self) -> Result<u64, ExportError> {
        match &mut self.sink {
            Sink::Parquet(p) => p.finish()?,
            _ => self.flush()?,
        }
        Ok(self.rows)
    }
}

impl Drop for RecordWriter {
    /// Completes a Parquet file whose writer was dropped without [`RecordWriter::finish`] (the
    /// line formats need nothing: their buffers flush on drop).
    fn drop(&mut self) {
        if let Sink::Parquet(p) = &mut self.sink {
            if !p.done() {
                if let Err(e) = p.finish() {
                    tracing::error!("the Parquet file could not be completed: {e}");
                }
            }
        }
    }
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("numbers and JSON values always serialise")
}
