//! The jobs of one round: a plain sweep's one round is every job of the sweep (not listed: a
//! sweep may have millions), a stopping sweep's the next block of every open group.

use simfleet::protocol::Job;

use crate::sweep::Sweep;

/// The jobs of a round, by position.
#[derive(Debug)]
pub enum RoundJobs {
    /// Jobs `0..n` of the sweep.
    All(u64),
    /// These jobs, in job index order.
    Listed(Vec<Job>),
}

impl RoundJobs {
    /// How many jobs.
    pub fn len(&self) -> u64 {
        match self {
            RoundJobs::All(n) => *n,
            RoundJobs::Listed(jobs) => jobs.len() as u64,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The job at `position` (not its index, for a listed round).
    pub fn job(&self, sweep: &Sweep, position: u64) -> Option<Job> {
        match self {
            RoundJobs::All(_) => sweep.job(position),
            RoundJobs::Listed(jobs) => jobs.get(position as usize).cloned(),
        }
    }

    /// The episodes the round plays.
    pub fn episodes(&self, sweep: &Sweep) -> u64 {
        match self {
            RoundJobs::All(_) => sweep.episode_count(),
            RoundJobs::Listed(jobs) => jobs.iter().map(|j| j.seeds.count).sum(),
        }
    }
}
