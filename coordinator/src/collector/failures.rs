//! The failed jobs of a watched sweep, kept beside the output file as `<out>.failed.jsonl`
//! (one `{"job", "kind", "error"}` object per line).
//!
//! `watch` acknowledges an error result like any other, so a restarted `watch` would never see
//! it again: the log is how it knows which jobs already failed. It is written and flushed before
//! the result is acknowledged, like the records, and created only when a job fails.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One failed job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedJob {
    /// Job index.
    pub job: u64,
    /// The error kind (`invalid_job`, `cancelled`, … or `max_deliveries`).
    pub kind: String,
    /// The error, as a person reads it.
    pub error: String,
}

/// The failure log of one output file.
pub struct FailureLog {
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl FailureLog {
    /// The log's path for output file `out`.
    pub fn path_for(out: &Path) -> PathBuf {
        let mut name = out.file_name().unwrap_or_default().to_os_string();
        name.push(".failed.jsonl");
        out.with_file_name(name)
    }

    /// Opens the log of `out`: `resume` keeps and reads what is there, otherwise it is removed.
    pub fn open(out: &Path, resume: bool) -> anyhow::Result<(FailureLog, BTreeMap<u64, FailedJob>)> {
        let path = FailureLog::path_for(out);
        let mut known = BTreeMap::new();
        if resume && path.exists() {
            for (n, line) in BufReader::new(File::open(&path)?).lines().enumerate() {
                let line = line?;
                // A line cut by a crash was never acknowledged: the job comes again.
                match serde_json::from_str::<FailedJob>(&line) {
                    Ok(f) => {
                        known.insert(f.job, f);
                    }
                    Err(_) if line.trim().is_empty() => {}
                    Err(e) => tracing::warn!(file = %path.display(), line = n + 1, error = %e, "skipping a bad line"),
                }
            }
        } else if path.exists() {
            std::fs::remove_file(&path)?;
        }
        Ok((FailureLog { path, file: None }, known))
    }

    /// Appends a failure (flushed by [`FailureLog::flush`]).
    pub fn push(&mut self, failure: &FailedJob) -> anyhow::Result<()> {
        if self.file.is_none() {
            let f = OpenOptions::new().create(true).append(true).open(&self.path)?;
            self.file = Some(BufWriter::new(f));
        }
        let w = self.file.as_mut().expect("opened above");
        serde_json::to_writer(&mut *w, failure)?;
        w.write_all(b"\n")?;
        Ok(())
    }

    /// Flushes what was pushed to the file and syncs it to disk (`watch` acknowledges a failed
    /// job's result only after this).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        if let Some(w) = &mut self.file {
            w.flush()?;
            w.get_ref().sync_data()?;
        }
        Ok(())
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
