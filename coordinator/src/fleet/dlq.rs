//! Jobs that ran out of deliveries (docs/topology.md, "Jobs that run out of deliveries").
//!
//! When a sweep's consumer gives up on a job (every delivery crashed its worker or timed
//! out), the server publishes a max-deliveries advisory, which the `SIMFLEET_DLQ` stream keeps.
//! The job itself stays in the work queue, never delivered again. `watch` reads the advisories
//! after the last one it saw, loads each stuck job by its stream sequence, and for a job of its
//! own sweep reports it failed and deletes it from the queue.

use async_nats::jetstream::stream::Stream;
use serde::Deserialize;

use super::msg_ids::index_of;

/// The fields of a max-deliveries advisory that matter here.
#[derive(Debug, Deserialize)]
struct Advisory {
    stream_seq: u64,
    #[serde(default)]
    deliveries: u64,
}

/// A job of the watched sweep found in the DLQ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadJob {
    /// Job index.
    pub index: u64,
    /// Deliveries the server made before giving up.
    pub deliveries: u64,
}

/// Reads the DLQ stream after `cursor` (a stream sequence), moving it forward.
pub struct DlqReader {
    dlq: Stream,
    jobs: Stream,
    sweep: String,
    cursor: u64,
}

impl DlqReader {
    /// A reader for `sweep`'s stuck jobs, from the start of the DLQ stream.
    pub fn new(dlq: Stream, jobs: Stream, sweep: &str) -> DlqReader {
        DlqReader { dlq, jobs, sweep: sweep.to_string(), cursor: 0 }
    }

    /// The stuck jobs of the sweep advised since the last call; each is deleted from the queue.
    pub async fn poll(&mut self) -> anyhow::Result<Vec<DeadJob>> {
        let last = self.dlq.info().await?.state.last_sequence;
        let mut dead = Vec::new();
        while self.cursor < last {
            self.cursor += 1;
            // Sequences may be gone (max age, deleted): skip them.
            let Ok(msg) = self.dlq.get_raw_message(self.cursor).await else { continue };
            let Ok(advisory) = serde_json::from_slice::<Advisory>(&msg.payload) else { continue };
            // The job may be gone already (another watcher of the same sweep took it).
            let Ok(job) = self.jobs.get_raw_message(advisory.stream_seq).await else { continue };
            let of_sweep = job.subject.as_str().rsplit('.').next() == Some(self.sweep.as_str());
            let index = index_of(Some(&job.headers), &self.sweep).or_else(|| {
                of_sweep
                    .then(|| simfleet::protocol::decode::<simfleet::protocol::JobEnvelope>(&job.payload).ok())
                    .flatten()
                    .map(|e| e.index)
            });
            if let (true, Some(index)) = (of_sweep, index) {
                self.jobs.delete_message(advisory.stream_seq).await?;
                dead.push(DeadJob { index, deliveries: advisory.deliveries });
            }
        }
        Ok(dead)
    }
}
