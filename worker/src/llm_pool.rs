//! The I/O threads: `llm_concurrency` OS threads that play the episodes of jobs with `llm`
//! seats, one episode each at a time, so that a worker keeps that many model calls in flight
//! while its play threads keep its cores busy with scripted jobs.
//!
//! Why threads and episodes: the engines are synchronous and an `llm` seat calls its transport
//! synchronously, so a thread waiting on a model is blocked, not busy; a blocked thread costs
//! a stack and a connection, not a core. Playing whole jobs here would keep one call in flight
//! per job; instead the episodes of a job (independent, each a function of its seed and the
//! model's answers) are handed out one by one ([`simfleet::runner::ConcurrentJob`]) to
//! whichever thread is free, in job order; the played episodes go, in seed order, into the same
//! [`JobSink`] a play thread uses, and the last episode to finish encodes the result and records
//! its metrics, as a play thread would.
//!
//! A job is prepared (validated) when it is queued, on its task; an invalid one is answered at
//! once. A queued job can be withdrawn until its first episode starts (shutdown); a job whose
//! task has gone (given back after the drain timeout) hands out no more episodes.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use metrics::Gauge;
use simfleet::runner::ConcurrentJob;
use simfleet::{GameKind, Job, JobError, JobErrorKind, JobResult, RunEnv};
use tokio::sync::oneshot;

use crate::job_metrics::InFlight;
use crate::player::{Encoded, JobSink, PlayContext, QUEUED, STARTED, WITHDRAWN};

/// A queued job with `llm` seats.
struct LlmJob {
    run: ConcurrentJob<JobSink>,
    state: Arc<AtomicU8>,
    done: Mutex<Option<oneshot::Sender<Encoded>>>,
    /// Counts the job in `simfleet_jobs_in_flight` from its first episode to its result.
    in_flight: Mutex<Option<InFlight>>,
}

impl LlmJob {
    /// Whether nobody waits for the result any more (the task gave the job back).
    fn abandoned(&self) -> bool {
        self.done.lock().unwrap_or_else(|p| p.into_inner()).as_ref().is_none_or(oneshot::Sender::is_closed)
    }

    fn send(&self, encoded: Encoded) {
        if let Some(done) = self.done.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = done.send(encoded);
        }
    }
}

struct Shared {
    queue: Mutex<VecDeque<Arc<LlmJob>>>,
    ready: Condvar,
    closed: AtomicBool,
    ctx: Arc<PlayContext>,
    /// The transport of each game's jobs (counting calls by game), else the base one.
    envs: Vec<(GameKind, RunEnv)>,
    episodes_in_flight: Gauge,
}

/// The I/O threads and their queue of jobs. The threads exit when this is dropped.
pub(crate) struct LlmPool {
    shared: Arc<Shared>,
}

impl Drop for LlmPool {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.ready.notify_all();
    }
}

impl LlmPool {
    /// Starts `threads` I/O threads; `envs` gives each game's environment.
    pub(crate) fn start(
        threads: usize,
        ctx: Arc<PlayContext>,
        envs: Vec<(GameKind, RunEnv)>,
    ) -> std::io::Result<LlmPool> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            closed: AtomicBool::new(false),
            ctx,
            envs,
            episodes_in_flight: metrics::gauge!(crate::telemetry::LLM_EPISODES_IN_FLIGHT),
        });
        for i in 0..threads.max(1) {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new().name(format!("llm-{i}")).spawn(move || io(&shared))?;
        }
        Ok(LlmPool { shared })
    }

    /// Prepares and queues `job`; returns its state (for withdrawal) and where its encoded
    /// result will come.
    pub(crate) fn queue(&self, job: Arc<Job>) -> (Arc<AtomicU8>, oneshot::Receiver<Encoded>) {
        let state = Arc::new(AtomicU8::new(QUEUED));
        let (done, result) = oneshot::channel();
        let env = match job.game.parse::<GameKind>() {
            Ok(kind) => self.shared.envs.iter().find(|(k, _)| *k == kind).map(|(_, e)| e.clone()),
            Err(_) => None,
        }
        .unwrap_or_else(|| self.shared.ctx.env.clone());
        let sink = JobSink::new(&job, &env, &self.shared.ctx.metrics);
        match ConcurrentJob::prepare(Arc::clone(&job), env, sink) {
            Err((failed, sink)) => {
                state.store(STARTED, Ordering::Release);
                let _ = done.send(sink.finish(&self.shared.ctx, &job, *failed));
            }
            Ok(run) => {
                let queued = LlmJob {
                    run,
                    state: Arc::clone(&state),
                    done: Mutex::new(Some(done)),
                    in_flight: Mutex::new(None),
                };
                self.shared.queue.lock().unwrap_or_else(|p| p.into_inner()).push_back(Arc::new(queued));
                self.shared.ready.notify_all();
            }
        }
        (state, result)
    }
}

/// The next episode to play: the first job's next seed offset, skipping (and dropping) jobs
/// withdrawn, abandoned or fully handed out. `None` once the pool is closed.
fn next(shared: &Shared) -> Option<(Arc<LlmJob>, u64)> {
    let mut queue = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let Some(front) = queue.front().cloned() else {
            if shared.closed.load(Ordering::SeqCst) {
                return None;
            }
            queue = shared.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
            continue;
        };
        // Right before a job starts: a sweep stopped meanwhile (its `llm_max_calls` reached, or
        // cancelled) has it answered `cancelled` instead of making its calls.
        if front.state.load(Ordering::Acquire) == QUEUED && shared.ctx.stopped.contains(&front.run.job().sweep) {
            queue.pop_front();
            if front.state.compare_exchange(QUEUED, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                front.send(cancelled(&shared.ctx, front.run.job()));
            }
            continue;
        }
        let started = match front.state.compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                *front.in_flight.lock().unwrap_or_else(|p| p.into_inner()) = Some(shared.ctx.metrics.in_flight());
                true
            }
            Err(s) => s == STARTED,
        };
        if !started || front.abandoned() {
            queue.pop_front();
            continue;
        }
        match front.run.claim() {
            Some(offset) => {
                if front.run.exhausted() {
                    queue.pop_front();
                }
                return Some((front, offset));
            }
            None => {
                queue.pop_front();
            }
        }
    }
}

/// The answer to a job of a sweep stopped before the job started.
fn cancelled(ctx: &PlayContext, job: &Job) -> Encoded {
    ctx.metrics.job_failed(&job.game, JobErrorKind::Cancelled);
    let error =
        JobError::new(JobErrorKind::Cancelled, format!("sweep {} was stopped before this job started", job.sweep));
    Encoded::new(&JobResult::failed(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error))
}

/// One I/O thread: plays episodes until the pool closes.
fn io(shared: &Shared) {
    while let Some((job, offset)) = next(shared) {
        shared.episodes_in_flight.increment(1.0);
        let last = job.run.play(offset);
        shared.episodes_in_flight.decrement(1.0);
        if let Some((result, sink)) = last.then(|| job.run.finish()).flatten() {
            let encoded = sink.finish(&shared.ctx, job.run.job(), result);
            job.in_flight.lock().unwrap_or_else(|p| p.into_inner()).take();
            job.send(encoded);
        }
    }
}
