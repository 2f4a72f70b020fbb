//! The pull loop: asks the shared consumer for as many jobs as there are free slots, hands each
//! to a task, and on shutdown drains (mini-redis's `Listener`, with a pull instead of accept).
//!
//! A slot is a job delivered and not yet answered: `concurrency` playing, as many publishing,
//! and `prefetch` queued for the play threads. Queued jobs are why a play thread starts its
//! next job at once: with every core playing, a pull's round trip through a busy scheduler and
//! server is not free, and the core would idle meanwhile. Only free slots are fetched because
//! every delivered job starts an ack timer on the server: the client's default batch of 200
//! would start 200 timers for jobs that wait behind the ones playing (queued jobs send
//! in-progress acks while they wait). Errors from the server (an outage, a deleted consumer, a
//! leader change, a lost cluster quorum) are logged and retried with backoff, binding to the
//! topology again (`readiness` says why in words a person acts on), so the loop survives a
//! server restart on its own; the client reconnects by itself. A pull the server never answers
//! (it ends on the client's timer, after its expiry) counts as such an error.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::Context;
use futures::StreamExt;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

use crate::job::{self, JobContext, Stage};
use crate::readiness::{self, log_pull_failure};
use simfleet::nats::TopologyConfig;

/// How long one pull request waits on the server for jobs. Short enough that a pull lost in a
/// server restart is replaced soon (the client gives up 5 s after this), long enough that idle
/// workers do not flood the server with requests.
const PULL_EXPIRY: Duration = Duration::from_secs(3);
/// Backoff after a failed pull: from the first to the last value, doubling.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));
/// After the drain timeout, how long aborted jobs get to send their NAKs.
const ABORT_GRACE: Duration = Duration::from_secs(5);

/// The pull loop and its jobs in flight.
pub(crate) struct Intake {
    pub(crate) js: Context,
    pub(crate) topology: TopologyConfig,
    /// `None` after an error: re-created (with the whole topology) before the next pull.
    pub(crate) consumer: Option<PullConsumer>,
    pub(crate) jobs: Arc<JobContext>,
    /// One permit per job delivered and not yet answered (`2 × concurrency + prefetch`).
    /// Never closed, so `acquire` cannot fail.
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) fetch_batch: usize,
    pub(crate) drain_timeout: Duration,
}

impl Intake {
    /// Pulls and plays jobs until `shutdown` completes, then drains.
    pub(crate) async fn run(mut self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        let (stage_tx, stage_rx) = watch::channel(Stage::Running);
        let mut tasks = JoinSet::new();
        let mut backoff = BACKOFF.0;
        'pull: loop {
            while tasks.try_join_next().is_some() {}
            let first = tokio::select! {
                () = &mut shutdown => break 'pull,
                permit = Arc::clone(&self.slots).acquire_owned() => permit.expect("the semaphore is never closed"),
            };
            let consumer = match self.consumer.take() {
                Some(c) => c,
                None => match readiness::rebind(&self.js, &self.topology, backoff).await {
                    Some(c) => c,
                    None => {
                        drop(first);
                        if pause(&mut shutdown, &mut backoff).await {
                            break 'pull;
                        }
                        continue;
                    }
                },
            };
            // We hold one permit; only this loop acquires, so the free ones stay free until we
            // take them below.
            let want = (1 + self.slots.available_permits()).min(self.fetch_batch);
            let pulled_at = tokio::time::Instant::now();
            let batch = tokio::select! {
                () = &mut shutdown => break 'pull,
                b = consumer.batch().max_messages(want).expires(PULL_EXPIRY).messages() => b,
            };
            let mut batch = match batch {
                Ok(b) => b,
                Err(e) => {
                    log_pull_failure("pull request failed", Some(&e), backoff);
                    drop(first);
                    if pause(&mut shutdown, &mut backoff).await {
                        break 'pull;
                    }
                    continue;
                }
            };
            self.consumer = Some(consumer);
            let mut first = Some(first);
            loop {
                let next = tokio::select! {
                    biased;
                    () = &mut shutdown => {
                        // Jobs already on their way to us would sit out their ack wait: give
                        // them straight back, while the jobs in flight drain.
                        tasks.spawn(give_back(batch));
                        break 'pull;
                    }
                    next = batch.next() => next,
                };
                match next {
                    None if first.is_some() && readiness::unanswered(pulled_at, PULL_EXPIRY) => {
                        log_pull_failure("the server did not answer a pull", None, backoff);
                        self.consumer = None;
                        if pause(&mut shutdown, &mut backoff).await {
                            break 'pull;
                        }
                        break;
                    }
                    None => break,
                    Some(Ok(msg)) => {
                        backoff = BACKOFF.0;
                        let permit = match first.take() {
                            Some(p) => p,
                            None => Arc::clone(&self.slots)
                                .try_acquire_owned()
                                .expect("no more jobs are delivered than slots were free"),
                        };
                        tasks.spawn(job::handle(Arc::clone(&self.jobs), msg, stage_rx.clone(), permit));
                    }
                    Some(Err(e)) => {
                        log_pull_failure("pull failed", Some(&e), backoff);
                        self.consumer = None;
                        if pause(&mut shutdown, &mut backoff).await {
                            break 'pull;
                        }
                        break;
                    }
                }
            }
        }
        self.drain(tasks, stage_tx).await;
    }

    /// Gives queued jobs back at once, waits for jobs in flight up to the drain timeout, then
    /// gives the rest back.
    async fn drain(&self, mut tasks: JoinSet<()>, stage: watch::Sender<Stage>) {
        let _ = stage.send(Stage::Draining);
        let in_flight = tasks.len();
        tracing::info!(
            in_flight,
            drain_timeout_seconds = self.drain_timeout.as_secs(),
            "stopping: no more pulls; draining"
        );
        let all_done = async { while tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(self.drain_timeout, all_done).await.is_err() {
            tracing::warn!(unfinished = tasks.len(), "drain timeout: giving unfinished jobs back");
            let _ = stage.send(Stage::Aborting);
            let naks_sent = async { while tasks.join_next().await.is_some() {} };
            if tokio::time::timeout(ABORT_GRACE, naks_sent).await.is_err() {
                tracing::warn!("some jobs could not be given back; they return after the ack wait");
            }
        }
        if let Err(e) = self.js.client().flush().await {
            tracing::warn!(error = %e, "final flush failed");
        }
        tracing::info!("drained");
    }
}

/// NAKs (without delay) every job still arriving on a pull we no longer want.
async fn give_back(mut batch: async_nats::jetstream::consumer::pull::Batch) {
    let rest = async {
        while let Some(next) = batch.next().await {
            if let Ok(msg) = next {
                job::nak(&msg, None).await;
            }
        }
    };
    // The pull ends by itself after its expiry; do not wait for the client's extra grace.
    let _ = tokio::time::timeout(PULL_EXPIRY + Duration::from_secs(1), rest).await;
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
