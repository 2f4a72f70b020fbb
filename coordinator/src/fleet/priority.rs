//! `coordinator priority SWEEP CLASS [--share N]`: moves a sweep between classes (and changes
//! its share) while it runs.
//!
//! The class lives in the sweep's KV entry, not in its jobs: no job moves, so none is lost or
//! repeated. Workers read the entry each time they list the sweeps with jobs (every second) and
//! give their next free slots by the new class; jobs already delivered finish where they are.

use simfleet::names::{Priority, SweepEntry};

use super::Fleet;

/// A sweep's class and share, before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassChange {
    /// Class and share before.
    pub from: (Priority, u32),
    /// Class and share now.
    pub to: (Priority, u32),
}

/// Sets sweep `id`'s class and/or share (what is `None` stays), leaving the rest of its entry
/// as the bucket holds it. An unknown sweep is an error that says where to find the ids.
pub async fn set_class(
    fleet: &Fleet,
    id: &str,
    priority: Option<Priority>,
    share: Option<u32>,
) -> anyhow::Result<ClassChange> {
    let before = fleet.entry(id).await?;
    let change = |e: &SweepEntry| (priority.unwrap_or(e.priority), share.unwrap_or(e.share));
    fleet
        .modify_entry(id, |stored| {
            let stored = stored.unwrap_or_else(|| before.clone());
            let (priority, share) = change(&stored);
            SweepEntry { priority, share, ..stored }
        })
        .await?;
    Ok(ClassChange { from: (before.priority, before.share), to: change(&before) })
}
