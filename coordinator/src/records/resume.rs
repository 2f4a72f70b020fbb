//! Resuming a results file: a restarted `watch` finds the jobs already written and cuts the file
//! back to whole jobs, so that appending continues where the last run stopped.

use std::collections::BTreeMap;
use std::path::Path;

use super::any_format::AnyFormat;
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
    /// Bytes of a last row cut mid-write, if there was one.
    pub partial_row_bytes: u64,
    /// A last job with fewer rows than it has episodes, cut: its index and the whole rows cut.
    pub partial_job: Option<(u64, u64)>,
}

impl Resume {
    /// What was cut, in words (`None` when nothing was).
    pub fn cut_description(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.partial_row_bytes > 0 {
            parts.push(format!("a last record cut mid-write ({} bytes)", self.partial_row_bytes));
        }
        if let Some((job, rows)) = self.partial_job {
            parts.push(format!("{rows} record(s) of job {job}, which was not complete"));
        }
        (self.truncated_bytes > 0).then(|| {
            format!(
                "cut {} byte(s) from the end: {} (written again when its result comes back)",
                self.truncated_bytes,
                parts.join(" and ")
            )
        })
    }
}

/// Scans `path` and cuts it back to whole jobs: a partial trailing row, and the rows of a last job
/// with fewer rows than `expected(job)`, are removed (their result was never acknowledged, so it
/// will be delivered again). A file holding records of another sweep than `sweep` is refused
/// before anything is cut: its job indexes are not this sweep's jobs.
pub fn resume(path: &Path, sweep: &str, expected: impl Fn(u64) -> u64) -> Result<Resume, ImportError> {
    if !AnyFormat::of(path)?.appendable() {
        // Parquet: its offsets are row numbers, not bytes; cutting the file would destroy it.
        return Err(ExportError::NotAppendable.into());
    }
    let ioerr = ImportError::io(path);
    let len = std::fs::metadata(path).map_err(ioerr)?.len();
    let mut jobs: BTreeMap<u64, u64> = BTreeMap::new();
    // (job, offset of its first row) of the job being read.
    let mut last: Option<(u64, u64)> = None;
    let (mut rows_read, mut foreign) = (0u64, None);
    let mut cut = for_each_row(path, |offset, row| {
        rows_read += 1;
        if row.sweep != sweep {
            foreign.get_or_insert((rows_read, row.sweep.clone()));
        }
        if last.map(|(j, _)| j) != Some(row.job) {
            last = Some((row.job, offset));
        }
        *jobs.entry(row.job).or_default() += 1;
    })?;
    if let Some((row, other)) = foreign {
        let why = format!(
            "a record of sweep {other}, not of {sweep}: the file holds another sweep's results; give `watch` \
             another --out (or remove the file to start it afresh)"
        );
        return Err(ImportError::row(path, row, why));
    }
    let partial_row_bytes = cut.map_or(0, |at| len - at);
    let mut partial_job = None;
    if let Some((job, start)) = last {
        let rows = jobs.get(&job).copied().unwrap_or(0);
        if rows < expected(job) {
            jobs.remove(&job);
            cut = Some(start);
            partial_job = Some((job, rows));
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
    Ok(Resume { jobs, rows, truncated_bytes, partial_row_bytes, partial_job })
}
