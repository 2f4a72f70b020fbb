//! The play threads: `concurrency` OS threads that take delivered jobs in delivery order, play
//! them with `simfleet::run_job`, encode the result, record its metrics, and hand the encoded
//! result back to the job's task, which publishes it.
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

use simfleet::llm::episodes::has_llm_seats;
use simfleet::protocol::{self, Collect, ResultWriter};
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
        Encoded::with_payload(result, protocol::encode(result))
    }

    fn with_payload(result: &JobResult, payload: Vec<u8>) -> Encoded {
        Encoded { sweep: result.sweep.clone(), index: result.index, failed: result.error.is_some(), payload }
    }
}

/// What the play threads need besides the job.
pub(crate) struct PlayContext {
    pub(crate) env: RunEnv,
    pub(crate) metrics: Arc<JobMetrics>,
    /// For the server's `max_payload`.
    pub(crate) client: async_nats::Client,
    /// Bench-only free play ([`crate::free_play`]), when on.
    pub(crate) free_play: Option<crate::free_play::FreePlay>,
}

impl PlayContext {
    /// Plays `job` (or answers it from the free-play cache in a benchmark).
    fn play(&self, job: &Job) -> JobResult {
        match &self.free_play {
            Some(free) => free.play(job, &self.env),
            None => simfleet::run_job(job, &self.env),
        }
    }
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
        // `run_job` turns engine panics into error results itself; this catches the rest, so a
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

/// Plays a job on a play thread and encodes its result. A job that collects a summary is
/// played a record at a time (`run_summary_job`): each record counted into the aggregate and
/// the metrics, then dropped, so that the job holds no records (a summary job's were tens to
/// hundreds of megabytes).
fn play_one(ctx: &PlayContext, job: &Job) -> Encoded {
    if ctx.free_play.is_some() {
        return finish(ctx, job, ctx.play(job));
    }
    if job.collect != Collect::Summary {
        return play_records(ctx, job);
    }
    let mut tally = ctx.metrics.tally(job);
    let result = simfleet::aggregate::run_summary_job(job, &ctx.env, &mut |record| {
        if let Some(t) = tally.as_mut() {
            t.add(record);
        }
    });
    finish_summary(ctx, job, result, tally)
}

/// Plays a records job, writing each record into the result ([`write_records`]) and counting it
/// into the metrics as it is played, then dropping it: the job holds its encoded bytes, not its
/// records, and no pass over the records follows the play. A job that [`write_records`] does not
/// take goes the way of [`finish`].
fn play_records(ctx: &PlayContext, job: &Job) -> Encoded {
    let mut tally = ctx.metrics.tally(job);
    match write_records(job, &ctx.env, &mut tally) {
        Written::Result(result, payload) => {
            let (result, payload) = fitting(ctx, job, result, payload);
            log_answer(job, &result, "job played");
            ctx.metrics.job_done(job, &result, tally);
            Encoded::with_payload(&result, payload)
        }
        Written::Failed(result) => finish(ctx, job, result),
        Written::NotTaken => finish(ctx, job, ctx.play(job)),
    }
}

/// What [`write_records`] made of a job.
pub enum Written {
    /// The job's result (without records) and its encoded bytes, records included.
    Result(JobResult, Vec<u8>),
    /// The job failed: its error result.
    Failed(JobResult),
    /// A job that asks for replays (their texts come before the records in a result) or of a
    /// game this build does not know: not played.
    NotTaken,
}

/// Plays a records job into its encoded result, the way a play thread does: each record is
/// written into the result as it is played (`ResultWriter`), shown to `tally` (the job's
/// metrics, [`JobMetrics::tally`]) and dropped. The bytes are `protocol::encode(&run_job(job))`'s.
/// Public for `examples/play_overhead.rs`, which times it against playing alone.
pub fn write_records(job: &Job, env: &RunEnv, tally: &mut Option<JobTally>) -> Written {
    let (Ok(kind), Ok(count), false) = (job.game.parse::<GameKind>(), usize::try_from(job.seeds.count), job.replay)
    else {
        return Written::NotTaken;
    };
    let mut head = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job));
    head.engine_version = simfleet::engine_version(kind);
    let mut writer = ResultWriter::new(head, count);
    let result = simfleet::run_job_with(job, env, &mut |record| {
        writer.record(&record);
        if let Some(t) = tally.as_mut() {
            t.add(&record);
        }
    });
    let payload = match result.error {
        None => writer.finish(result.elapsed_seconds),
        Some(_) => None,
    };
    match payload {
        Some(payload) => Written::Result(result, payload),
        None => Written::Failed(result),
    }
}

/// Encodes a played job's result, logs it and records its metrics. The result is dropped here,
/// on the thread that built it: thousands of small frees, cheaper where they were allocated.
pub(crate) fn finish(ctx: &PlayContext, job: &Job, result: JobResult) -> Encoded {
    if job.collect == Collect::Summary && result.error.is_none() {
        // The metrics come from the records, so they stay exact (the worker's own buckets and
        // per-policy series); only the aggregate travels.
        let tally = ctx.metrics.tally_of(job, &result.records);
        return finish_summary(ctx, job, simfleet::aggregate::summarize(result), tally);
    }
    let (result, payload) = encode_fitting(ctx, job, result);
    log_answer(job, &result, "job played");
    ctx.metrics.job_played(job, &result);
    Encoded::with_payload(&result, payload)
}

/// Logs an answered job: at debug level as `what` when it played, as a warning when it failed.
fn log_answer(job: &Job, result: &JobResult, what: &'static str) {
    match &result.error {
        None => tracing::debug!(sweep = job.sweep, index = job.index, episodes = job.seeds.count, "{what}"),
        Some(e) => tracing::warn!(sweep = job.sweep, index = job.index, kind = %e.kind, error = %e, "job failed"),
    }
}

/// Records a summary job's metrics (its records' `tally`), encodes its result and logs it.
fn finish_summary(ctx: &PlayContext, job: &Job, result: JobResult, tally: Option<JobTally>) -> Encoded {
    ctx.metrics.job_done(job, &result, tally);
    let (result, payload) = encode_fitting(ctx, job, result);
    log_answer(job, &result, "job summarised");
    Encoded::with_payload(&result, payload)
}

/// Encodes a played job's result. A result larger than the server's `max_payload` could never
/// be published, and a NAK would only repeat the failure until the job dead-letters, so it is
/// answered instead with a typed `invalid_job` naming `seeds.count`: the sweep asks for too
/// many episodes per job.
fn encode_fitting(ctx: &PlayContext, job: &Job, result: JobResult) -> (JobResult, Vec<u8>) {
    let payload = protocol::encode(&result);
    fitting(ctx, job, result, payload)
}

/// [`encode_fitting`] of a result already encoded as `payload`.
fn fitting(ctx: &PlayContext, job: &Job, result: JobResult, payload: Vec<u8>) -> (JobResult, Vec<u8>) {
    let max = ctx.client.server_info().max_payload;
    if payload.len() <= max || max == 0 {
        return (result, payload);
    }
    let error = JobError::invalid(
        "seeds.count",
        job.seeds.count,
        format!(
            "the result is {} bytes, over the server's max_payload of {max} bytes; use fewer episodes per job",
            payload.len()
        ),
    );
    let mut failed = JobResult::failed(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error);
    failed.engine_version = result.engine_version;
    failed.elapsed_seconds = result.elapsed_seconds;
    let payload = protocol::encode(&failed);
    (failed, payload)
}
