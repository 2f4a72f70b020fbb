//! One writer per results file: `watch` and `results` hold an exclusive OS lock on their
//! `--out` file for as long as they write it.
//!
//! Two writers of one file interleave their records, and the file then no longer resumes. The
//! lock is the operating system's advisory whole-file lock (`flock` on Unix, `LockFileEx` on
//! Windows, through `std::fs::File::try_lock`), taken on the output file itself, so it is
//! released when the process ends however it ends (a crash, `kill -9`, a node gone): nothing
//! stale is left behind to clean up. A second process asking for it fails at once, naming the
//! file.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The lock on an output file; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    // Holding the handle holds the lock.
    _file: File,
}

impl OutputLock {
    /// Takes the lock on `path`, creating the file empty if it does not exist (an existing file
    /// is not changed). Fails at once if another process holds it.
    pub fn acquire(path: &Path) -> anyhow::Result<OutputLock> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| anyhow::anyhow!("cannot open the output file {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(OutputLock { path: path.to_path_buf(), _file: file }),
            Err(TryLockError::WouldBlock) => anyhow::bail!(
                "{} is being written by another process (a `coordinator watch` or `coordinator results` holds its \
                 lock): two writers would interleave their records. Stop the other one, or write to another file",
                path.display()
            ),
            Err(TryLockError::Error(e)) => anyhow::bail!("cannot lock the output file {}: {e}", path.display()),
        }
    }

    /// The locked file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_file_fails_naming_it_and_a_dropped_one_frees_it() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("results.jsonl");
        std::fs::write(&out, "kept\n").unwrap();
        let first = OutputLock::acquire(&out).unwrap();
        let second = OutputLock::acquire(&out).unwrap_err().to_string();
        assert!(second.contains(&out.display().to_string()) && second.contains("another process"), "{second}");
        drop(first);
        let again = OutputLock::acquire(&out).unwrap();
        assert_eq!(again.path(), out);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n", "taking the lock changes nothing");
    }
}
