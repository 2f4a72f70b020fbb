//! Resuming a results file: a restarted `watch` finds the jobs already written and cuts the file
//! back to whole jobs, so that appending continues where the last run stopped.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::format::Format;
use super::reader::for_each_row;

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
        return Err(ExportError::NotAppendable.into());
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
