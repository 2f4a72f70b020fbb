//! Playing the episodes of one job with `llm` seats concurrently, into a sink in seed order.
//!
//! An `llm` seat blocks its thread for every model call, so a job played seed after seed keeps
//! one call in flight. But every episode is independent and a pure function of (scenario,
//! team, seed, the model's answers), so the episodes of a job can be played at once on as many
//! threads, each with a game of its own (prepared from the job: validation is cheap next to one
//! model call). [`ConcurrentJob`] is that bookkeeping: threads [`claim`](ConcurrentJob::claim)
//! seed offsets and [`play`](ConcurrentJob::play) them; each played episode waits until those
//! of the seeds before it have gone to the sink, so the sink sees them in seed order, as from
//! [`super::play_job`]; whoever plays the last one takes the result with
//! [`finish`](ConcurrentJob::finish), made by [`super::result_of`] as every result is. The
//! worker feeds it to its I/O threads; [`run_job_concurrently`] plays one job on scoped threads
//! (`coordinator run`).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::{panic_error, prepare_job, result_of, Collected, RecordSink, SummarySink};
use crate::games::{AnyGame, Episode, GameKind};
use crate::protocol::{Collect, Job, JobError, JobResult};
use crate::RunEnv;

/// Whether any seat of `job` is an `llm` seat (a string check: no parsing, no allocation): such
/// a job is played concurrently.
pub fn has_llm_seats(job: &Job) -> bool {
    job.policy_set.seats.iter().any(|s| crate::policy::is_llm_spec(s))
}

struct Progress<S> {
    /// The next seed offset to hand out.
    next: u64,
    /// Episodes played (or failed) of those handed out.
    finished: u64,
    /// The offset of the next episode the sink takes.
    emitted: u64,
    /// Episodes played ahead of `emitted`, by seed offset.
    waiting: BTreeMap<u64, Episode>,
    /// Where the episodes go, in seed order (taken by `finish`).
    sink: Option<S>,
    /// The first failure (an engine panic): no more episodes are handed out.
    failed: Option<JobError>,
    /// Set once `finish` has taken the result.
    finished_job: bool,
}

/// A job whose episodes are played by several threads into one sink `S`.
pub struct ConcurrentJob<S> {
    job: Arc<Job>,
    env: RunEnv,
    kind: GameKind,
    started: Instant,
    count: u64,
    /// Prepared games not in use: each thread takes one (or prepares one) per episode.
    idle: Mutex<Vec<AnyGame>>,
    progress: Mutex<Progress<S>>,
}

impl<S> std::fmt::Debug for ConcurrentJob<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConcurrentJob").field("sweep", &self.job.sweep).field("index", &self.job.index).finish()
    }
}

impl<S: RecordSink> ConcurrentJob<S> {
    /// Validates `job` (preparing its first game); its episodes will go to `sink`. A job that
    /// cannot be played is `Err` with its error result, the one [`super::play_job`] gives.
    pub fn prepare(job: Arc<Job>, env: RunEnv, sink: S) -> Result<ConcurrentJob<S>, (Box<JobResult>, S)> {
        let started = Instant::now();
        let (kind, game) = match prepare_job(&job, &env) {
            Ok(prepared) => prepared,
            Err(e) => return Err((Box::new(result_of(&job, &env, None, Some(e), started)), sink)),
        };
        let progress = Progress {
            next: 0,
            finished: 0,
            emitted: 0,
            waiting: BTreeMap::new(),
            sink: Some(sink),
            failed: None,
            finished_job: false,
        };
        Ok(ConcurrentJob {
            kind,
            started,
            count: job.seeds.count,
            idle: Mutex::new(vec![game]),
            progress: Mutex::new(progress),
            job,
            env,
        })
    }

    /// The job.
    pub fn job(&self) -> &Arc<Job> {
        &self.job
    }

    /// Episodes in the job.
    pub fn episodes(&self) -> u64 {
        self.count
    }

    fn progress(&self) -> std::sync::MutexGuard<'_, Progress<S>> {
        // Nothing panics while holding it (episodes are played outside the lock; a sink that
        // panicked leaves it poisoned, and the job's result then says so through `failed`).
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next seed offset to play, or `None` when every episode has been handed out (or one
    /// failed).
    pub fn claim(&self) -> Option<u64> {
        let mut p = self.progress();
        if p.failed.is_some() || p.next >= self.count {
            return None;
        }
        p.next += 1;
        Some(p.next - 1)
    }

    /// Whether every episode has been handed out (or one failed): a queue can let go of the job.
    pub fn exhausted(&self) -> bool {
        let p = self.progress();
        p.failed.is_some() || p.next >= self.count
    }

    /// Plays the claimed seed offset `offset`, and hands the sink every episode that no longer
    /// waits for an earlier one. Returns true when this was the last episode to finish: the
    /// caller then takes the result with [`ConcurrentJob::finish`].
    pub fn play(&self, offset: u64) -> bool {
        let seed = self.job.seeds.start.wrapping_add(offset);
        let game = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let played = catch_unwind(AssertUnwindSafe(|| {
            let mut game = match game {
                Some(g) => g,
                None => prepare_job(&self.job, &self.env)?.1,
            };
            let episode = game.play(seed, self.job.replay);
            Ok::<_, JobError>((game, episode))
        }));
        let mut p = self.progress();
        match played {
            Ok(Ok((game, episode))) => {
                self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(game);
                p.waiting.insert(offset, episode);
                let p = &mut *p;
                if let (None, Some(sink)) = (&p.failed, p.sink.as_mut()) {
                    let (waiting, emitted) = (&mut p.waiting, &mut p.emitted);
                    let emitted = catch_unwind(AssertUnwindSafe(|| {
                        while let Some(ep) = waiting.remove(emitted) {
                            sink.episode(ep.record, ep.replay);
                            *emitted += 1;
                        }
                    }));
                    if let Err(panic) = emitted {
                        p.failed.get_or_insert(panic_error(&panic));
                    }
                }
            }
            Ok(Err(e)) => {
                p.failed.get_or_insert(e);
            }
            Err(panic) => {
                p.failed.get_or_insert(panic_error(&panic));
            }
        }
        p.finished += 1;
        let handed_out = p.failed.is_some() || p.next >= self.count;
        let last = handed_out && p.finished == p.next && !p.finished_job;
        if last {
            p.finished_job = true;
        }
        last
    }

    /// The job's result (without records: they went to the sink) and the sink, or the first
    /// failure. Call once, after [`ConcurrentJob::play`] returned true; `None` when called
    /// again.
    pub fn finish(&self) -> Option<(JobResult, S)> {
        let mut p = self.progress();
        let sink = p.sink.take()?;
        let result = result_of(&self.job, &self.env, Some(self.kind), p.failed.take(), self.started);
        Some((result, sink))
    }
}

/// Plays `job` with up to `threads` episodes at once (scoped threads) into the result its
/// `collect` asks for, as [`super::run_job`] does: equal to its result but for
/// `elapsed_seconds`.
pub fn run_job_concurrently(job: &Job, env: &RunEnv, threads: usize) -> JobResult {
    match job.collect {
        Collect::Records => {
            let (result, records) = play_concurrently(job, env, threads, Collected::for_job(job));
            records.into_result(result)
        }
        Collect::Summary => {
            let sink = SummarySink::new(super::buckets_of(job));
            let (result, summary) = play_concurrently(job, env, threads, sink);
            summary.into_result(result)
        }
    }
}

/// Plays `job` into `sink` on up to `threads` scoped threads.
fn play_concurrently<S: RecordSink + Send>(job: &Job, env: &RunEnv, threads: usize, sink: S) -> (JobResult, S) {
    let run = match ConcurrentJob::prepare(Arc::new(job.clone()), env.clone(), sink) {
        Ok(run) => run,
        Err((result, sink)) => return (*result, sink),
    };
    let threads = threads.clamp(1, usize::try_from(run.episodes()).unwrap_or(usize::MAX).max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(offset) = run.claim() {
                    run.play(offset);
                }
            });
        }
    });
    run.finish().expect("finished once, here")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};
    use crate::protocol::{PolicySet, SeedRange, PROTOCOL_VERSION};

    /// Answers every call with the same legal-looking action after a short wait, counting the
    /// calls in flight at once.
    struct Slow {
        now: AtomicUsize,
        peak: AtomicUsize,
    }

    impl ChatTransport for Slow {
        fn complete(&self, _: &ChatRequest) -> Result<ChatResponse, TransportError> {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(2));
            self.now.fetch_sub(1, Ordering::SeqCst);
            // A deterministic answer: a pass is legal in every discussion turn.
            Ok(ChatResponse {
                content: r#"{"action": "pass"}"#.into(),
                prompt_tokens: Some(1),
                completion_tokens: Some(1),
            })
        }
        fn sleep(&self, _: Duration) {}
    }

    fn job(seats: &[&str], count: u64) -> Job {
        Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "s-1".into(),
            index: 3,
            game: "deception".into(),
            scenario: "quick_4p1i".into(),
            policy_set: PolicySet { name: "p".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
            seeds: SeedRange { start: 10, count },
            replay: false,
            collect: Default::default(),
            paired: Vec::new(),
        }
    }

    #[test]
    fn concurrent_play_gives_run_jobs_records_in_seed_order() {
        let chat = Arc::new(Slow { now: AtomicUsize::new(0), peak: AtomicUsize::new(0) });
        let env = RunEnv { chat: Some(chat.clone()), worker: "w".into(), agents: None };
        let seats = ["llm?model=m&endpoint=http://x/v1&max_retries=0", "heuristic", "heuristic", "heuristic"];
        let j = job(&seats, 12);
        assert!(has_llm_seats(&j) && !has_llm_seats(&job(&["heuristic"; 4], 1)));
        let mut one = crate::run_job(&j, &env);
        let mut many = run_job_concurrently(&j, &env, 6);
        assert!(chat.peak.load(Ordering::SeqCst) > 1, "episodes overlapped");
        assert_eq!(many.records.iter().map(|r| r.seed).collect::<Vec<_>>(), (10..22).collect::<Vec<_>>());
        // Latencies differ between runs; everything else is the same.
        for r in one.records.iter_mut().chain(many.records.iter_mut()) {
            for seat in r.stats.as_map_mut().get_mut("llm").and_then(|v| v.as_object_mut()).unwrap().values_mut() {
                for key in ["latency_ms_total", "latency_ms_max"] {
                    seat[key] = 0.into();
                }
                for e in seat["exchanges"].as_array_mut().unwrap() {
                    e["latency_ms"] = 0.into();
                }
            }
        }
        many.elapsed_seconds = one.elapsed_seconds;
        assert_eq!(one.encode(), many.encode());
    }

    #[test]
    fn invalid_jobs_fail_as_run_job_fails() {
        let env = RunEnv::default();
        let j = job(&["llm?model=m&endpoint=http://x/v1", "heuristic", "heuristic", "heuristic"], 3);
        let a = crate::run_job(&j, &env);
        let b = run_job_concurrently(&j, &env, 4);
        assert_eq!(a.error, b.error);
        assert_eq!(b.error.unwrap().field.as_deref(), Some("policy_set[0]"));
    }
}
