//! The format of a results file, chosen by its extension: [`AnyFormat`], which implements
//! [`Format`] by handing each call to the format's own implementation (enum dispatch, as
//! shakmaty's `VariantPosition`). This is the one place that matches on a format; a fifth
//! format is a module beside the four, a variant here and an arm in `dispatch!`.

use std::fs::File;
use std::path::Path;

use super::csv::Csv;
use super::error::{ExportError, ImportError};
use super::format::Format;
use super::jsonl::JsonLines;
use super::msgpack::Msgpack;
use super::parquet::Parquet;
use super::row::{Row, RowRef};
use super::scan::block::{Accumulate, Need};
use super::summary_row::CellRow;

/// A results file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyFormat {
    /// JSON Lines: one object a line.
    Jsonl,
    /// Comma-separated values with one header.
    Csv,
    /// Concatenated MessagePack maps (named fields, no outer array).
    Msgpack,
    /// Apache Parquet.
    Parquet,
}

impl AnyFormat {
    /// Every format.
    pub const ALL: [AnyFormat; 4] = [AnyFormat::Jsonl, AnyFormat::Csv, AnyFormat::Msgpack, AnyFormat::Parquet];

    /// The format of `path`, by extension.
    pub fn of(path: &Path) -> Result<AnyFormat, ExportError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        AnyFormat::ALL
            .into_iter()
            .find(|f| f.extension() == ext)
            .ok_or_else(|| ExportError::UnknownFormat(ext.to_string()))
    }
}

/// Runs `$body` with `$f` bound to the implementation of `$format`.
macro_rules! dispatch {
    ($format:expr, $f:ident => $body:expr) => {
        match $format {
            AnyFormat::Jsonl => {
                let $f = JsonLines;
                $body
            }
            AnyFormat::Csv => {
                let $f = Csv;
                $body
            }
            AnyFormat::Msgpack => {
                let $f = Msgpack;
                $body
            }
            AnyFormat::Parquet => {
                let $f = Parquet;
                $body
            }
        }
    };
}

impl Format for AnyFormat {
    fn extension(self) -> &'static str {
        dispatch!(self, f => f.extension())
    }

    fn appendable(self) -> bool {
        dispatch!(self, f => f.appendable())
    }

    fn header(self, stats: &[&'static str]) -> Result<Vec<u8>, ExportError> {
        dispatch!(self, f => f.header(stats))
    }

    fn encode_rows<'a>(
        self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        stats: &[&'static str],
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        dispatch!(self, f => f.encode_rows(rows, stats, out))
    }

    fn read_rows(
        self,
        path: &Path,
        columns: Option<&[&str]>,
        each: impl FnMut(u64, Row),
    ) -> Result<Option<u64>, ImportError> {
        dispatch!(self, f => f.read_rows(path, columns, each))
    }

    fn scan<A: Accumulate>(
        self,
        path: &Path,
        need: Need,
        threads: usize,
        block: usize,
        each: &mut impl FnMut(A),
    ) -> Result<bool, ImportError> {
        dispatch!(self, f => f.scan(path, need, threads, block, each))
    }

    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError> {
        dispatch!(self, f => f.write_cells(file, rows))
    }

    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError> {
        dispatch!(self, f => f.read_cells(path))
    }

    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError> {
        dispatch!(self, f => f.is_cell_file(path))
    }
}
