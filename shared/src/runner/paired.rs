//! A summary job with paired policy sets ([`Job::paired`]): every set of the job's (game,
//! scenario) played on the same seeds, so that the result carries, besides each set's aggregate,
//! the moments of the per-seed differences between every two sets.
//!
//! Each set is played over the job's seeds in turn, through the one play loop
//! ([`super::play_job`]), into an aggregate of its own. The pairing keeps, per set and seed, the
//! team reward and whether the episode was a win (16 bytes a seed: a job of a thousand seeds and
//! seven sets holds 112 KB), and counts the differences at the end, in seed order, so the same
//! job gives the same bytes on every machine.

use std::time::Instant;

use super::{buckets_of, play_job, result_of, RecordSink, SummarySink};
use crate::aggregate::{differences, Paired, PairedCell, SeedValue};
use crate::games::GameKind;
use crate::protocol::{EpisodeRecord, Job, JobError, JobResult};
use crate::RunEnv;

/// One set's episodes: counted into its aggregate, its figures of each seed kept, shown to the
/// observer with the set's number.
struct SetSink<'a> {
    summary: SummarySink,
    values: Vec<SeedValue>,
    win: Option<&'static str>,
    set: usize,
    observe: &'a mut dyn FnMut(usize, &EpisodeRecord),
}

impl RecordSink for SetSink<'_> {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        (self.observe)(self.set, &record);
        self.values.push(SeedValue {
            seed: record.seed,
            team_reward: record.team_reward,
            win: Some(record.outcome.as_str()) == self.win,
        });
        self.summary.episode(record, replay);
    }
}

/// Plays `job` (a summary job with paired sets) into its result.
pub(super) fn run(job: &Job, env: &RunEnv, observe: &mut dyn FnMut(usize, &EpisodeRecord)) -> JobResult {
    let started = Instant::now();
    let kind = job.game.parse::<GameKind>().ok();
    let win = kind.and_then(|k| k.info().win_outcome);
    let capacity = super::sink::capacity(job);
    let mut cells = Vec::with_capacity(job.paired.len() + 1);
    let mut values = Vec::with_capacity(job.paired.len() + 1);
    for (set, policy_set) in job.policy_sets().enumerate() {
        // The job as one set plays it: the set's records are those of a job of that one set.
        let one = job.for_set(policy_set);
        let mut sink = SetSink {
            summary: SummarySink::new(buckets_of(job)),
            values: Vec::with_capacity(capacity),
            win,
            set,
            observe: &mut *observe,
        };
        let played = play_job(&one, env, &mut sink);
        if let Some(e) = played.error {
            let error = JobError { message: format!("policy set {:?}: {}", policy_set.name, e.message), ..e };
            let mut failed = result_of(job, env, None, Some(error), started);
            failed.engine_version = played.engine_version;
            return failed;
        }
        cells.push(sink.summary.finish());
        values.push(sink.values);
    }
    let mut result = result_of(job, env, kind, None, started);
    let differences = differences(&values, win.is_some());
    let mut cells = cells.into_iter();
    result.summary = cells.next().map(Box::new);
    let cells = job.paired.iter().zip(cells).map(|(p, summary)| PairedCell { policy_set: p.name.clone(), summary });
    result.paired = Some(Box::new(Paired { cells: cells.collect(), differences }));
    result
}
