//! Waiting for the JetStream topology, at start and after the pull loop lost its consumer.
//!
//! Workers bind to the topology and never create any of it (`simfleet::nats::topology`): an
//! admin's `coordinator setup` creates it, or, on a server without permissions, the first
//! `coordinator submit`. A worker that starts first waits for it and says so; so does a worker
//! whose JetStream cannot answer (a restarting server, a leader election, a cluster that lost
//! its quorum). Only a topology that exists but cannot serve (another retention, filter or ack
//! policy) stops the worker: waiting would not change it.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use async_nats::jetstream::stream::Stream;
use async_nats::jetstream::Context;
use simfleet::nats::outage::{is_transient, Backoff, WAITING};
use simfleet::nats::topology::{self, Topology, TopologyConfig, TopologyError, TopologyErrorKind};

/// Binds to the topology, waiting while it is missing or JetStream cannot answer. `None` when
/// `shutdown` completed first.
pub(crate) async fn bind<F: Future<Output = ()>>(
    js: &Context,
    cfg: &TopologyConfig,
    mut shutdown: Pin<&mut F>,
) -> Result<Option<Topology>, TopologyError> {
    let mut backoff = Backoff::default();
    loop {
        let pause = backoff.next_pause();
        match topology::bind(js, cfg).await {
            Ok(t) => return Ok(Some(t)),
            Err(e) if waitable(&e) => log_wait(&e, pause),
            Err(e) => return Err(e),
        }
        tokio::select! {
            () = shutdown.as_mut() => return Ok(None),
            () = tokio::time::sleep(pause) => {}
        }
    }
}

/// Binds to the topology again after the pull loop lost it; the jobs stream, or `None` (said
/// in the log) when the loop should pause `retry_in` and try again.
pub(crate) async fn rebind(js: &Context, cfg: &TopologyConfig, retry_in: Duration) -> Option<Stream> {
    match topology::bind(js, cfg).await {
        Ok(t) => Some(t.jobs),
        Err(e) if waitable(&e) => {
            log_wait(&e, retry_in);
            None
        }
        Err(e) => {
            tracing::error!(error = %e, retry_in_ms = retry_in.as_millis() as u64, "cannot use the jobs stream");
            None
        }
    }
}

/// Whether an empty pull sent at `pulled_at` with `expiry` ended on the client's own timer:
/// the server ends an expired pull at once, the client 5 s later, so this one went unanswered.
pub(crate) fn unanswered(pulled_at: tokio::time::Instant, expiry: Duration) -> bool {
    pulled_at.elapsed() > expiry + Duration::from_secs(2)
}

/// A failed (or unanswered) pull, in words a person acts on: an outage says that the worker
/// waits for it.
pub(crate) fn log_pull_failure(what: &str, e: Option<&dyn std::fmt::Display>, retry_in: Duration) {
    let retry_in_ms = retry_in.as_millis() as u64;
    match e {
        Some(e) if !is_transient(e) => tracing::warn!(error = %e, retry_in_ms, "{what}"),
        Some(e) => tracing::warn!(error = %e, retry_in_ms, "{what}: {WAITING}"),
        None => tracing::warn!(retry_in_ms, "{what}: {WAITING}"),
    }
}

/// Whether waiting may cure a bind failure.
pub(crate) fn waitable(e: &TopologyError) -> bool {
    e.kind == TopologyErrorKind::Missing || e.is_transient()
}

/// Says why the worker waits, in words a person acts on.
pub(crate) fn log_wait(e: &TopologyError, retry_in: Duration) {
    let retry_in_ms = retry_in.as_millis() as u64;
    if e.kind == TopologyErrorKind::Missing {
        tracing::warn!(
            error = %e,
            retry_in_ms,
            "the JetStream topology is not set up; waiting for it (workers never create it: an admin runs \
             `coordinator setup`, or on a server without permissions the first `coordinator submit` does)"
        );
    } else {
        tracing::warn!(error = %e, retry_in_ms, "{WAITING}");
    }
}
