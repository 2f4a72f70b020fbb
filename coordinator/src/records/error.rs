//! Why a results file cannot be written or read. Errors name the file and, when reading, the
//! 1-based row, so that a person can open the file at the place that is wrong.

use std::io;
use std::path::Path;

/// Why writing records failed.
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

/// Why a results file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Unknown extension, or a file that cannot be resumed.
    #[error(transparent)]
    Format(#[from] ExportError),
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
    /// A directory with no results file in it (or no path at all).
    #[error("no results file in {0:?}: a directory of shards holds .jsonl, .csv, .msgpack or .parquet files")]
    NoShards(String),
    /// Records and summary files read as one table.
    #[error(
        "{summary} is a summary file (one row per cell) but {records} holds episode records: one table cannot \
         mix them; read each kind on its own, or turn the records into cell rows first with \
         `coordinator summary RECORDS --out CELLS`"
    )]
    Mixed {
        /// A summary file among the inputs.
        summary: String,
        /// A records file among the inputs.
        records: String,
    },
}

impl ImportError {
    /// Reading `path` failed: for `map_err`.
    pub fn io(path: &Path) -> impl Fn(io::Error) -> ImportError + Copy + '_ {
        move |source| ImportError::Io { path: path.display().to_string(), source }
    }

    /// Row `row` (1-based) of `path` does not parse.
    pub fn row(path: &Path, row: u64, message: impl ToString) -> ImportError {
        ImportError::Row { path: path.display().to_string(), row, message: message.to_string() }
    }
}
