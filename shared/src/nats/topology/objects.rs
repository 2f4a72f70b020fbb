//! What the topology's objects are: their configs, from the tunable [`TopologyConfig`].

use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy};
use async_nats::jetstream::kv;
use async_nats::jetstream::stream::{self, RetentionPolicy, StorageType};

use crate::names;

/// The tunable parts of the topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyConfig {
    /// The sweeps' consumers' ack wait.
    pub ack_wait: Duration,
    /// Deliveries of a job before the DLQ advisory.
    pub max_deliver: i64,
    /// Jobs of one sweep in flight across the fleet.
    pub max_ack_pending: i64,
    /// Jobs with the same `Nats-Msg-Id` within this window are dropped (resubmits).
    pub jobs_duplicate_window: Duration,
    /// How long results are kept.
    pub results_max_age: Duration,
    /// Results with the same `Nats-Msg-Id` within this window are dropped (redeliveries).
    pub results_duplicate_window: Duration,
    /// How long dead-letter advisories are kept.
    pub dlq_max_age: Duration,
    /// Replicas of every stream and of the KV bucket (`stream_replicas`): 1 on one server, 3
    /// on a three-server cluster. Consumers follow their stream's.
    pub replicas: usize,
}

const DAY: Duration = Duration::from_secs(24 * 3600);

impl Default for TopologyConfig {
    fn default() -> TopologyConfig {
        TopologyConfig {
            ack_wait: Duration::from_secs(30),
            max_deliver: 5,
            max_ack_pending: 1000,
            jobs_duplicate_window: Duration::from_secs(120),
            results_max_age: 7 * DAY,
            // Longer than jobs': a redelivered job may be answered again well after its first
            // result (ack_wait × max_deliver), and the duplicate should still be dropped here.
            results_duplicate_window: Duration::from_secs(600),
            dlq_max_age: 7 * DAY,
            replicas: 1,
        }
    }
}

/// `SIMFLEET_JOBS`: work-queue retention (a job leaves the stream when acked or terminated),
/// file storage so a server restart loses nothing.
pub fn jobs_stream_config(cfg: &TopologyConfig) -> stream::Config {
    stream::Config {
        name: names::JOBS_STREAM.to_string(),
        subjects: vec![names::JOBS_FILTER.to_string()],
        retention: RetentionPolicy::WorkQueue,
        storage: StorageType::File,
        duplicate_window: cfg.jobs_duplicate_window,
        num_replicas: cfg.replicas,
        ..Default::default()
    }
}

/// `SIMFLEET_RESULTS`: limits retention with a max age, read by `watch` and `results`.
pub fn results_stream_config(cfg: &TopologyConfig) -> stream::Config {
    stream::Config {
        name: names::RESULTS_STREAM.to_string(),
        subjects: vec![names::RESULTS_FILTER.to_string()],
        retention: RetentionPolicy::Limits,
        storage: StorageType::File,
        max_age: cfg.results_max_age,
        duplicate_window: cfg.results_duplicate_window,
        num_replicas: cfg.replicas,
        ..Default::default()
    }
}

/// `SIMFLEET_DLQ`: the server's max-deliveries advisories of every sweep's consumer.
pub fn dlq_stream_config(cfg: &TopologyConfig) -> stream::Config {
    stream::Config {
        name: names::DLQ_STREAM.to_string(),
        subjects: vec![names::DLQ_SUBJECT.to_string()],
        retention: RetentionPolicy::Limits,
        storage: StorageType::File,
        max_age: cfg.dlq_max_age,
        num_replicas: cfg.replicas,
        ..Default::default()
    }
}

/// How long a sweep's consumer outlives its last pull. The server then deletes it; its jobs
/// stay in the work queue, and the next worker to see them creates the consumer again (a job
/// in flight when that happened is long past its ack wait and delivered again).
pub const SWEEP_CONSUMER_INACTIVE: Duration = Duration::from_secs(3600);

/// The durable pull consumer of one sweep's jobs (`simfleet-sweep-<sweep>`, filter
/// `simfleet.jobs.*.<sweep>`). Work-queue streams refuse overlapping consumers; one sweep's
/// filter never overlaps another's. Its replicas follow the stream's.
pub fn sweep_consumer_config(cfg: &TopologyConfig, sweep: &str) -> pull::Config {
    pull::Config {
        durable_name: Some(names::sweep_consumer_name(sweep)),
        filter_subject: names::sweep_jobs_filter(sweep),
        ack_policy: AckPolicy::Explicit,
        ack_wait: cfg.ack_wait,
        max_deliver: cfg.max_deliver,
        max_ack_pending: cfg.max_ack_pending,
        inactive_threshold: SWEEP_CONSUMER_INACTIVE,
        ..Default::default()
    }
}

/// The `simfleet_sweeps` bucket: five revisions per sweep, file storage.
pub fn sweeps_bucket_config(cfg: &TopologyConfig) -> kv::Config {
    kv::Config {
        bucket: names::SWEEPS_BUCKET.to_string(),
        history: 5,
        storage: StorageType::File,
        num_replicas: cfg.replicas,
        ..Default::default()
    }
}

/// The stream behind the sweeps bucket.
pub(crate) fn sweeps_stream_name() -> String {
    format!("KV_{}", names::SWEEPS_BUCKET)
}
