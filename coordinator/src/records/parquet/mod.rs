//! Parquet export and import of episode rows (`--out results.parquet`).
//!
//! One column per scalar field of the row (`job` and `seed` as unsigned 64-bit integers,
//! `length` as unsigned 32-bit), `agent_rewards` as a `list<double>`, and one nullable column
//! `stats.<key>` per stats key of the sweep's games (`GameKind::info().stat_keys`), null where a
//! record lacks the key. Pages are Snappy-compressed and dictionary-encoded, so pandas, polars
//! and pyarrow read the file without options.
//!
//! Written with the parquet crate's low-level column writer (no arrow dependency), one row group
//! every 64k rows, so memory stays flat. The file is complete only when the writer is finished
//! (`RecordWriter::finish`): unlike the line formats, a Parquet file cannot be appended to or
//! resumed by `watch`.
//!
//! # Layout
//!
//! - [`schema`]: column types, including the stats kinds inferred from the first row group.
//! - [`columns`]: column buffers of one row group (values, definition and repetition levels).
//! - [`writer`]: [`ParquetSink`], the streaming writer.
//! - [`reader`]: reading a file back into rows, row at a time.
//! - [`scan`]: reading only the needed column chunks (found by `needed`), row groups in parallel.
//! - [`summary_file`]: summary files.

pub mod columns;
mod needed;
pub mod reader;
pub mod scan;
pub mod schema;
pub mod summary_file;
pub mod writer;

pub use writer::ParquetSink;

#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::format::Format;
use super::row::{Row, RowRef};
use super::scan::block::{Accumulate, Need};
use super::summary_row::CellRow;

/// Apache Parquet.
#[derive(Clone, Copy, Debug)]
pub struct Parquet;

impl Format for Parquet {
    fn extension(self) -> &'static str {
        "parquet"
    }

    fn appendable(self) -> bool {
        false
    }

    fn encode_rows<'a>(
        self,
        _rows: impl IntoIterator<Item = RowRef<'a>>,
        _stats: &[&'static str],
        _out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        Err(ExportError::NotAppendable)
    }

    fn read_rows(
        self,
        path: &Path,
        columns: Option<&[&str]>,
        f: impl FnMut(u64, Row),
    ) -> Result<Option<u64>, ImportError> {
        reader::for_each_row(path, columns, f).map_err(|(row, message)| ImportError::row(path, row, message))?;
        Ok(None)
    }

    fn scan<A: Accumulate>(
        self,
        path: &Path,
        need: Need,
        threads: usize,
        _block: usize,
        each: &mut impl FnMut(A),
    ) -> Result<bool, ImportError> {
        scan::scan(path, need, threads.max(1), each)?;
        Ok(false)
    }

    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError> {
        summary_file::write_parquet(file, rows)
    }

    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError> {
        let file = File::open(path).map_err(ImportError::io(path))?;
        summary_file::read_cells(file).map_err(|(row, message)| ImportError::row(path, row as u64 + 1, message))
    }

    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError> {
        let ioerr = ImportError::io(path);
        let mut file = File::open(path).map_err(ioerr)?;
        let mut magic = [0u8; 4];
        if file.read_exact(&mut magic).is_err() {
            return Ok(false);
        }
        Ok(summary_file::has_aggregate(File::open(path).map_err(ioerr)?))
    }
}
