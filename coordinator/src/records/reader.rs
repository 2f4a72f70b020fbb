//! Reading a results file back, row by row, whatever its format: for `watch`'s resume
//! (`resume`), which must find the jobs already in its output and where a partial
//! trailing record begins, and as the reference the parallel reader ([`super::scan`]) is tested
//! against.

use std::path::Path;

use super::any_format::AnyFormat;
use super::error::ImportError;
use super::format::Format;
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
    f: impl FnMut(u64, Row),
) -> Result<Option<u64>, ImportError> {
    AnyFormat::of(path)?.read_rows(path, columns, f)
}
