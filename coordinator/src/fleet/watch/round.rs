//! What a stopping sweep's watch knows of the round it plays: the round's jobs, the results in
//! hand, and results that came early (of a later round, read from the stream before this one is
//! complete). A result is kept once per job index; anything of a past round is a duplicate.

use std::collections::{BTreeMap, BTreeSet};

use simfleet::protocol::{Job, JobError, JobErrorKind, JobResult};

use super::super::failures::FailedJob;
use super::books::{describe, Books};
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

    /// Fails a job of this round for a reason of the watch's own (`failure.kind`): its group
    /// stops, as after a failed job in `run`. Said by the collector when the round is delivered.
    fn fail_job(&mut self, failure: FailedJob) {
        let index = failure.job;
        if !self.is_pending(index) {
            return;
        }
        let job = self.jobs.get(&index);
        let error = JobError::new(JobErrorKind::Cancelled, &failure.error);
        self.results.insert(index, JobResult::failed("watch", self.id.clone(), index, job, error));
        self.notes.insert(index, failure);
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
    fn take(&mut self, result: JobResult) -> anyhow::Result<()> {
        Round::take(self, result);
        Ok(())
    }
    fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        self.fail_job(failure);
        Ok(())
    }
    fn wants(&self, index: u64) -> bool {
        Round::wants(self, index)
    }
    fn complete(&self) -> bool {
        Round::complete(self)
    }
    fn waiting_for(&self) -> String {
        format!("{} of this round", describe(&self.missing()))
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
        assert!(Round::wants(&round, 0) && Round::wants(&round, 2), "this round's job, and one of a later round");
        round.take(result(2));
        round.take(result(0));
        round.take(result(0));
        assert_eq!((round.results.len(), round.duplicates, round.complete()), (1, 1, false));
        assert_eq!(Books::missing(&round), vec![1]);
        round.fail_job(FailedJob { job: 1, kind: "cancelled".into(), error: "the sweep was cancelled".into() });
        assert!(round.complete() && round.results[&1].error.is_some() && round.notes[&1].kind == "cancelled");
        round.begin(vec![job(2), job(3)]);
        assert_eq!(round.results.keys().copied().collect::<Vec<_>>(), vec![2], "the early result is taken");
        assert!(!Round::wants(&round, 0) && !Round::wants(&round, 2) && Round::wants(&round, 3));
        round.take(result(1));
        assert_eq!((round.results.len(), round.duplicates), (1, 2), "a past job's result is a duplicate");
    }
}
