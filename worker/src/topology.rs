//! Creates or checks the JetStream topology of docs/topology.md. Public because
//! the coordinator sets up the same streams before it submits anything.
//!
//! Every function is get-or-create and idempotent: several workers and a coordinator may start
//! at once, and the server answers a create of an identical config with the existing object.
//! If a create races with one of a different config, the loser reads back what won. Objects that
//! exist are checked for what cannot be changed in place (retention, subjects, the consumer's
//! filter and ack policy): a mismatch is an error naming the object, not a silent
//! misconfiguration. Names come from `simfleet::topology`.

use std::fmt;
use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy, PullConsumer};
use async_nats::jetstream::stream::{self, RetentionPolicy, StorageType, Stream};
use async_nats::jetstream::{kv, Context};
use simfleet::topology as names;

use crate::Settings;

/// The tunable parts of the topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyConfig {
    /// The workers' consumer ack wait.
    pub ack_wait: Duration,
    /// Deliveries of a job before the DLQ advisory.
    pub max_deliver: i64,
    /// Fleet-wide jobs in flight.
    pub max_ack_pending: i64,
    /// Jobs with the same `Nats-Msg-Id` within this window are dropped (resubmits).
    pub jobs_duplicate_window: Duration,
    /// How long results are kept.
    pub results_max_age: Duration,
    /// Results with the same `Nats-Msg-Id` within this window are dropped (redeliveries).
    pub results_duplicate_window: Duration,
    /// How long dead-letter advisories are kept.
    pub dlq_max_age: Duration,
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
        }
    }
}

impl From<&Settings> for TopologyConfig {
    fn from(s: &Settings) -> TopologyConfig {
        TopologyConfig {
            ack_wait: s.ack_wait,
            max_deliver: s.max_deliver,
            max_ack_pending: s.max_ack_pending,
            ..TopologyConfig::default()
        }
    }
}

/// Handles on every object of the topology.
#[derive(Debug)]
pub struct Topology {
    /// `SIMFLEET_JOBS`.
    pub jobs: Stream,
    /// The shared `simfleet-workers` pull consumer.
    pub workers: PullConsumer,
    /// `SIMFLEET_RESULTS`.
    pub results: Stream,
    /// `SIMFLEET_DLQ`.
    pub dlq: Stream,
    /// `simfleet_sweeps`.
    pub sweeps: kv::Store,
}

/// A topology object could not be created, read, or does not match.
#[derive(Debug)]
pub struct TopologyError {
    /// `stream`, `consumer` or `KV bucket`.
    pub what: &'static str,
    /// Its name.
    pub name: String,
    /// What went wrong.
    pub detail: String,
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JetStream {} {}: {}", self.what, self.name, self.detail)
    }
}

impl std::error::Error for TopologyError {}

fn err(what: &'static str, name: &str, detail: impl fmt::Display) -> TopologyError {
    TopologyError { what, name: name.to_string(), detail: detail.to_string() }
}

/// Creates or checks everything: the three streams, the workers' consumer and the KV bucket.
pub async fn ensure(js: &Context, cfg: &TopologyConfig) -> Result<Topology, TopologyError> {
    let jobs = ensure_stream(js, jobs_stream_config(cfg)).await?;
    let workers = ensure_workers_consumer(&jobs, cfg).await?;
    let results = ensure_stream(js, results_stream_config(cfg)).await?;
    let dlq = ensure_stream(js, dlq_stream_config(cfg)).await?;
    let sweeps = ensure_sweeps_bucket(js).await?;
    Ok(Topology { jobs, workers, results, dlq, sweeps })
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
        ..Default::default()
    }
}

/// `SIMFLEET_DLQ`: the server's max-deliveries advisories of the workers' consumer.
pub fn dlq_stream_config(cfg: &TopologyConfig) -> stream::Config {
    stream::Config {
        name: names::DLQ_STREAM.to_string(),
        subjects: vec![names::DLQ_SUBJECT.to_string()],
        retention: RetentionPolicy::Limits,
        storage: StorageType::File,
        max_age: cfg.dlq_max_age,
        ..Default::default()
    }
}

/// The one durable pull consumer all workers share (work-queue streams refuse overlapping
/// consumers, so there must be exactly one).
pub fn workers_consumer_config(cfg: &TopologyConfig) -> pull::Config {
    pull::Config {
        durable_name: Some(names::WORKERS_CONSUMER.to_string()),
        filter_subject: names::JOBS_FILTER.to_string(),
        ack_policy: AckPolicy::Explicit,
        ack_wait: cfg.ack_wait,
        max_deliver: cfg.max_deliver,
        max_ack_pending: cfg.max_ack_pending,
        ..Default::default()
    }
}

/// Gets or creates a stream and checks its retention and subjects.
pub async fn ensure_stream(js: &Context, config: stream::Config) -> Result<Stream, TopologyError> {
    let name = config.name.clone();
    let stream = match js.get_or_create_stream(config.clone()).await {
        Ok(s) => s,
        // Lost a creation race against a different config: read back the winner.
        Err(first) => js.get_stream(&name).await.map_err(|_| err("stream", &name, first))?,
    };
    let have = &stream.cached_info().config;
    if have.retention != config.retention {
        return Err(err(
            "stream",
            &name,
            format!("has retention {:?}, expected {:?}", have.retention, config.retention),
        ));
    }
    if have.subjects != config.subjects {
        return Err(err("stream", &name, format!("has subjects {:?}, expected {:?}", have.subjects, config.subjects)));
    }
    Ok(stream)
}

/// Gets or creates the workers' consumer on `jobs` and checks its filter and ack policy.
/// Limits that differ (ack wait, max deliver, max ack pending) are left as the server has them,
/// so workers started with other settings do not flip the fleet's consumer back and forth.
pub async fn ensure_workers_consumer(jobs: &Stream, cfg: &TopologyConfig) -> Result<PullConsumer, TopologyError> {
    let name = names::WORKERS_CONSUMER;
    let config = workers_consumer_config(cfg);
    let mut consumer: PullConsumer = match jobs.get_or_create_consumer(name, config.clone()).await {
        Ok(c) => c,
        Err(first) => jobs.get_consumer(name).await.map_err(|_| err("consumer", name, first))?,
    };
    let info = consumer.info().await.map_err(|e| err("consumer", name, e))?;
    let have = &info.config;
    if have.filter_subject != config.filter_subject || have.ack_policy != AckPolicy::Explicit {
        return Err(err(
            "consumer",
            name,
            format!(
                "has filter {:?} and ack policy {:?}, expected {:?} and explicit",
                have.filter_subject, have.ack_policy, config.filter_subject
            ),
        ));
    }
    if (have.ack_wait, have.max_deliver, have.max_ack_pending)
        != (config.ack_wait, config.max_deliver, config.max_ack_pending)
    {
        tracing::warn!(
            ack_wait_seconds = have.ack_wait.as_secs(),
            max_deliver = have.max_deliver,
            max_ack_pending = have.max_ack_pending,
            "the workers' consumer exists with other limits than configured; keeping the server's"
        );
    }
    Ok(consumer)
}

/// Gets or creates the `simfleet_sweeps` KV bucket.
pub async fn ensure_sweeps_bucket(js: &Context) -> Result<kv::Store, TopologyError> {
    let bucket = names::SWEEPS_BUCKET;
    if let Ok(store) = js.get_key_value(bucket).await {
        return Ok(store);
    }
    let config =
        kv::Config { bucket: bucket.to_string(), history: 5, storage: StorageType::File, ..Default::default() };
    match js.create_key_value(config).await {
        Ok(store) => Ok(store),
        Err(first) => js.get_key_value(bucket).await.map_err(|_| err("KV bucket", bucket, first)),
    }
}
