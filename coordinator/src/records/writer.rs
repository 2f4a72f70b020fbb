//! Writing episode rows to a file whose format is chosen by its extension: `.jsonl` (one object
//! a line), `.csv` (one fixed header), `.msgpack` (named-field maps, concatenated, no outer
//! array), `.parquet` (row groups of 64k rows, see [`super::parquet`]). Writers stream: memory
//! does not grow with the number of rows. Call [`RecordWriter::finish`] when done: a Parquet
//! file is readable only once its footer is written.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use simfleet::protocol::JobResult;
use simfleet::GameKind;

use super::any_format::AnyFormat;
use super::encoder::RowEncoder;
use super::error::ExportError;
use super::format::Format;
use super::parquet::ParquetSink;
use super::row::{stat_columns, RowRef};

enum Sink {
    /// `.jsonl`, `.csv`, `.msgpack`: rows encoded by `enc` into `scratch`, then written.
    Lines {
        out: BufWriter<File>,
        enc: RowEncoder,
        scratch: Vec<u8>,
    },
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
        RecordWriter::create_with(path, stat_columns(games))
    }

    /// Creates (truncates) `path` with these stats columns (CSV and Parquet).
    pub fn create_with(path: &Path, stats: Vec<&'static str>) -> Result<RecordWriter, ExportError> {
        let format = AnyFormat::of(path)?;
        let file = File::create(path)?;
        RecordWriter::from_file(file, format, stats, true)
    }

    /// Appends to an existing file of `format` (used by a resumed `watch`). No CSV header.
    pub fn append(path: &Path, games: &[GameKind]) -> Result<RecordWriter, ExportError> {
        RecordWriter::append_with(path, stat_columns(games))
    }

    /// Appends to an existing file with these stats columns (see [`RecordWriter::append`]).
    pub fn append_with(path: &Path, stats: Vec<&'static str>) -> Result<RecordWriter, ExportError> {
        let format = AnyFormat::of(path)?;
        if !format.appendable() {
            return Err(ExportError::NotAppendable);
        }
        let file = std::fs::OpenOptions::new().append(true).open(path)?;
        // An empty file gets the format's header (CSV's; the others have none).
        let header = file.metadata()?.len() == 0;
        RecordWriter::from_file(file, format, stats, header)
    }

    fn from_file(
        file: File,
        format: AnyFormat,
        stats: Vec<&'static str>,
        header: bool,
    ) -> Result<RecordWriter, ExportError> {
        let sink = match RowEncoder::new(format, stats.clone()) {
            Some(enc) => {
                let mut out = BufWriter::with_capacity(1 << 20, file);
                if header {
                    out.write_all(&enc.header()?)?;
                }
                Sink::Lines { out, enc, scratch: Vec::new() }
            }
            None => Sink::Parquet(Box::new(ParquetSink::new(file, stats))),
        };
        Ok(RecordWriter { sink, rows: 0 })
    }

    /// Writes every record of `result` (nothing for an error result), contiguously.
    pub fn write_result(&mut self, result: &JobResult) -> Result<(), ExportError> {
        match &mut self.sink {
            Sink::Lines { out, enc, scratch } => {
                scratch.clear();
                self.rows += enc.encode_result(result, scratch)?;
                out.write_all(scratch)?;
            }
            Sink::Parquet(_) => {
                for rec in &result.records {
                    self.write(&RowRef::new(result, rec))?;
                }
            }
        }
        Ok(())
    }

    /// Writes one row.
    pub fn write(&mut self, row: &RowRef<'_>) -> Result<(), ExportError> {
        match &mut self.sink {
            Sink::Lines { out, enc, scratch } => {
                scratch.clear();
                enc.encode_rows([*row], scratch)?;
                out.write_all(scratch)?;
            }
            Sink::Parquet(p) => p.write(row)?,
        }
        self.rows += 1;
        Ok(())
    }

    /// The encoder of this file's rows, for encoding on other threads ([`RecordWriter::write_encoded`]);
    /// `None` for Parquet, whose rows only the writer can place.
    pub fn encoder(&self) -> Option<RowEncoder> {
        match &self.sink {
            Sink::Lines { enc, .. } => Some(enc.clone()),
            Sink::Parquet(_) => None,
        }
    }

    /// Writes `rows` rows that [`RowEncoder::encode_result`] of [`RecordWriter::encoder`] made.
    pub fn write_encoded(&mut self, bytes: &[u8], rows: u64) -> Result<(), ExportError> {
        match &mut self.sink {
            Sink::Lines { out, .. } => out.write_all(bytes)?,
            Sink::Parquet(_) => unreachable!("a Parquet writer has no encoder"),
        }
        self.rows += rows;
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
            Sink::Lines { out, .. } => {
                out.flush()?;
                out.get_ref().sync_data()?;
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
