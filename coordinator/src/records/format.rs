//! The four formats of a results file, chosen by the file's extension.

use std::path::Path;

use super::error::ExportError;

/// A results file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON Lines: one object a line.
    Jsonl,
    /// Comma-separated values with one header.
    Csv,
    /// Concatenated MessagePack maps (named fields, no outer array).
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
