//! The play threads: `concurrency` OS threads that take delivered jobs in delivery order, play
//! them with `simfleet::play_job` into a [`JobSink`] (each record written into the encoded result,
//! or counted into the summary, and into the metrics, as it is played), and hand the encoded
//! result back to the job's task, which publishes it. One path for every job: the I/O threads
//! feed the same sink from episodes played at once.
//!
//! Jobs with `llm` seats go to the I/O threads instead ([`crate::llm_pool`]): they wait on a
//! model, not a core. Such a job swaps its intake slot for slots of its own (one per episode it
//! can play at once, out of `2 × llm_concurrency`), so that jobs waiting on models do not keep
//! the intake from fetching work for the cores; only a backlog beyond those slots waits in the
//! intake's slots, like prefetched jobs. The routing is one string check per job on its task:
//! the play threads' path is unchanged.
//!
//! Why threads of our own and not `spawn_blocking` per job: a play thread that finishes a job
//! takes the next queued one at once. With `spawn_blocking` the next job started only after the
//! runtime had run the finished job's task and then the queued job's task, about half a
//! millisecond per job with every core busy playing: 5–7% of a Bucket Brigade job, with a core
//! idle meanwhile. Encoding and metrics happen here for the same reason: on a runtime thread
//! they delayed those tasks. Episodes are CPU-bound synchronous code, so here they also cannot
//! stall the runtime's threads, which keep acks and pulls flowing.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use simfleet::protocol::{Collect, EpisodeRecord, ResultWriter};
use simfleet::runner::{has_llm_seats, RecordSink, SummarySink};
use simfleet::{GameKind, Job, JobError, JobErrorKind, JobResult, RunEnv};
use tokio::sync::{oneshot, Semaphore};

use crate::schedule::IntakeSlot;

use crate::job_metrics::{JobMetrics, JobTally};
use crate::llm_pool::LlmPool;

/// A ticket's state: waiting in the queue, taken by a play thread (or an I/O thread), or
/// taken back by its task.
pub(crate) const QUEUED: u8 = 0;
pub(crate) const STARTED: u8 = 1;
pub(crate) const WITHDRAWN: u8 = 2;

/// A result ready to publish: what answering needs, without the records.
pub(crate) struct Encoded {
    pub(crate) sweep: String,
    pub(crate) index: u64,
    pub(crate) failed: bool,
    pub(crate) payload: Vec<u8>,
}

impl Encoded {
    /// Encodes `result` as it is.
    pub(crate) fn new(result: &JobResult) -> Encoded {
        Encoded::with_payload(result, result.encode())
    }

    fn with_payload(result: &JobResult, payload: Vec<u8>) -> Encoded {
        Encoded { sweep: result.sweep.clone(), index: result.index, failed: result.error.is_some(), payload }
    }
}

/// What the play threads need besides the job.
pub(crate) struct PlayContext {
    pub(crate) env: RunEnv,
    pub(crate) metrics: Arc<JobMetrics>,
    /// The sweeps seen cancelled: a job with `llm` seats of one of them is not started.
    pub(crate) stopped: crate::cancellation::StoppedSweeps,
    /// Bench-only free play ([`crate::free_play`], cargo feature `bench-free-play`), when on.
    #[cfg(feature = "bench-free-play")]
    pub(crate) free_play: Option<crate::free_play::FreePlay>,
}

struct Ticket {
    job: Arc<Job>,
    state: Arc<AtomicU8>,
    done: oneshot::Sender<Encoded>,
}

/// A queued job, from its task's side. Holds the job's intake slot until dropped (after the
/// result is published).
pub(crate) struct Claim {
    state: Arc<AtomicU8>,
    /// The encoded result, when played.
    pub(crate) done: oneshot::Receiver<Encoded>,
    _slot: Slot,
}

/// What a job holds while it is in the worker.
enum Slot {
    /// Its intake slot.
    Intake(#[allow(dead_code)] IntakeSlot),
    /// A task that swaps the intake slot for LLM slots as soon as they are free, and holds
    /// them until aborted (when the claim drops).
    Llm(tokio::task::JoinHandle<()>),
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Slot::Llm(task) = self {
            task.abort();
        }
    }
}

impl Claim {
    /// Whether the job is still waiting for a thread.
    pub(crate) fn queued(&self) -> bool {
        self.state.load(Ordering::Acquire) == QUEUED
    }

    /// Takes the job back if no play thread has started it; false if one has.
    pub(crate) fn withdraw(&self) -> bool {
        self.state.compare_exchange(QUEUED, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

/// The play threads and their queue, and the I/O threads for jobs with `llm` seats. The
/// threads exit when this is dropped and the queues are empty; a job playing then still
/// finishes (its result goes nowhere).
pub(crate) struct Players {
    queue: mpsc::Sender<Ticket>,
    llm: LlmPool,
    /// One permit per episode with `llm` seats held by this worker: `2 × llm_concurrency`
    /// (as many playing as queued).
    llm_slots: Arc<Semaphore>,
    llm_capacity: u32,
}

impl Players {
    /// Starts `threads` play threads and `llm_threads` I/O threads (`llm_envs`: each game's
    /// environment for `llm` seats).
    pub(crate) fn start(
        threads: usize,
        llm_threads: usize,
        ctx: Arc<PlayContext>,
        llm_envs: Vec<(GameKind, RunEnv)>,
    ) -> std::io::Result<Players> {
        let (queue, taken) = mpsc::channel::<Ticket>();
        let taken = Arc::new(Mutex::new(taken));
        for i in 0..threads {
            let (taken, ctx) = (Arc::clone(&taken), Arc::clone(&ctx));
            std::thread::Builder::new().name(format!("play-{i}")).spawn(move || play(&taken, &ctx))?;
        }
        let llm = LlmPool::start(llm_threads, ctx, llm_envs)?;
        let capacity = 2 * llm_threads.max(1);
        Ok(Players {
            queue,
            llm,
            llm_slots: Arc::new(Semaphore::new(capacity)),
            llm_capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
        })
    }

    /// Queues `job` behind the jobs already queued: on the play threads, or for a job with
    /// `llm` seats on the I/O threads. `slot` is the job's intake slot, held by the claim.
    pub(crate) fn queue(&self, job: Arc<Job>, slot: IntakeSlot) -> Claim {
        if has_llm_seats(&job) {
            return self.queue_llm(job, slot);
        }
        let state = Arc::new(AtomicU8::new(QUEUED));
        let (done, result) = oneshot::channel();
        // The threads outlive every sender (they exit only once the queue is closed), so a send
        // cannot fail; if one ever did, the dropped ticket closes `done` and the job's task
        // gives the job back.
        let _ = self.queue.send(Ticket { job, state: Arc::clone(&state), done });
        Claim { state, done: result, _slot: Slot::Intake(slot) }
    }

    fn queue_llm(&self, job: Arc<Job>, slot: IntakeSlot) -> Claim {
        // A job takes a slot per episode it could play at once, at most all of them.
        let wanted = job.seeds.count.clamp(1, u64::from(self.llm_capacity)) as u32;
        let slots = Arc::clone(&self.llm_slots);
        let swap = tokio::spawn(async move {
            // The semaphore is never closed.
            let Ok(held) = slots.acquire_many_owned(wanted).await else { return };
            drop(slot);
            // Hold the LLM slots until the claim aborts this task.
            std::future::pending::<()>().await;
            drop(held);
        });
        let (state, done) = self.llm.queue(job);
        Claim { state, done, _slot: Slot::Llm(swap) }
    }
}

/// One play thread: takes tickets until the queue closes.
fn play(taken: &Mutex<mpsc::Receiver<Ticket>>, ctx: &PlayContext) {
    loop {
        // One thread waits in `recv` while holding the lock; the others wait for the lock.
        let next = taken.lock().map_err(|_| ()).and_then(|q| q.recv().map_err(|_| ()));
        let Ok(ticket) = next else { return };
        if ticket.state.compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire).is_err() {
            continue; // withdrawn at shutdown
        }
        let _in_flight = ctx.metrics.in_flight();
        let job = &ticket.job;
        // `play_job` turns engine panics into error results itself; this catches the rest, so a
        // bug cannot take a play thread away.
        let encoded = catch_unwind(AssertUnwindSafe(|| play_one(ctx, job))).unwrap_or_else(|panic| {
            let why = simfleet::runner::panic_message(&panic);
            let error = JobError::new(JobErrorKind::EnginePanic, format!("the worker panicked: {why}"));
            Encoded::new(&JobResult::failed(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error))
        });
        // The task is gone only if it gave the job back at shutdown.
        let _ = ticket.done.send(encoded);
    }
}

/// Plays a job on a play thread and encodes its result: one path for every job, its records
/// going into a [`JobSink`] as they are played.
fn play_one(ctx: &PlayContext, job: &Job) -> Encoded {
    #[cfg(feature = "bench-free-play")]
    if let Some(free) = &ctx.free_play {
        let result = free.play(job, &ctx.env);
        ctx.metrics.job_played(job, &result);
        return Encoded::new(&result);
    }
    let (result, payload, tallies) = JobSink::play(job, &ctx.env, &ctx.metrics);
    answer(ctx, job, result, payload, tallies)
}

/// Where a job's episodes go on a worker, one record at a time: written into the job's encoded
/// result (a records job: `ResultWriter`, the bytes of `JobResult::encode`) or counted into its
/// aggregate (a summary job), and into the job's metrics tally on the way; then dropped. The
/// job holds its encoded bytes or its aggregate, never its records: no pass over the records
/// follows the play (a summary job's were tens to hundreds of megabytes).
pub struct JobSink {
    out: Out,
    tally: Option<JobTally>,
}

enum Out {
    Records(ResultWriter),
    Summary(SummarySink),
}

impl JobSink {
    /// The sink of `job` (of one policy set), played by `env`'s worker, counted into `metrics`.
    pub fn new(job: &Job, env: &RunEnv, metrics: &JobMetrics) -> JobSink {
        let out = match job.collect {
            Collect::Summary => Out::Summary(SummarySink::new(simfleet::runner::buckets_of(job))),
            Collect::Records => {
                let mut head = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job));
                // A game this build does not know fails before anything is written.
                head.engine_version = job.game.parse::<GameKind>().map(simfleet::engine_version).unwrap_or_default();
                head.replays = job.replay.then(Vec::new);
                let count = usize::try_from(job.seeds.count).unwrap_or(usize::MAX);
                Out::Records(ResultWriter::new(head, count))
            }
        };
        JobSink { out, tally: metrics.tally(job) }
    }

    /// Plays `job` as a play thread does: its result, encoded, and its metrics tallies (one per
    /// policy set), not yet recorded. A summary job with paired policy sets plays each set
    /// through the same loop into its own aggregate and tally
    /// (`simfleet::runner::run_summary_job`); every other job plays into a `JobSink`.
    pub fn play(job: &Job, env: &RunEnv, metrics: &JobMetrics) -> (JobResult, Vec<u8>, Vec<JobTally>) {
        if !job.paired.is_empty() {
            let mut tallies: Vec<Option<JobTally>> =
                job.policy_sets().map(|p| metrics.tally(&job.for_set(p))).collect();
            let result = simfleet::runner::run_summary_job(job, env, &mut |set, record| {
                if let Some(t) = tallies[set].as_mut() {
                    t.add(record);
                }
            });
            let payload = result.encode();
            return (result, payload, tallies.into_iter().flatten().collect());
        }
        let mut sink = JobSink::new(job, env, metrics);
        let result = simfleet::play_job(job, env, &mut sink);
        sink.into_answer(result)
    }

    /// The encoded answer to `job`, whose play ended with `result` (no records: they are in
    /// this sink); its metrics recorded and the answer logged.
    pub(crate) fn finish(self, ctx: &PlayContext, job: &Job, result: JobResult) -> Encoded {
        let (result, payload, tallies) = self.into_answer(result);
        answer(ctx, job, result, payload, tallies)
    }

    /// The played job's result, with this sink's aggregate when it is a summary, its encoding,
    /// and its metrics tally.
    fn into_answer(self, result: JobResult) -> (JobResult, Vec<u8>, Vec<JobTally>) {
        let (result, payload) = match (self.out, &result.error) {
            (_, Some(_)) => {
                let payload = result.encode();
                (result, payload)
            }
            (Out::Records(writer), None) => match writer.finish(result.elapsed_seconds) {
                Some(payload) => (result, payload),
                // Fewer records than the job announced: only a bug could do this.
                None => {
                    let error =
                        JobError::new(JobErrorKind::EnginePanic, "the job played fewer episodes than its seeds");
                    let failed = JobResult { error: Some(error), ..result };
                    let payload = failed.encode();
                    (failed, payload)
                }
            },
            (Out::Summary(summary), None) => {
                let result = summary.into_result(result);
                let payload = result.encode();
                (result, payload)
            }
        };
        (result, payload, self.tally.into_iter().collect())
    }
}

/// The answer to a played job, logged and its metrics recorded (the tallies only when it
/// played). Its size is no reason to refuse it: a result over the server's `max_payload` is
/// published in parts ([`crate::large_result`]).
fn answer(ctx: &PlayContext, job: &Job, result: JobResult, payload: Vec<u8>, tallies: Vec<JobTally>) -> Encoded {
    log_answer(job, &result);
    let tallies = if result.error.is_none() { tallies } else { Vec::new() };
    ctx.metrics.job_done(job, &result, tallies);
    Encoded::with_payload(&result, payload)
}

impl RecordSink for JobSink {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        if let Some(t) = self.tally.as_mut() {
            t.add(&record);
        }
        match &mut self.out {
            Out::Records(w) => w.episode(record, replay),
            Out::Summary(s) => s.episode(record, replay),
        }
    }
}

/// Logs an answered job: at debug level when it played, as a warning when it failed.
fn log_answer(job: &Job, result: &JobResult) {
    let what = match job.collect {
        Collect::Records => "job played",
        Collect::Summary => "job summarised",
    };
    match &result.error {
        None => tracing::debug!(sweep = job.sweep, index = job.index, episodes = job.seeds.count, "{what}"),
        Some(e) => tracing::warn!(sweep = job.sweep, index = job.index, kind = %e.kind, error = %e, "job failed"),
    }
}
