//! What a results format is: the [`Format`] trait, one implementation per format, each in its
//! own module with everything it knows ([`super::jsonl`], [`super::csv`], [`super::msgpack`],
//! [`super::parquet`]), the shape of ripgrep's printers. The rest of `records/` reaches a format
//! only through [`super::AnyFormat`], the file's format chosen by its extension, which
//! implements the trait by dispatching to the four: no other module matches on a format.

use std::fs::File;
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::row::{Row, RowRef};
use super::scan::block::{Accumulate, Need};
use super::summary_row::CellRow;

/// A results format: how its rows are written and read one at a time, how its blocks are
/// decoded in parallel, and how a summary file (one row per cell) is written and read in it.
///
/// Methods take `self` by value: a format is a unit value (or [`super::AnyFormat`]'s tag).
pub trait Format: Copy {
    /// The file extension that names the format (without the dot).
    fn extension(self) -> &'static str;

    /// Whether the rows are records appended one after another (JSON Lines, CSV, MessagePack):
    /// then [`Format::encode_rows`] makes their bytes on any thread, and a file can be appended
    /// to and cut back by a resumed `watch`. Parquet's rows are placed in row groups by its own
    /// writer, [`super::parquet::ParquetSink`].
    fn appendable(self) -> bool {
        true
    }

    /// The bytes a new file begins with, before any row (CSV's header line; else nothing).
    /// `stats` are the stats columns of the sweep's games.
    fn header(self, stats: &[&'static str]) -> Result<Vec<u8>, ExportError> {
        let _ = stats;
        Ok(Vec::new())
    }

    /// Appends the bytes of `rows` to `out`; returns how many. Only for an
    /// [`appendable`](Format::appendable) format ([`ExportError::NotAppendable`] for Parquet).
    fn encode_rows<'a>(
        self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        stats: &[&'static str],
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError>;

    /// Calls `f` with each row of the file at `path` and its offset (a byte offset; a row number
    /// for Parquet), reading only `columns` where the format can (Parquet; the others decode
    /// whole rows). A partial trailing row is reported as `Ok(Some(offset))`: where the file
    /// should be cut.
    fn read_rows(
        self,
        path: &Path,
        columns: Option<&[&str]>,
        f: impl FnMut(u64, Row),
    ) -> Result<Option<u64>, ImportError>;

    /// Decodes the file at `path` in blocks on `threads` threads, only the columns in `need`,
    /// and hands each block's accumulator to `each` in file order. `block` is the size of a line
    /// format's blocks (Parquet's are its row groups). Returns whether the file ended in a
    /// partial record (skipped).
    fn scan<A: Accumulate>(
        self,
        path: &Path,
        need: Need,
        threads: usize,
        block: usize,
        each: &mut impl FnMut(A),
    ) -> Result<bool, ImportError>;

    /// Writes a summary file of `rows` to `file` (created empty).
    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError>;

    /// Every row of the summary file at `path`.
    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError>;

    /// Whether the file at `path` is a summary file (its rows carry an `aggregate`) rather than
    /// a records file.
    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError>;
}
