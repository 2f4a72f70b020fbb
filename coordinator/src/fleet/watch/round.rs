//! What a stopping sweep's watch knows of the round it plays: the round's jobs, the results in
//! hand, and results that came early (of a later round, read from the stream before this one is
//! complete). A result is kept once per job index; anything of a past round is a duplicate.

use std::collections::{BTreeMap, BTreeSet};

use simfleet::protocol::{Job, JobError, JobErrorKind, JobResult};

use super::super::failures::FailedJob;
use super::audit::Books;
use crate::progress::Progress;

/// The books of one round, carried from round to round.
pub(super) struct Round {
    id: String,
    /// This round's jobs, by index.
    pub(super) jobs: BTreeMap<u64, Job>,
    /// This round's results in hand, by index.
    pub(super) results: BTreeMap<u64, JobResult>,
    /// Failures the watch itself decided (out of deliveries, cancelled), by index: the failure
    /// log says so rather than the placeholder result's kind.
    pub(super) notes: BTreeMap<u64, FailedJob>,
    /// Results of jobs not (yet) in a round: a later round's, read early.
    later: BTreeMap<u64, JobResult>,
    /// The jobs of the rounds before this one.
    past: BTreeSet<u64>,
    pub(super) progress: Progress,
    pub(super) duplicates: u64,
    pub(super) reread: u64,
    pub(super) replayed: u64,
}

impl Round {
    pub(super) fn new(id: &str, progress: Progress) -> Round {
        Round {
            id: id.to_string(),
            jobs: BTreeMap::new(),
            results: BTreeMap::new(),
            notes: BTreeMap::new(),
            later: BTreeMap::new(),
            past: BTreeSet::new(),
            progress,
            duplicates: 0,
            reread: 0,
            replayed: 0,
        }
    }

    /// Starts the round of `jobs`: the previous round's jobs become past, and results that came
    /// early for these jobs are taken.
    pub(super) fn begin(&mut self, jobs: Vec<Job>) {
        self.past.extend(self.jobs.keys());
        self.results.clear();
        self.notes.clear();
        self.jobs = jobs.into_iter().map(|j| (j.index, j)).collect();
        let early: Vec<u64> = self.later.keys().filter(|i| self.jobs.contains_key(i)).copied().collect();
        for index in early {
            if let Some(r) = self.later.remove(&index) {
                self.progress.arrived(r.episodes());
                self.results.insert(index, r);
            }
        }
    }

    /// Whether every job of the round has its result.
    pub(super) fn complete(&self) -> bool {
        self.results.len() == self.jobs.len()
    }

    /// Whether a message of job `index` is still of use (the round waits for it, or it may be
    /// of a later round): parts of a job that has its result are acknowledged at once.
    pub(super) fn wants(&self, index: u64) -> bool {
        self.is_pending(index)
            || !(self.past.contains(&index) || self.jobs.contains_key(&index) || self.later.contains_key(&index))
    }

    /// Takes a result read from the stream.
    pub(super) fn take(&mut self, result: JobResult) {
        let index = result.index;
        if self.is_pending(index) {
            self.progress.arrived(result.episodes());
            self.results.insert(index, result);
        } else if self.past.contains(&index) || self.jobs.contains_key(&index) || self.later.contains_key(&index) {
            self.duplicates += 1;
        } else {
            self.later.insert(index, result);
        }
    }

    /// Fails job `index` of this round for a reason of the watch's own (`kind`): its group stops,
    /// as after a failed job in `run`.
    pub(super) fn fail(&mut self, index: u64, kind: &str, error: String) {
        if !self.is_pending(index) {
            return;
        }
        let job = self.jobs.get(&index);
        let failed =
            JobResult::failed("watch", self.id.clone(), index, job, JobError::new(JobErrorKind::Cancelled, &error));
        // Said by the collector when the round is delivered.
        self.notes.insert(index, FailedJob { job: index, kind: kind.into(), error: error.clone() });
        self.results.insert(index, failed);
    }

    /// A line naming the missing jobs, the first few by index.
    pub(super) fn describe_missing(&self) -> String {
        let missing = self.missing();
        let shown: Vec<String> = missing.iter().take(5).map(u64::to_string).collect();
        let more = if missing.len() > 5 { ", …" } else { "" };
        let s = if missing.len() == 1 { "" } else { "s" };
        format!("{} job{s} ({}{more})", missing.len(), shown.join(", "))
    }
}

impl Books for Round {
    fn sweep_id(&self) -> &str {
        &self.id
    }
    fn missing(&self) -> Vec<u64> {
        self.jobs.keys().filter(|i| !self.results.contains_key(i)).copied().collect()
    }
    fn is_pending(&self, index: u64) -> bool {
        self.jobs.contains_key(&index) && !self.results.contains_key(&index)
    }
    fn job(&self, index: u64) -> Option<Job> {
        self.jobs.get(&index).cloned()
    }
    fn reread(&mut self, result: JobResult) -> anyhow::Result<()> {
        self.take(result);
        self.reread += 1;
        Ok(())
    }
    fn replayed(&mut self) {
        self.replayed += 1;
    }
    fn flush(&mut self) -> anyhow::Result<()> {
        // Results are held until their round is complete; nothing is written before.
        Ok(())
    }
    fn progress(&self) -> &Progress {
        &self.progress
    }
}

#[cfg(test)]
mod tests {
    use simfleet::protocol::JobResult;

    use super::*;
    use crate::sweep::Sweep;

    const SWEEP: &str = "name = \"r\"\nseeds = { start = 0, count = 40 }\nepisodes_per_job = 10\n[[cells]]\n\
                         game = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\n\
                         a = [\"random\", \"random\", \"random\", \"random\"]\n";

    #[test]
    fn keeps_each_job_once_holds_early_results_for_their_round_and_drops_past_ones() {
        let sweep = Sweep::parse(SWEEP, "r.toml").unwrap();
        let job = |i: u64| sweep.job(i).unwrap();
        let result = |i: u64| JobResult::empty("w", sweep.id.clone(), i, Some(&job(i)));
        let mut round = Round::new(&sweep.id, Progress::new(false));
        round.begin(vec![job(0), job(1)]);
        assert!(round.wants(0) && round.wants(2), "this round's job, and one of a later round");
        round.take(result(2));
        round.take(result(0));
        round.take(result(0));
        assert_eq!((round.results.len(), round.duplicates, round.complete()), (1, 1, false));
        assert_eq!(Books::missing(&round), vec![1]);
        round.fail(1, "cancelled", "the sweep was cancelled".into());
        assert!(round.complete() && round.results[&1].error.is_some() && round.notes[&1].kind == "cancelled");
        round.begin(vec![job(2), job(3)]);
        assert_eq!(round.results.keys().copied().collect::<Vec<_>>(), vec![2], "the early result is taken");
        assert!(!round.wants(0) && !round.wants(2) && round.wants(3));
        round.take(result(1));
        assert_eq!((round.results.len(), round.duplicates), (1, 2), "a past job's result is a duplicate");
    }
}
