//! Playing the episodes of one job with `llm` seats concurrently.
//!
//! An `llm` seat blocks its thread for every model call, so a job played seed after seed keeps
//! one call in flight. But every episode is independent and a pure function of (scenario,
//! team, seed, the model's answers), so the episodes of a job can be played at once on as many
//! threads, each with a game of its own (prepared from the job: validation is cheap next to one
//! model call), and the records put back in seed order. [`ConcurrentJob`] is that bookkeeping:
//! threads [`claim`](ConcurrentJob::claim) seed offsets, [`play`](ConcurrentJob::play) them,
//! and whoever plays the last one builds the result with
//! [`finish`](ConcurrentJob::finish). Its result equals [`crate::run_job`]'s for the same job
//! (but for `elapsed_seconds`). The worker feeds it to its I/O threads; [`run_job_concurrently`]
//! plays one job on scoped threads (`coordinator run`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::games::{AnyGame, Episode};
use crate::protocol::{Job, JobError, JobErrorKind, JobResult, PROTOCOL_VERSION};
use crate::runner::{engine_version, panic_message, prepare_job};
use crate::RunEnv;

/// Whether a policy spec string names the `llm` policy.
pub fn is_llm_spec(spec: &str) -> bool {
    spec == "llm" || spec.starts_with("llm?") || spec.starts_with("llm:")
}

/// Whether any seat of `job` is an `llm` seat (a string check: no parsing, no allocation).
pub fn has_llm_seats(job: &Job) -> bool {
    job.policy_set.seats.iter().any(|s| is_llm_spec(s))
}

#[derive(Default)]
struct Progress {
    /// The next seed offset to hand out.
    next: u64,
    /// Episodes played (or failed) of those handed out.
    finished: u64,
    /// Played episodes by seed offset.
    episodes: Vec<Option<Episode>>,
    /// The first failure (an engine panic): no more episodes are handed out.
    failed: Option<JobError>,
    /// Set once `finish` has taken the result.
    finished_job: bool,
}

/// A job whose episodes are played by several threads.
pub struct ConcurrentJob {
    job: Arc<Job>,
    env: RunEnv,
    version: String,
    started: Instant,
    count: u64,
    /// Prepared games not in use: each thread takes one (or prepares one) per episode.
    idle: Mutex<Vec<AnyGame>>,
    progress: Mutex<Progress>,
}

impl std::fmt::Debug for ConcurrentJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConcurrentJob").field("sweep", &self.job.sweep).field("index", &self.job.index).finish()
    }
}

/// The result of a job that failed before or while playing.
fn error_result(job: &Job, env: &RunEnv, version: String, started: Instant, error: JobError) -> JobResult {
    JobResult {
        protocol_version: PROTOCOL_VERSION,
        sweep: job.sweep.clone(),
        index: job.index,
        worker: env.worker.clone(),
        engine_version: version,
        game: job.game.clone(),
        scenario: job.scenario.clone(),
        policy_set: job.policy_set.name.clone(),
        elapsed_seconds: started.elapsed().as_secs_f64(),
        replays: None,
        records: Vec::new(),
        summary: None,
        error: Some(error),
    }
}

fn panic_error(payload: &Box<dyn std::any::Any + Send>) -> JobError {
    JobError::new(JobErrorKind::EnginePanic, format!("engine panicked: {}", panic_message(payload)))
}

impl ConcurrentJob {
    /// Validates `job` (preparing its first game). A job that cannot be played is `Err` with
    /// its error result, the one [`crate::run_job`] gives.
    pub fn prepare(job: Arc<Job>, env: RunEnv) -> Result<ConcurrentJob, Box<JobResult>> {
        let started = Instant::now();
        let (kind, game) =
            prepare_job(&job, &env).map_err(|e| Box::new(error_result(&job, &env, String::new(), started, e)))?;
        // The same cap as `run_job`'s record buffer: the count itself is the job's business.
        let count = job.seeds.count;
        let slots = usize::try_from(count).unwrap_or(usize::MAX).min(1 << 20);
        let mut episodes = Vec::with_capacity(slots);
        episodes.resize_with(slots, || None);
        Ok(ConcurrentJob {
            version: engine_version(kind),
            started,
            count,
            idle: Mutex::new(vec![game]),
            progress: Mutex::new(Progress { episodes, ..Progress::default() }),
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

    fn progress(&self) -> std::sync::MutexGuard<'_, Progress> {
        // Nothing panics while holding it (episodes are played outside the lock).
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

    /// Plays the claimed seed offset `offset`. Returns true when this was the last episode to
    /// finish: the caller then takes the result with [`ConcurrentJob::finish`].
    pub fn play(&self, offset: u64) -> bool {
        let seed = self.job.seeds.start + offset;
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
                if let Some(slot) = usize::try_from(offset).ok().and_then(|i| p.episodes.get_mut(i)) {
                    *slot = Some(episode);
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
        handed_out && p.finished == p.next && !p.finished_job
    }

    /// The job's result: records (and replays) in seed order, or the first failure. Call once,
    /// after [`ConcurrentJob::play`] returned true.
    pub fn finish(&self) -> JobResult {
        let mut p = self.progress();
        p.finished_job = true;
        if let Some(e) = p.failed.take() {
            return error_result(&self.job, &self.env, self.version.clone(), self.started, e);
        }
        let mut records = Vec::with_capacity(p.episodes.len());
        let mut replays = self.job.replay.then(|| Vec::with_capacity(p.episodes.len()));
        for episode in p.episodes.drain(..).flatten() {
            records.push(episode.record);
            if let (Some(r), Some(text)) = (replays.as_mut(), episode.replay) {
                r.push(text);
            }
        }
        JobResult {
            protocol_version: PROTOCOL_VERSION,
            sweep: self.job.sweep.clone(),
            index: self.job.index,
            worker: self.env.worker.clone(),
            engine_version: self.version.clone(),
            game: self.job.game.clone(),
            scenario: self.job.scenario.clone(),
            policy_set: self.job.policy_set.name.clone(),
            elapsed_seconds: self.started.elapsed().as_secs_f64(),
            replays,
            records,
            summary: None,
            error: None,
        }
    }
}

/// Plays `job` with up to `threads` episodes at once (scoped threads), records in seed order.
/// Equal to [`crate::run_job`]'s result but for `elapsed_seconds`.
pub fn run_job_concurrently(job: &Job, env: &RunEnv, threads: usize) -> JobResult {
    let run = match ConcurrentJob::prepare(Arc::new(job.clone()), env.clone()) {
        Ok(run) => run,
        Err(result) => return *result,
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
    run.finish()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};
    use crate::protocol::{PolicySet, SeedRange};

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
        }
    }

    #[test]
    fn concurrent_play_gives_run_jobs_records_in_seed_order() {
        let chat = Arc::new(Slow { now: AtomicUsize::new(0), peak: AtomicUsize::new(0) });
        let env = RunEnv { chat: Some(chat.clone()), worker: "w".into() };
        let seats = ["llm?model=m&endpoint=http://x/v1&max_retries=0", "heuristic", "heuristic", "heuristic"];
        let j = job(&seats, 12);
        assert!(has_llm_seats(&j) && !has_llm_seats(&job(&["heuristic"; 4], 1)));
        let mut one = crate::run_job(&j, &env);
        let mut many = run_job_concurrently(&j, &env, 6);
        assert!(chat.peak.load(Ordering::SeqCst) > 1, "episodes overlapped");
        assert_eq!(many.records.iter().map(|r| r.seed).collect::<Vec<_>>(), (10..22).collect::<Vec<_>>());
        // Latencies differ between runs; everything else is the same.
        for r in one.records.iter_mut().chain(many.records.iter_mut()) {
            for seat in r.stats.get_mut("llm").and_then(|v| v.as_object_mut()).unwrap().values_mut() {
                for key in ["latency_ms_total", "latency_ms_max"] {
                    seat[key] = 0.into();
                }
                for e in seat["exchanges"].as_array_mut().unwrap() {
                    e["latency_ms"] = 0.into();
                }
            }
        }
        many.elapsed_seconds = one.elapsed_seconds;
        assert_eq!(crate::protocol::encode(&one), crate::protocol::encode(&many));
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
