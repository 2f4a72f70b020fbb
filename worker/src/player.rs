//! The play threads: `concurrency` OS threads that take delivered jobs in delivery order, play
//! them with `simfleet::run_job`, encode the result, record its metrics, and hand the encoded
//! result back to the job's task, which publishes it.
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

use simfleet::protocol;
use simfleet::{Job, JobError, JobErrorKind, JobResult, RunEnv};
use tokio::sync::oneshot;

use crate::job_metrics::JobMetrics;

/// A ticket's state: waiting in the queue, taken by a play thread, or taken back by its task.
const QUEUED: u8 = 0;
const STARTED: u8 = 1;
const WITHDRAWN: u8 = 2;

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
}

struct Ticket {
    job: Arc<Job>,
    state: Arc<AtomicU8>,
    done: oneshot::Sender<Encoded>,
}

/// A queued job, from its task's side.
pub(crate) struct Claim {
    state: Arc<AtomicU8>,
    /// The encoded result, when played.
    pub(crate) done: oneshot::Receiver<Encoded>,
}

impl Claim {
    /// Takes the job back if no play thread has started it; false if one has.
    pub(crate) fn withdraw(&self) -> bool {
        self.state.compare_exchange(QUEUED, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

/// The play threads and their queue. The threads exit when this is dropped and the queue is
/// empty; a job playing then still finishes (its result goes nowhere).
pub(crate) struct Players {
    queue: mpsc::Sender<Ticket>,
}

impl Players {
    /// Starts `threads` play threads.
    pub(crate) fn start(threads: usize, ctx: Arc<PlayContext>) -> std::io::Result<Players> {
        let (queue, taken) = mpsc::channel::<Ticket>();
        let taken = Arc::new(Mutex::new(taken));
        for i in 0..threads {
            let (taken, ctx) = (Arc::clone(&taken), Arc::clone(&ctx));
            std::thread::Builder::new().name(format!("play-{i}")).spawn(move || play(&taken, &ctx))?;
        }
        Ok(Players { queue })
    }

    /// Queues `job` behind the jobs already queued.
    pub(crate) fn queue(&self, job: Arc<Job>) -> Claim {
        let state = Arc::new(AtomicU8::new(QUEUED));
        let (done, result) = oneshot::channel();
        // The threads outlive every sender (they exit only once the queue is closed), so a send
        // cannot fail; if one ever did, the dropped ticket closes `done` and the job's task
        // gives the job back.
        let _ = self.queue.send(Ticket { job, state: Arc::clone(&state), done });
        Claim { state, done: result }
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
        let encoded = catch_unwind(AssertUnwindSafe(|| finish(ctx, job, simfleet::run_job(job, &ctx.env))))
            .unwrap_or_else(|panic| {
                let why = simfleet::runner::panic_message(&panic);
                let error = JobError::new(JobErrorKind::EnginePanic, format!("the worker panicked: {why}"));
                Encoded::new(&JobResult::failed(&ctx.env.worker, job.sweep.clone(), job.index, Some(job), error))
            });
        // The task is gone only if it gave the job back at shutdown.
        let _ = ticket.done.send(encoded);
    }
}

/// Encodes a played job's result, logs it and records its metrics. The result is dropped here,
/// on the thread that built it: thousands of small frees, cheaper where they were allocated.
fn finish(ctx: &PlayContext, job: &Job, result: JobResult) -> Encoded {
    let (result, payload) = encode_fitting(ctx, job, result);
    match &result.error {
        None => tracing::debug!(sweep = job.sweep, index = job.index, episodes = result.records.len(), "job played"),
        Some(e) => {
            tracing::warn!(sweep = job.sweep, index = job.index, kind = %e.kind, error = %e, "job failed")
        }
    }
    ctx.metrics.job_played(job, &result);
    Encoded::with_payload(&result, payload)
}

/// Encodes a played job's result. A result larger than the server's `max_payload` could never
/// be published, and a NAK would only repeat the failure until the job dead-letters, so it is
/// answered instead with a typed `invalid_job` naming `seeds.count`: the sweep asks for too
/// many episodes per job.
fn encode_fitting(ctx: &PlayContext, job: &Job, result: JobResult) -> (JobResult, Vec<u8>) {
    let payload = protocol::encode(&result);
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
