//! The pull loop: asks the sweeps' consumers for as many jobs as there are free slots, hands
//! each to a task, and on shutdown drains (mini-redis's `Listener`, with a pull instead of
//! accept).
//!
//! A slot is a job delivered and not yet answered: `concurrency` playing, as many publishing,
//! and `prefetch` queued for the play threads. Queued jobs are why a play thread starts its
//! next job at once: with every core playing, a pull's round trip through a busy scheduler and
//! server is not free, and the core would idle meanwhile. Only free slots are fetched because
//! every delivered job starts an ack timer on the server (queued jobs send in-progress acks
//! while they wait).
//!
//! Where the free slots go is `schedule`'s: each sweep has its own consumer, and the loop
//! learns which sweeps have jobs from the jobs stream's per-subject counts (one request, every
//! `REFRESH`), reads each one's class and share from its KV entry, and pulls without
//! waiting from the sweeps the schedule names. Only when no sweep has a job waiting does it
//! wait on a pull, on the sweep the schedule would serve first, as the single consumer did.
//! On shutdown the loop drains (`drain.rs`).
//!
//! Errors from the server (an outage, a deleted consumer, a leader change, a lost cluster
//! quorum) are logged and retried with backoff, binding to the topology again (`readiness`
//! says why in words a person acts on), so the loop survives a server restart on its own; the
//! client reconnects by itself. A pull the server never answers (it ends on the client's timer,
//! after its expiry) counts as such an error.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::stream::Stream;
use async_nats::jetstream::{Context, Message};
use futures::StreamExt;
use simfleet::names::{sweep_of_job_subject, JOBS_FILTER};
use simfleet::nats::topology::{sweep_consumer, LimitsOwner};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::job::{self, JobContext, Stage};
use crate::readiness::{self, log_pull_failure};
use crate::schedule::{IntakeSlot, Schedule};
use simfleet::nats::TopologyConfig;

mod drain;
use drain::give_back;

/// How long a pull waits on the server when no sweep has a job waiting. Short enough that a
/// pull lost in a server restart is replaced soon (the client gives up 5 s after this) and that
/// a sweep of a higher class is seen soon, long enough that idle workers do not flood the
/// server with requests.
const PULL_EXPIRY: Duration = Duration::from_secs(1);
/// How often the worker asks the jobs stream which sweeps have jobs (and re-reads their class
/// and share): how soon a new sweep gets its share, and how soon a sweep found empty is tried
/// again.
const REFRESH: Duration = Duration::from_secs(1);
/// With no sweep in the queue, how often a worker that had work lately looks for one: a sweep
/// submitted to an idle fleet starts within this, not within `REFRESH`.
const IDLE_LOOK: Duration = Duration::from_millis(100);
/// How long after its last job (or its start) a worker keeps looking every `IDLE_LOOK`; then
/// every `REFRESH`, so an idle fleet sends one request a second per worker.
const IDLE_LOOK_FOR: Duration = Duration::from_secs(10);
/// A pull without waiting that the server has not answered by then is counted as failed.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// Backoff after a failed pull: from the first to the last value, doubling.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// The pull loop and its jobs in flight.
pub(crate) struct Intake {
    pub(crate) js: Context,
    pub(crate) topology: TopologyConfig,
    /// The jobs stream; `None` after an error: bound again (with the whole topology) before
    /// the next pull.
    pub(crate) stream: Option<Stream>,
    pub(crate) schedule: Schedule,
    /// When the sweeps were last listed (`None`: list them before the next pull).
    pub(crate) refreshed: Option<Instant>,
    /// When the worker last held a job (or started).
    pub(crate) busy_at: Instant,
    pub(crate) jobs: Arc<JobContext>,
    /// One permit per job delivered and not yet answered (`2 × concurrency + prefetch`).
    /// Never closed, so `acquire` cannot fail.
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) fetch_batch: usize,
    pub(crate) drain_timeout: Duration,
}

/// Why a round of pulls stopped early.
enum Trouble {
    Shutdown,
    /// Logged; pause, then bind again.
    Failed,
}

impl Intake {
    /// Pulls and plays jobs until `shutdown` completes, then drains.
    pub(crate) async fn run(mut self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        let (stage_tx, stage_rx) = watch::channel(Stage::Running);
        let mut tasks = JoinSet::new();
        let mut backoff = BACKOFF.0;
        loop {
            while tasks.try_join_next().is_some() {}
            let first = tokio::select! {
                () = &mut shutdown => break,
                permit = Arc::clone(&self.slots).acquire_owned() => permit.expect("the semaphore is never closed"),
            };
            let outcome = self.round(first, &mut shutdown, &mut tasks, &stage_rx, backoff).await;
            match outcome {
                Ok(true) => backoff = BACKOFF.0,
                Ok(false) => {}
                Err(Trouble::Shutdown) => break,
                Err(Trouble::Failed) => {
                    self.stream = None;
                    self.schedule.unbind_all();
                    self.refreshed = None;
                    if pause(&mut shutdown, &mut backoff).await {
                        break;
                    }
                }
            }
        }
        self.drain(tasks, stage_tx).await;
    }

    /// One round: lists the sweeps if due, fills the free slots as the schedule says, and if no
    /// sweep had a job waiting, waits on one pull. True when a job arrived.
    async fn round<F: Future<Output = ()>>(
        &mut self,
        first: OwnedSemaphorePermit,
        shutdown: &mut std::pin::Pin<&mut F>,
        tasks: &mut JoinSet<()>,
        stage: &watch::Receiver<Stage>,
        backoff: Duration,
    ) -> Result<bool, Trouble> {
        let stream = self.bound_stream(shutdown, backoff).await?;
        // We hold one permit; only this loop acquires, so the free ones stay free until we
        // take them below.
        let mut first = Some(first);
        if self.take_planned(&stream, &mut first, shutdown, tasks, stage, backoff).await? > 0 {
            self.busy_at = Instant::now();
            return Ok(true);
        }
        self.wait_for_one(&stream, first, shutdown, tasks, stage, backoff).await
    }

    /// The jobs stream, bound again after a failure, and the sweeps with jobs listed if due.
    async fn bound_stream<F: Future<Output = ()>>(
        &mut self,
        shutdown: &mut std::pin::Pin<&mut F>,
        backoff: Duration,
    ) -> Result<Stream, Trouble> {
        let stream = match self.stream.clone() {
            Some(s) => s,
            None => match unless_stopped(shutdown, readiness::rebind(&self.js, &self.topology, backoff)).await? {
                Some(s) => s,
                None => return Err(Trouble::Failed),
            },
        };
        self.stream = Some(stream.clone());
        if self.refreshed.is_none_or(|at| at.elapsed() >= REFRESH) {
            if let Err(e) = unless_stopped(shutdown, self.refresh(&stream)).await? {
                log_pull_failure("cannot list the sweeps with jobs", Some(&e), backoff);
                return Err(Trouble::Failed);
            }
        }
        Ok(stream)
    }

    /// Fills the free slots with the jobs the schedule plans, sweep by sweep, until no plan is
    /// left (every slot taken, or no listed sweep has a job waiting). Returns the jobs started.
    async fn take_planned<F: Future<Output = ()>>(
        &mut self,
        stream: &Stream,
        first: &mut Option<OwnedSemaphorePermit>,
        shutdown: &mut std::pin::Pin<&mut F>,
        tasks: &mut JoinSet<()>,
        stage: &watch::Receiver<Stage>,
        backoff: Duration,
    ) -> Result<usize, Trouble> {
        let mut got = 0;
        loop {
            let free = (usize::from(first.is_some()) + self.slots.available_permits()).min(self.fetch_batch);
            let plan = if free == 0 { Vec::new() } else { self.schedule.plan(free) };
            if plan.is_empty() {
                return Ok(got);
            }
            for (sweep, n) in plan {
                let Some(consumer) = unless_stopped(shutdown, self.consumer(stream, &sweep, backoff)).await? else {
                    return Err(Trouble::Failed);
                };
                // A shutdown does not wait for a fetch the server may never answer (it is gone):
                // a job it delivers after all is not acknowledged and returns to the queue after
                // its ack wait, so nothing is lost. A fetch that is answered takes milliseconds.
                let fetched = tokio::select! {
                    biased;
                    f = tokio::time::timeout(FETCH_TIMEOUT, fetch(consumer, n)) => f,
                    () = shutdown.as_mut() => return Err(Trouble::Shutdown),
                };
                let lane = self.schedule.lane_mut(&sweep).expect("planned sweeps have lanes");
                let msgs = match fetched {
                    Ok(Ok(msgs)) => msgs,
                    Ok(Err(Fetch::Full)) => {
                        lane.empty = true;
                        continue;
                    }
                    Ok(Err(Fetch::Failed(e))) => {
                        log_pull_failure("pull failed", Some(&e), backoff);
                        return Err(Trouble::Failed);
                    }
                    Err(_) => {
                        log_pull_failure("the server did not answer a pull", None, backoff);
                        return Err(Trouble::Failed);
                    }
                };
                if msgs.len() < n {
                    lane.empty = true;
                }
                got += msgs.len();
                for msg in msgs {
                    self.start(msg, first, tasks, stage);
                }
            }
        }
    }

    /// No sweep has a job waiting: waits on one pull of the sweep the schedule would serve first
    /// (or, with none listed, a while), then the sweeps are listed again. True when a job came.
    async fn wait_for_one<F: Future<Output = ()>>(
        &mut self,
        stream: &Stream,
        mut first: Option<OwnedSemaphorePermit>,
        shutdown: &mut std::pin::Pin<&mut F>,
        tasks: &mut JoinSet<()>,
        stage: &watch::Receiver<Stage>,
        backoff: Duration,
    ) -> Result<bool, Trouble> {
        self.refreshed = None;
        let Some(sweep) = self.schedule.idle_choice() else {
            drop(first);
            let look = if self.busy_at.elapsed() < IDLE_LOOK_FOR { IDLE_LOOK } else { REFRESH };
            return tokio::select! {
                () = shutdown.as_mut() => Err(Trouble::Shutdown),
                () = tokio::time::sleep(look) => Ok(false),
            };
        };
        let Some(consumer) = unless_stopped(shutdown, self.consumer(stream, &sweep, backoff)).await? else {
            return Err(Trouble::Failed);
        };
        let want = (1 + self.slots.available_permits()).min(self.fetch_batch);
        let pulled_at = Instant::now();
        let batch = tokio::select! {
            () = shutdown.as_mut() => return Err(Trouble::Shutdown),
            b = consumer.batch().max_messages(want).expires(PULL_EXPIRY).messages() => b,
        };
        let mut batch = batch.map_err(|e| {
            log_pull_failure("pull request failed", Some(&e), backoff);
            Trouble::Failed
        })?;
        let mut got = 0;
        loop {
            let next = tokio::select! {
                biased;
                () = shutdown.as_mut() => {
                    // Jobs already on their way to us would sit out their ack wait: give
                    // them straight back, while the jobs in flight drain.
                    tasks.spawn(give_back(batch, self.js.client()));
                    return Err(Trouble::Shutdown);
                }
                next = batch.next() => next,
            };
            match next {
                None if got == 0 && readiness::unanswered(pulled_at, PULL_EXPIRY) => {
                    log_pull_failure("the server did not answer a pull", None, backoff);
                    return Err(Trouble::Failed);
                }
                None => return Ok(got > 0),
                Some(Ok(msg)) => {
                    got += 1;
                    self.start(msg, &mut first, tasks, stage);
                }
                Some(Err(e)) => {
                    log_pull_failure("pull failed", Some(&e), backoff);
                    return Err(Trouble::Failed);
                }
            }
        }
    }

    /// Lists the sweeps with jobs in the stream (waiting or in flight) and gives the schedule
    /// their class and share.
    async fn refresh(&mut self, stream: &Stream) -> Result<(), async_nats::jetstream::stream::InfoError> {
        let mut subjects = stream.info_with_subjects(JOBS_FILTER).await?;
        let mut sweeps = Vec::new();
        while let Some(next) = subjects.next().await {
            let (subject, count) = next?;
            if let (Some(sweep), true) = (sweep_of_job_subject(&subject), count > 0) {
                if !sweeps.iter().any(|(s, _, _)| s == sweep) {
                    let state = self.jobs.sweeps.read(sweep).await;
                    sweeps.push((sweep.to_string(), state.priority, state.share));
                }
            }
        }
        self.schedule.refresh(sweeps);
        self.refreshed = Some(Instant::now());
        Ok(())
    }

    /// The consumer of `sweep`'s jobs, bound (or created) on first use.
    async fn consumer(
        &mut self,
        stream: &Stream,
        sweep: &str,
        backoff: Duration,
    ) -> Option<async_nats::jetstream::consumer::PullConsumer> {
        let lane = self.schedule.lane_mut(sweep)?;
        if let Some(c) = &lane.consumer {
            return Some(c.clone());
        }
        match sweep_consumer(stream, &self.topology, sweep, LimitsOwner::Worker).await {
            Ok((c, _)) => {
                lane.consumer = Some(c.clone());
                Some(c)
            }
            Err(e) => {
                log_pull_failure("cannot use the sweep's consumer", Some(&e), backoff);
                None
            }
        }
    }

    /// Hands a delivered job to a task of its own, holding a slot and its sweep's count.
    fn start(
        &self,
        msg: Message,
        first: &mut Option<OwnedSemaphorePermit>,
        tasks: &mut JoinSet<()>,
        stage: &watch::Receiver<Stage>,
    ) {
        let permit = match first.take() {
            Some(p) => p,
            None => {
                Arc::clone(&self.slots).try_acquire_owned().expect("no more jobs are delivered than slots were free")
            }
        };
        let hold = sweep_of_job_subject(&msg.subject).and_then(|s| self.schedule.hold(s));
        tasks.spawn(job::handle(Arc::clone(&self.jobs), msg, stage.clone(), IntakeSlot::new(hold, permit)));
    }
}

/// How a pull without waiting went wrong.
enum Fetch {
    /// The sweep has as many jobs in flight as its consumer allows (409): not a failure.
    Full,
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

/// Up to `n` of the jobs waiting on `consumer`, without waiting for more.
async fn fetch(consumer: async_nats::jetstream::consumer::PullConsumer, n: usize) -> Result<Vec<Message>, Fetch> {
    let mut batch = consumer.fetch().max_messages(n).messages().await.map_err(|e| Fetch::Failed(Box::new(e)))?;
    let mut msgs = Vec::with_capacity(n);
    while let Some(next) = batch.next().await {
        match next {
            Ok(msg) => msgs.push(msg),
            Err(e) if e.to_string().contains("409") && msgs.is_empty() => return Err(Fetch::Full),
            // Jobs already delivered are ours to answer: keep them, report the rest next time.
            Err(_) if !msgs.is_empty() => break,
            Err(e) => return Err(Fetch::Failed(e)),
        }
    }
    Ok(msgs)
}

/// `work`, unless shutdown comes first. Only for requests that deliver no job (binding, listing
/// the sweeps): a worker whose servers are gone would otherwise stop only when they time out.
async fn unless_stopped<T>(
    shutdown: &mut std::pin::Pin<&mut impl Future<Output = ()>>,
    work: impl Future<Output = T>,
) -> Result<T, Trouble> {
    tokio::select! {
        biased;
        () = shutdown.as_mut() => Err(Trouble::Shutdown),
        out = work => Ok(out),
    }
}

/// Sleeps for the backoff (doubling it) unless shutdown comes first; true on shutdown.
async fn pause(shutdown: &mut std::pin::Pin<&mut impl Future<Output = ()>>, backoff: &mut Duration) -> bool {
    let wait = *backoff;
    *backoff = (*backoff * 2).min(BACKOFF.1);
    tokio::select! {
        () = shutdown.as_mut() => true,
        () = tokio::time::sleep(wait) => false,
    }
}
