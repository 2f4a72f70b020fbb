//! Summary files: one row per sweep cell ([`CellRow`]), what `--out` gets when a sweep collects
//! summaries (docs/records.md, "Summary files"), in whichever format the file's extension names.

use std::fs::File;
use std::path::Path;

use super::any_format::AnyFormat;
use super::error::{ExportError, ImportError};
use super::format::Format;

pub use super::summary_row::{merge_differences, CellDifference, CellRow};

/// Writes `rows` to `path` (format by extension), replacing it.
pub fn write_cells(path: &Path, rows: &[CellRow]) -> Result<(), ExportError> {
    let format = AnyFormat::of(path)?;
    format.write_cells(File::create(path)?, rows)
}

/// Whether `path` is a summary file (its rows carry an `aggregate`), not a records file.
pub fn is_cell_file(path: &Path) -> Result<bool, ImportError> {
    AnyFormat::of(path)?.is_cell_file(path)
}

/// Every row of the summary file `path`.
pub fn read_cells(path: &Path) -> Result<Vec<CellRow>, ImportError> {
    AnyFormat::of(path)?.read_cells(path)
}
