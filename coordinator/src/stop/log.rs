//! The decision log of a stopping sweep: every fold, keyed by (group, checkpoint), as a fleet
//! keeps it in the sweep's KV entry. A coordinator that resumes replays the results it finds
//! and checks each fold against the log, so a decision once published never silently changes
//! (a different build, a changed engine or a corrupted result shows as a mismatch).

use serde::{Deserialize, Serialize};

use super::FoldRecord;

/// Every fold made so far, in the order they were made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StopLog {
    /// The folds.
    pub folds: Vec<FoldRecord>,
}

/// A replayed fold that is not the logged one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "group {group}, checkpoint {checkpoint} ({seeds} seeds): the results replayed do not give the logged decision \
     (digest {replayed:016x}, logged {logged:016x}); were they played by another build?"
)]
pub struct Mismatch {
    /// The group.
    pub group: usize,
    /// The checkpoint.
    pub checkpoint: usize,
    /// Its seeds.
    pub seeds: u64,
    /// The logged fold's digest.
    pub logged: u64,
    /// The replayed fold's digest.
    pub replayed: u64,
}

impl StopLog {
    /// The logged fold of `group` at `checkpoint`.
    pub fn get(&self, group: usize, checkpoint: usize) -> Option<&FoldRecord> {
        self.folds.iter().find(|f| f.group == group && f.checkpoint == checkpoint)
    }

    /// Checks `fold` against the log when the log has it, else appends it: `Ok(true)` when it
    /// is new.
    pub fn check_or_append(&mut self, fold: &FoldRecord) -> Result<bool, Mismatch> {
        match self.get(fold.group, fold.checkpoint) {
            Some(logged) if logged == fold => Ok(false),
            Some(logged) => Err(Mismatch {
                group: fold.group,
                checkpoint: fold.checkpoint,
                seeds: fold.seeds,
                logged: logged.digest,
                replayed: fold.digest,
            }),
            None => {
                self.folds.push(fold.clone());
                Ok(true)
            }
        }
    }
}
