//! The end of the pull loop: jobs still arriving on a pull are given back at once, jobs in
//! flight get the drain timeout to finish, then are given back too, and what the worker has
//! sent is flushed to the server it is connected to.

use std::time::Duration;

use async_nats::jetstream::consumer::pull::Batch;
use futures::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::{Intake, PULL_EXPIRY};
use crate::job::{self, Stage};

/// After the drain timeout, how long aborted jobs get to send their NAKs.
const ABORT_GRACE: Duration = Duration::from_secs(5);
/// How long the final flush of a drain waits for the server.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

impl Intake {
    /// Gives queued jobs back at once, waits for jobs in flight up to the drain timeout, then
    /// gives the rest back.
    pub(super) async fn drain(&self, mut tasks: JoinSet<()>, stage: watch::Sender<Stage>) {
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
        // Only to a server we are connected to: a flush waits for the connection, and a worker
        // whose server is gone has nothing left to send that would matter (its jobs come back
        // after their ack wait).
        let client = self.js.client();
        if client.connection_state() == async_nats::connection::State::Connected {
            match tokio::time::timeout(FLUSH_TIMEOUT, client.flush()).await {
                Ok(Err(e)) => tracing::warn!(error = %e, "final flush failed"),
                Err(_) => tracing::warn!("final flush timed out"),
                Ok(Ok(())) => {}
            }
        } else {
            tracing::warn!("not connected to a server: nothing more to send");
        }
        tracing::info!("drained");
    }
}

/// NAKs (without delay) every job still arriving on a pull we no longer want. Without a
/// connection nothing can arrive, and nothing could be given back: done at once.
pub(super) async fn give_back(mut batch: Batch, client: async_nats::Client) {
    if client.connection_state() != async_nats::connection::State::Connected {
        return;
    }
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
