//! The JetStream topology: the jobs, results and DLQ streams, the sweeps KV bucket, found or
//! created, then checked; and each sweep's consumer on the jobs stream ([`sweep_consumer`]).
//!
//! Three ways in, one per role:
//! - [`bind`] (workers): finds every stream and the bucket and creates none; a missing one is a
//!   [`TopologyErrorKind::Missing`] error that names it and who creates it. A sweep's consumer
//!   is the exception: a worker that finds a sweep's jobs without it creates it (the server
//!   deletes idle ones), and its limits (ack wait, max deliver, max ack pending) are the
//!   workers' configuration: a worker configured otherwise than the server changes them.
//! - [`ensure`] (the coordinator's fleet commands, tests): get-or-create, idempotent. Several
//!   clients may start at once: the server answers a create of an identical config with the
//!   existing object, and the loser of a race against another config reads back the winner.
//!   Under the shipped permissions only an admin may create streams, so on a production
//!   server this finds what `coordinator setup` made.
//! - [`setup()`] (an admin, `coordinator setup`): creates what is
//!   missing and changes the replicas of what exists.
//!
//! Every object found is checked for what cannot change in place (retention, subjects, the
//! consumer's filter and ack policy: a mismatch is an error naming the object) and for its
//! replicas: an object with other replicas than `stream_replicas` is used as it is, with a
//! warning that says how to change it, never silently. Names come from `simfleet::names`.

use std::fmt;

use async_nats::jetstream::consumer::{self, AckPolicy, PullConsumer};
use async_nats::jetstream::context::GetStreamErrorKind;
use async_nats::jetstream::stream::{self, Stream};
use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::{kv, Context};

use super::outage::is_transient;
use crate::names;

mod objects;
mod setup;

pub(crate) use objects::sweeps_stream_name;
pub use objects::{
    dlq_stream_config, jobs_stream_config, results_stream_config, sweep_consumer_config, sweeps_bucket_config,
    TopologyConfig, SWEEP_CONSUMER_INACTIVE,
};
pub use setup::{setup, SetupAction, SetupReport, SetupStep, LEGACY_CONSUMER};

/// Handles on every object of the topology.
#[derive(Debug)]
pub struct Topology {
    /// `SIMFLEET_JOBS`.
    pub jobs: Stream,
    /// `SIMFLEET_RESULTS`.
    pub results: Stream,
    /// `SIMFLEET_DLQ`.
    pub dlq: Stream,
    /// `simfleet_sweeps`.
    pub sweeps: kv::Store,
}

/// What kind of trouble a [`TopologyError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyErrorKind {
    /// The object does not exist (and this role does not create it).
    Missing,
    /// JetStream did not answer (see [`super::outage`]): waiting cures it.
    Unavailable,
    /// The object exists but cannot serve (retention, subjects, filter, ack policy).
    Mismatch,
    /// The object does not exist and creating it failed: usually missing permissions.
    CannotCreate,
    /// Anything else the server said.
    Other,
}

/// A topology object could not be found, created or used.
#[derive(Debug)]
pub struct TopologyError {
    /// What kind of trouble.
    pub kind: TopologyErrorKind,
    /// `stream`, `consumer` or `KV bucket`.
    pub what: &'static str,
    /// Its name.
    pub name: String,
    /// What went wrong.
    pub detail: String,
}

impl TopologyError {
    /// Whether waiting cures it (JetStream did not answer).
    pub fn is_transient(&self) -> bool {
        self.kind == TopologyErrorKind::Unavailable
    }
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JetStream {} {}: {}", self.what, self.name, self.detail)
    }
}

impl std::error::Error for TopologyError {}

fn err(kind: TopologyErrorKind, what: &'static str, name: &str, detail: impl fmt::Display) -> TopologyError {
    TopologyError { kind, what, name: name.to_string(), detail: detail.to_string() }
}

/// An error the server answered (or did not answer) with, classified.
fn failed(what: &'static str, name: &str, e: impl fmt::Display) -> TopologyError {
    let kind = if is_transient(&e) { TopologyErrorKind::Unavailable } else { TopologyErrorKind::Other };
    err(kind, what, name, e)
}

const MISSING_HINT: &str = "not found: the topology is created by `coordinator setup` (an admin) or, on a \
server without permissions, by the first `coordinator submit`";

/// Whether to create what is missing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Bind,
    Create,
}

/// Finds every object; creates nothing (workers). See the module docs.
pub async fn bind(js: &Context, cfg: &TopologyConfig) -> Result<Topology, TopologyError> {
    open(js, cfg, Mode::Bind).await
}

/// Finds or creates every object (the coordinator). See the module docs.
pub async fn ensure(js: &Context, cfg: &TopologyConfig) -> Result<Topology, TopologyError> {
    open(js, cfg, Mode::Create).await
}

async fn open(js: &Context, cfg: &TopologyConfig, mode: Mode) -> Result<Topology, TopologyError> {
    let mut streams = Vec::new();
    for config in [jobs_stream_config(cfg), results_stream_config(cfg), dlq_stream_config(cfg)] {
        let (s, created) = stream(js, config, mode).await?;
        if !created {
            warn_replicas("stream", &s.cached_info().config.name, s.cached_info().config.num_replicas, cfg.replicas);
        }
        streams.push(s);
    }
    let [jobs, results, dlq]: [Stream; 3] = streams.try_into().expect("three streams");
    let (sweeps, created) = sweeps_bucket(js, cfg, mode).await?;
    if !created {
        let status = sweeps.status().await.map_err(|e| failed("KV bucket", names::SWEEPS_BUCKET, e))?;
        warn_replicas("KV bucket", names::SWEEPS_BUCKET, status.info.config.num_replicas, cfg.replicas);
    }
    Ok(Topology { jobs, results, dlq, sweeps })
}

/// Finds (or in `Create` mode creates) a stream and checks it; true when it was created.
pub(crate) async fn stream(js: &Context, config: stream::Config, mode: Mode) -> Result<(Stream, bool), TopologyError> {
    let name = config.name.clone();
    let found = match js.get_stream(&name).await {
        Ok(s) => Some(s),
        Err(e) => match e.kind() {
            GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND => None,
            _ => return Err(failed("stream", &name, e)),
        },
    };
    let (stream, created) = match (found, mode) {
        (Some(s), _) => (s, false),
        (None, Mode::Bind) => return Err(err(TopologyErrorKind::Missing, "stream", &name, MISSING_HINT)),
        (None, Mode::Create) => match js.create_stream(config.clone()).await {
            Ok(s) => (s, true),
            // Lost a creation race: read back the winner.
            Err(first) => match js.get_stream(&name).await {
                Ok(s) => (s, false),
                Err(_) => return Err(cannot_create("stream", &name, config.num_replicas, first)),
            },
        },
    };
    let have = &stream.cached_info().config;
    if have.retention != config.retention {
        return Err(err(
            TopologyErrorKind::Mismatch,
            "stream",
            &name,
            format!("has retention {:?}, expected {:?}", have.retention, config.retention),
        ));
    }
    if have.subjects != config.subjects {
        return Err(err(
            TopologyErrorKind::Mismatch,
            "stream",
            &name,
            format!("has subjects {:?}, expected {:?}", have.subjects, config.subjects),
        ));
    }
    Ok((stream, created))
}

/// A sweep's consumer could not be created: permissions, or a consumer on the work queue
/// whose filter overlaps (the fleet-wide consumer of earlier versions, which `coordinator
/// setup` removes).
fn cannot_create_consumer(name: &str, replicas: usize, e: impl fmt::Display) -> TopologyError {
    let mut error = cannot_create("consumer", name, replicas, e);
    error.detail.push_str(
        ". A server error about overlapping filters means another consumer on SIMFLEET_JOBS takes every job \
         (simfleet-workers, of earlier versions): `coordinator setup` removes it",
    );
    error
}

fn cannot_create(what: &'static str, name: &str, replicas: usize, e: impl fmt::Display) -> TopologyError {
    err(
        TopologyErrorKind::CannotCreate,
        what,
        name,
        format!(
            "does not exist, and creating it with {replicas} replica(s) failed: {e}. If the log shows a \
             permissions violation, these credentials may not create the topology: an admin creates it with \
             `coordinator setup`"
        ),
    )
}

/// Says, once per start, that an object is used with other replicas than configured.
pub(crate) fn warn_replicas(what: &'static str, name: &str, have: usize, want: usize) {
    // The server reports 0 for "the default", which is 1.
    let have = have.max(1);
    if have != want {
        tracing::warn!(
            object = format!("{what} {name}"),
            replicas = have,
            stream_replicas = want,
            "JetStream {what} {name} has {have} replica(s) but stream_replicas = {want}: using it as it is. \
             To change it, an admin runs `coordinator setup` with stream_replicas = {want}"
        );
    }
}

/// Who is asking for a sweep's consumer, which decides whose limits win.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitsOwner {
    /// A worker: its configuration is the deployment's, so it changes the server's limits
    /// (and logs it).
    Worker,
    /// A coordinator command: it creates the consumer with its limits but never moves those
    /// of an existing one (it warns), so a command run with other settings never moves the
    /// fleet's.
    Coordinator,
}

/// Finds or creates the consumer of `sweep`'s jobs on `jobs` and checks its filter and ack
/// policy; true when it was created. Both roles may create it (a coordinator before it
/// publishes, a worker that finds jobs without one); the loser of a creation race reads back
/// the winner. Limits that differ from `cfg` are handled as `owner` says.
pub async fn sweep_consumer(
    jobs: &Stream,
    cfg: &TopologyConfig,
    sweep: &str,
    owner: LimitsOwner,
) -> Result<(PullConsumer, bool), TopologyError> {
    use async_nats::jetstream::context::ConsumerInfoErrorKind;
    let name = &names::sweep_consumer_name(sweep);
    let config = sweep_consumer_config(cfg, sweep);
    let (mut consumer, created): (PullConsumer, bool) = match jobs.consumer_info(name).await {
        Ok(_) => (jobs.get_consumer(name).await.map_err(|e| failed("consumer", name, e))?, false),
        Err(e) if e.kind() == ConsumerInfoErrorKind::NotFound => match jobs.create_consumer(config.clone()).await {
            Ok(c) => (c, true),
            Err(first) => match jobs.get_consumer(name).await {
                Ok(c) => (c, false),
                Err(_) => return Err(cannot_create_consumer(name, cfg.replicas, first)),
            },
        },
        Err(e) => return Err(failed("consumer", name, e)),
    };
    let info = consumer.info().await.map_err(|e| failed("consumer", name, e))?;
    let have = info.config.clone();
    if have.filter_subject != config.filter_subject || have.ack_policy != AckPolicy::Explicit {
        return Err(err(
            TopologyErrorKind::Mismatch,
            "consumer",
            name,
            format!(
                "has filter {:?} and ack policy {:?}, expected {:?} and explicit",
                have.filter_subject, have.ack_policy, config.filter_subject
            ),
        ));
    }
    let limits = |c: &consumer::Config| (c.ack_wait, c.max_deliver, c.max_ack_pending);
    let want = (config.ack_wait, config.max_deliver, config.max_ack_pending);
    if limits(&have) == want {
        return Ok((consumer, created));
    }
    let (from, to) = (Limits(limits(&have)), Limits(want));
    if owner == LimitsOwner::Coordinator {
        tracing::warn!(
            consumer = name.as_str(),
            server = %from,
            configured = %to,
            "the sweep's consumer exists with other limits than configured; keeping the server's (the workers \
             set them: a worker configured otherwise changes them)"
        );
        return Ok((consumer, created));
    }
    // Only the limits change: everything else is the server's config as it stands.
    let update = consumer::Config {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
        max_ack_pending: config.max_ack_pending,
        ..have
    };
    match jobs.update_consumer(update).await {
        Ok(_) => {
            tracing::info!(
                from = %from,
                to = %to,
                "changed the limits of the sweep's consumer {name} to this worker's configuration (every worker \
                 of a fleet should be configured alike)"
            );
            consumer = jobs.get_consumer(name).await.map_err(|e| failed("consumer", name, e))?;
        }
        Err(e) if is_transient(&e) => return Err(failed("consumer", name, e)),
        Err(e) => tracing::warn!(
            error = %e,
            server = %from,
            configured = %to,
            "the sweep's consumer {name} has other limits than configured and changing them failed (do these \
             credentials allow $JS.API.CONSUMER.CREATE.SIMFLEET_JOBS.*.simfleet.jobs.*.*?); using the server's"
        ),
    }
    Ok((consumer, created))
}

/// A consumer's limits, as logged.
struct Limits((std::time::Duration, i64, i64));

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ack_wait, max_deliver, max_ack_pending) = self.0;
        write!(f, "ack_wait_seconds={} max_deliver={max_deliver} max_ack_pending={max_ack_pending}", ack_wait.as_secs())
    }
}

/// Finds (or creates) the `simfleet_sweeps` KV bucket; true when it was created.
pub(crate) async fn sweeps_bucket(
    js: &Context,
    cfg: &TopologyConfig,
    mode: Mode,
) -> Result<(kv::Store, bool), TopologyError> {
    let bucket = names::SWEEPS_BUCKET;
    // The bucket is a stream: find it as one, to tell "missing" from "unavailable".
    let probe = stream::Config { name: sweeps_stream_name(), ..Default::default() };
    match stream_exists(js, &probe.name).await {
        Ok(true) => {
            let store = js.get_key_value(bucket).await.map_err(|e| failed("KV bucket", bucket, e))?;
            Ok((store, false))
        }
        Ok(false) if mode == Mode::Bind => Err(err(TopologyErrorKind::Missing, "KV bucket", bucket, MISSING_HINT)),
        Ok(false) => match js.create_key_value(sweeps_bucket_config(cfg)).await {
            Ok(store) => Ok((store, true)),
            Err(first) => match js.get_key_value(bucket).await {
                Ok(store) => Ok((store, false)),
                Err(_) => Err(cannot_create("KV bucket", bucket, cfg.replicas, first)),
            },
        },
        Err(e) => Err(failed("KV bucket", bucket, e)),
    }
}

/// Whether a stream exists (`Err` when JetStream cannot say).
async fn stream_exists(js: &Context, name: &str) -> Result<bool, async_nats::jetstream::context::GetStreamError> {
    match js.get_stream(name).await {
        Ok(_) => Ok(true),
        Err(e) => match e.kind() {
            GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND => Ok(false),
            _ => Err(e),
        },
    }
}
