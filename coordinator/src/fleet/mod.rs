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
//! - [`setup`]: `coordinator setup`, the admin's creation (and change) of the topology.
//!
//! Connecting, credentials and the topology itself are `simfleet::nats`, shared with the
//! worker. Finding the topology, reading and writing sweep entries, `submit` and `watch` wait out
//! a JetStream outage (a restarting server, a cluster without quorum), saying so on stderr;
//! `status`, `results` and `cancel` wait to connect and then fail if JetStream stops answering.

use async_nats::jetstream;
use simfleet::nats::outage::{wait_out, wait_out_if};
use simfleet::nats::topology::{self, Topology, TopologyConfig, TopologyError};
use simfleet::topology::SweepEntry;

pub mod cancel;
pub mod dlq;
pub mod failures;
pub mod metrics;
pub mod results;
pub mod scan;
pub mod settings;
pub mod setup;
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

/// The coordinator's connection name, in the servers' connection lists and the logs.
pub const CONNECTION_NAME: &str = "simfleet-coordinator";

impl Fleet {
    /// Connects and finds the topology, creating what is missing: on a server without
    /// permissions the coordinator may be the first to touch it (workers never create it).
    /// Waits, saying so, while JetStream cannot answer.
    pub async fn connect(settings: &FleetSettings) -> anyhow::Result<Fleet> {
        let client = simfleet::nats::connect(&settings.nats_url, &settings.auth, CONNECTION_NAME).await?;
        Fleet::open(client, &settings.topology_config()).await
    }

    /// The same, with a client the caller connected and the default topology.
    pub async fn from_client(client: async_nats::Client) -> anyhow::Result<Fleet> {
        Fleet::open(client, &TopologyConfig::default()).await
    }

    /// Finds (or creates) the topology `cfg` describes on `client`'s servers.
    pub async fn open(client: async_nats::Client, cfg: &TopologyConfig) -> anyhow::Result<Fleet> {
        let js = jetstream::new(client);
        let topology =
            wait_out_if("finding the JetStream topology", TopologyError::is_transient, || topology::ensure(&js, cfg))
                .await?;
        Ok(Fleet { js, topology })
    }

    /// The KV entry of `sweep`, or an error a person can act on. Waits out JetStream outages.
    pub async fn entry(&self, sweep: &str) -> anyhow::Result<SweepEntry> {
        match wait_out("reading the sweep's KV entry", || self.topology.sweeps.get(sweep)).await? {
            Some(bytes) => Ok(serde_json::from_slice(&bytes)?),
            None => anyhow::bail!(
                "no sweep {sweep:?} on this server (see `coordinator status` for the sweeps it knows; \
                 `coordinator submit SWEEP.toml` prints the id)"
            ),
        }
    }

    /// Writes the KV entry of a sweep. Waits out JetStream outages.
    pub async fn put_entry(&self, entry: &SweepEntry) -> anyhow::Result<()> {
        let value: bytes::Bytes = serde_json::to_vec(entry)?.into();
        wait_out("writing the sweep's KV entry", || self.topology.sweeps.put(&entry.id, value.clone())).await?;
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
