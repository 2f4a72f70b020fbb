//! The fleet commands: the coordinator's side of the NATS topology (docs/topology.md).
//!
//! - [`submit`]: publish a sweep's jobs (idempotent: message ids, and jobs already answered or
//!   queued are skipped) and its KV entry.
//! - [`watch`]: collect a sweep's results through the durable consumer `watch-<sweep>`, dedup
//!   by job index, stream records to a file, resume after a restart, report failed jobs
//!   (error results and jobs out of deliveries, from the DLQ).
//! - [`status`], [`results`], [`cancel`]: counts from any machine, a fresh export from the
//!   results stream, cancelling a sweep.
//! - [`scan`]: reading a subject's message ids (which jobs are queued or answered).
//! - [`settings`]: the layered connection settings; [`metrics`]: `/metrics` while `watch` runs.

use async_nats::jetstream;
use simfleet::topology::SweepEntry;
use worker::topology::{Topology, TopologyConfig};

pub mod cancel;
pub mod dlq;
pub mod failures;
pub mod metrics;
pub mod results;
pub mod scan;
pub mod settings;
pub mod status;
pub mod submit;
pub mod watch;

pub use settings::{FleetFlags, FleetSettings};

/// A connection to the fleet's NATS server with the topology in place.
pub struct Fleet {
    /// The JetStream context.
    pub js: jetstream::Context,
    /// The streams, the workers' consumer and the KV bucket.
    pub topology: Topology,
}

impl Fleet {
    /// Connects and creates (or checks) the topology. The coordinator may be the first to touch
    /// a fresh server, so it sets up the same objects a worker would.
    pub async fn connect(settings: &FleetSettings) -> anyhow::Result<Fleet> {
        let client =
            worker::connection::connect_with(&settings.nats_url, &settings.auth, "simfleet-coordinator").await?;
        Fleet::from_client(client).await
    }

    /// The same, with a client the caller connected.
    pub async fn from_client(client: async_nats::Client) -> anyhow::Result<Fleet> {
        let js = jetstream::new(client);
        let topology = worker::topology::ensure(&js, &TopologyConfig::default()).await?;
        Ok(Fleet { js, topology })
    }

    /// The KV entry of `sweep`, or an error a person can act on.
    pub async fn entry(&self, sweep: &str) -> anyhow::Result<SweepEntry> {
        match self.topology.sweeps.get(sweep).await? {
            Some(bytes) => Ok(serde_json::from_slice(&bytes)?),
            None => anyhow::bail!(
                "no sweep {sweep:?} on this server (see `coordinator status` for the sweeps it knows; \
                 `coordinator submit SWEEP.toml` prints the id)"
            ),
        }
    }

    /// Writes the KV entry of a sweep.
    pub async fn put_entry(&self, entry: &SweepEntry) -> anyhow::Result<()> {
        self.topology.sweeps.put(&entry.id, serde_json::to_vec(entry)?.into()).await?;
        Ok(())
    }

    /// Every sweep entry in the KV bucket, sorted by id.
    pub async fn entries(&self) -> anyhow::Result<Vec<SweepEntry>> {
        use futures::TryStreamExt;
        let keys: Vec<String> = self.topology.sweeps.keys().await?.try_collect().await?;
        let mut out = Vec::new();
        for key in keys {
            if let Some(bytes) = self.topology.sweeps.get(&key).await? {
                if let Ok(entry) = serde_json::from_slice::<SweepEntry>(&bytes) {
                    out.push(entry);
                }
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }
}
