//! The fleet commands: the coordinator's side of the NATS topology (docs/topology.md).
//!
//! - [`submit`]: publish a sweep's jobs and its KV entry, idempotent at any delay (the entry's
//!   publish record; message ids within the server's duplicate window).
//! - [`watch`]: collect a sweep's results through the durable consumer `watch-<sweep>`, dedup
//!   by job index, stream records to a file, resume after a restart, report failed jobs
//!   (error results and jobs out of deliveries, from the DLQ).
//! - [`status`], [`results`], [`cancel`]: counts from any machine, a fresh export from the
//!   results stream, cancelling a sweep.
//! - [`msg_ids`]: which jobs of a sweep are answered (the results' message ids) or still queued.
//! - [`settings`]: the layered connection settings; [`metrics`]: `/metrics` while `watch` runs.
//! - [`output_lock`]: one writer per results file (`watch`, `results`).
//! - [`payload`]: before publishing, whether each records cell's results fit `max_payload`.
//! - [`setup`]: `coordinator setup`, the admin's creation (and change) of the topology.
//! - [`priority`]: `coordinator priority`, a sweep's class and share while it runs.
//!
//! Connecting, credentials and the topology itself are `simfleet::nats`, shared with the
//! worker. Finding the topology, reading and writing sweep entries, `submit` and `watch` wait out
//! a JetStream outage (a restarting server, a cluster without quorum), saying so on stderr;
//! `status`, `results` and `cancel` wait to connect and then fail if JetStream stops answering.

use async_nats::jetstream;
use async_nats::jetstream::kv;
use simfleet::names::SweepEntry;
use simfleet::nats::outage::{is_transient, wait_out, wait_out_if, WAITING};
use simfleet::nats::topology::{self, Topology, TopologyConfig, TopologyError};

pub mod cancel;
pub mod dlq;
// The failure log is the collector's; its old path stays.
pub use crate::collector::failures;
pub mod large_result;
pub mod llm_limit;
pub mod metrics;
pub mod msg_ids;
pub mod output_lock;
pub mod payload;
pub mod priority;
pub mod results;
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
    /// The streams and the KV bucket.
    pub topology: Topology,
    /// The limits a sweep's consumer is created with (from the coordinator's settings).
    pub config: TopologyConfig,
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
        Ok(Fleet { js, topology, config: cfg.clone() })
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

    /// Makes the `wasm:` modules a stored definition names known to this process: fetched from
    /// the object store, checked against their hashes, compiled (as a worker does), so that the
    /// definition parses here. Call before parsing a definition read from the KV bucket.
    pub async fn fetch_modules(&self, definition: &str) -> anyhow::Result<()> {
        use simfleet::outside::wasm::ModuleCache;
        for hash in crate::sweep::modules::hashes_in(definition) {
            if ModuleCache::global().get(&hash).is_some() {
                continue;
            }
            let bytes = simfleet::nats::modules::fetch(&self.js, &hash).await?;
            ModuleCache::global().insert(&bytes, Some(&hash))?;
        }
        Ok(())
    }

    /// Writes the KV entry of a sweep, keeping the later of its publish record and the one the
    /// bucket holds: `submit` and `watch` both rewrite the entry, and a writer holding an older
    /// copy must not move the record back (a resubmission would then publish jobs twice).
    /// Waits out JetStream outages.
    pub async fn put_entry(&self, entry: &SweepEntry) -> anyhow::Result<()> {
        self.modify_entry(&entry.id, |_| entry.clone()).await
    }

    /// Moves the publish record of sweep `entry.id` forward, leaving the rest of the entry as the
    /// bucket holds it (a `cancel` meanwhile stays cancelled); `entry` is written when the
    /// bucket has none.
    pub async fn record_published(&self, entry: &SweepEntry) -> anyhow::Result<()> {
        self.modify_entry(&entry.id, |stored| match stored {
            Some(stored) => SweepEntry { published: entry.published, ..stored },
            None => entry.clone(),
        })
        .await
    }

    /// Writes `f(stored entry)` under `id` with a compare-and-set on the entry's revision, tried
    /// again when another writer came first; the publish record written is the later of `f`'s
    /// and the stored one.
    pub(crate) async fn modify_entry(
        &self,
        id: &str,
        f: impl Fn(Option<SweepEntry>) -> SweepEntry,
    ) -> anyhow::Result<()> {
        loop {
            let current = wait_out("reading the sweep's KV entry", || self.topology.sweeps.entry(id)).await?;
            let current = current.filter(|e| e.operation == kv::Operation::Put);
            let stored = current.as_ref().and_then(|e| serde_json::from_slice::<SweepEntry>(&e.value).ok());
            let stored_record = stored.as_ref().and_then(|s| s.published);
            let mut next = f(stored);
            next.published = match (stored_record, next.published) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            let value: bytes::Bytes = serde_json::to_vec(&next)?.into();
            let written = match &current {
                Some(e) => self
                    .topology
                    .sweeps
                    .update(id, value, e.revision)
                    .await
                    .map_err(|e| (e.kind() == kv::UpdateErrorKind::WrongLastRevision, anyhow::Error::from(e))),
                None => self
                    .topology
                    .sweeps
                    .create(id, value)
                    .await
                    .map_err(|e| (e.kind() == kv::CreateErrorKind::AlreadyExists, anyhow::Error::from(e))),
            };
            match written {
                Ok(_) => return Ok(()),
                // Another writer came first, or in a cluster a write of ours that timed out is
                // still being agreed on ("wrong last sequence"): start again from what is there.
                Err((conflict, e)) if conflict || format!("{e:#}").contains("wrong last sequence") => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err((_, e)) if is_transient(&e) => {
                    tracing::warn!(error = format!("{e:#}"), "writing the sweep's KV entry: {WAITING}");
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
                Err((_, e)) => return Err(e.context("writing the sweep's KV entry")),
            }
        }
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
