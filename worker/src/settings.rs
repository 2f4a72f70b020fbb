//! The worker's configuration, loaded in two stages (ripgrep's `LowArgs` → `HiArgs`).
//!
//! Stage one, [`RawConfig`], is what the user wrote, merged by the `config` crate from (weakest
//! first) built-in defaults, `NATS_URL`, the `--config` TOML file, `SIMFLEET_WORKER__*`
//! environment variables and the command-line flags, and deserialised with
//! `deny_unknown_fields` so a typo is an error naming the key. Stage two, [`Settings`], holds
//! resolved values (`Duration`s, a `SocketAddr`, read secret files, checked buckets) and is what
//! [`crate::run`] takes. Tests build `Settings` directly from [`Settings::default`].

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use simfleet::nats::{Auth, AuthConfig, TopologyConfig};
pub use simfleet::nats::{ConfigError, DEFAULT_NATS_URL};

use crate::cli::Cli;
use crate::telemetry::{self, GameBuckets};
/// The metrics listener when nothing says otherwise (the container image sets `0.0.0.0:9464`).
pub const DEFAULT_METRICS_LISTEN: &str = "127.0.0.1:9464";
/// The environment prefix: `SIMFLEET_WORKER__CONCURRENCY`, `SIMFLEET_WORKER__AUTH__TOKEN`.
pub const ENV_PREFIX: &str = "SIMFLEET_WORKER";
/// Episodes with `llm` seats played at once when nothing says otherwise: each keeps one model
/// call in flight (64 calls in flight ≈ 250 calls/s against a 250 ms endpoint).
pub const DEFAULT_LLM_CONCURRENCY: usize = 64;

/// Log output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// Human-readable lines (coloured on a terminal).
    #[default]
    Text,
    /// One JSON object per line, for log pipelines.
    Json,
}

/// Stage one: the merged configuration as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    nats_url: String,
    worker_id: Option<String>,
    concurrency: Option<usize>,
    ack_wait_seconds: u64,
    max_deliver: i64,
    max_ack_pending: i64,
    stream_replicas: usize,
    fetch_batch: Option<usize>,
    prefetch: Option<usize>,
    runtime_threads: Option<usize>,
    drain_timeout_seconds: u64,
    metrics_listen: String,
    log_format: LogFormat,
    llm_concurrency: usize,
    llm_ca_file: Option<PathBuf>,
    llm_fleet_workers: u32,
    #[serde(default)]
    llm_prices: Vec<LlmPrice>,
    #[serde(default)]
    auth: AuthConfig,
    #[serde(default)]
    buckets: BTreeMap<String, GameBuckets>,
}

/// `[[llm_prices]]`: what 1000 tokens of a model cost, for the dashboards' cost estimate
/// (`simfleet_llm_token_price_dollars`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmPrice {
    /// The model name as the `llm` seats give it (`model=`).
    pub model: String,
    /// Dollars per 1000 prompt (input) tokens.
    pub prompt_per_1k: f64,
    /// Dollars per 1000 completion (output) tokens.
    pub completion_per_1k: f64,
}

/// Stage two: everything the worker needs, resolved and checked.
///
/// `Debug` shows `nats_url` with any password redacted and credentials as `***`, so settings
/// can be logged.
#[derive(Clone)]
pub struct Settings {
    /// NATS server URL(s), comma-separated.
    pub nats_url: String,
    /// This worker's id, stamped on results (`HOSTNAME`, i.e. the pod name, by default).
    pub worker_id: String,
    /// Jobs played at once; also the most jobs one pull asks for.
    pub concurrency: usize,
    /// The consumer's ack wait; in-progress acks go out every third of it.
    pub ack_wait: Duration,
    /// Deliveries of a job before the server gives up on it (and the DLQ captures it).
    pub max_deliver: i64,
    /// Fleet-wide cap of jobs delivered and not yet acknowledged.
    pub max_ack_pending: i64,
    /// Replicas the topology's streams and KV bucket should have (1 on one server, 3 on a
    /// three-server cluster). Workers never create the topology: they check it and warn.
    pub stream_replicas: usize,
    /// The most jobs asked for in one pull (never more than the free slots).
    pub fetch_batch: usize,
    /// Jobs held beyond the `concurrency` being played, so that a freed play slot starts the
    /// next job at once instead of after a pull's round trip. Queued jobs are kept alive with
    /// in-progress acks and given back at once on shutdown. 0 for sweeps of jobs that run for
    /// minutes, where a queued job would wait on this worker while another sits idle.
    pub prefetch: usize,
    /// Threads of the async runtime that pulls, publishes and acknowledges jobs (the play
    /// threads are others). One by default up to 16 play threads, one more per 16: a job's
    /// messaging costs the runtime about 0.1 ms of CPU, a few percent of the shortest default
    /// job, and one thread does it for less than two threads would, whose wake-ups of each
    /// other cost about a third more per job (BENCHMARKS.md, "Per-job overhead through the
    /// worker").
    pub runtime_threads: usize,
    /// How long SIGTERM waits for jobs in flight before returning them to the queue.
    pub drain_timeout: Duration,
    /// Where `/metrics`, `/healthz` and `/readyz` are served.
    pub metrics_listen: SocketAddr,
    /// Log format.
    pub log_format: LogFormat,
    /// Episodes with `llm` seats played at once, on I/O threads of their own: they wait on a
    /// model, not a core, so they do not count against `concurrency`. Also the connections kept
    /// open per model server.
    pub llm_concurrency: usize,
    /// A PEM file of CA certificates trusted for HTTPS model endpoints besides the system's
    /// roots (checked at load).
    pub llm_ca_file: Option<PathBuf>,
    /// How many workers share each endpoint's fleet-wide `rpm`/`tpm` limits: this worker
    /// enforces `1 / llm_fleet_workers` of them.
    pub llm_fleet_workers: u32,
    /// Prices per 1000 tokens by model, exported as a gauge for the cost panels.
    pub llm_prices: Vec<LlmPrice>,
    /// Credentials and TLS.
    pub auth: Auth,
    /// Histogram bucket overrides, by full metric name.
    pub buckets: BTreeMap<String, Vec<f64>>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("nats_url", &simfleet::nats::redact_url(&self.nats_url))
            .field("worker_id", &self.worker_id)
            .field("concurrency", &self.concurrency)
            .field("ack_wait", &self.ack_wait)
            .field("max_deliver", &self.max_deliver)
            .field("max_ack_pending", &self.max_ack_pending)
            .field("stream_replicas", &self.stream_replicas)
            .field("fetch_batch", &self.fetch_batch)
            .field("prefetch", &self.prefetch)
            .field("runtime_threads", &self.runtime_threads)
            .field("drain_timeout", &self.drain_timeout)
            .field("metrics_listen", &self.metrics_listen)
            .field("log_format", &self.log_format)
            .field("llm_concurrency", &self.llm_concurrency)
            .field("llm_ca_file", &self.llm_ca_file)
            .field("llm_fleet_workers", &self.llm_fleet_workers)
            .field("llm_prices", &self.llm_prices)
            .field("auth", &self.auth)
            .field("buckets", &self.buckets)
            .finish()
    }
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One runtime thread per 16 play threads, at least one ([`Settings::runtime_threads`]).
pub fn default_runtime_threads(concurrency: usize) -> usize {
    concurrency.div_ceil(16).max(1)
}

fn default_worker_id(env: &HashMap<String, String>) -> String {
    env.get("HOSTNAME").filter(|h| !h.is_empty()).cloned().unwrap_or_else(|| format!("worker-{}", std::process::id()))
}

impl Default for Settings {
    fn default() -> Settings {
        let cores = available_cores();
        Settings {
            nats_url: DEFAULT_NATS_URL.to_string(),
            worker_id: default_worker_id(&HashMap::new()),
            concurrency: cores,
            // The consumer's limits default to the topology's, which the coordinator also uses.
            ack_wait: TopologyConfig::default().ack_wait,
            max_deliver: TopologyConfig::default().max_deliver,
            max_ack_pending: TopologyConfig::default().max_ack_pending,
            stream_replicas: 1,
            fetch_batch: cores,
            prefetch: cores,
            runtime_threads: default_runtime_threads(cores),
            drain_timeout: Duration::from_secs(25),
            metrics_listen: DEFAULT_METRICS_LISTEN.parse().expect("a valid literal address"),
            log_format: LogFormat::Text,
            llm_concurrency: DEFAULT_LLM_CONCURRENCY,
            llm_ca_file: None,
            llm_fleet_workers: 1,
            llm_prices: Vec::new(),
            auth: Auth::default(),
            buckets: BTreeMap::new(),
        }
    }
}

impl Settings {
    /// Loads the layered configuration. `env` is the process environment (a parameter so that
    /// tests can pass their own).
    pub fn load(cli: &Cli, env: &HashMap<String, String>) -> Result<Settings, ConfigError> {
        let d = Settings::default();
        let nats_url = env.get("NATS_URL").cloned().unwrap_or_else(|| d.nats_url.clone());
        let mut builder = config::Config::builder()
            .set_default("nats_url", nats_url)?
            .set_default("ack_wait_seconds", d.ack_wait.as_secs())?
            .set_default("max_deliver", d.max_deliver)?
            .set_default("max_ack_pending", d.max_ack_pending)?
            .set_default("stream_replicas", d.stream_replicas as u64)?
            .set_default("drain_timeout_seconds", d.drain_timeout.as_secs())?
            .set_default("metrics_listen", DEFAULT_METRICS_LISTEN)?
            .set_default("log_format", "text")?
            .set_default("llm_concurrency", d.llm_concurrency as u64)?
            .set_default("llm_fleet_workers", u64::from(d.llm_fleet_workers))?;
        if let Some(file) = &cli.config {
            builder = builder.add_source(file_source(file)?);
        }
        let env_map: config::Map<String, String> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        builder = builder
            .add_source(
                config::Environment::with_prefix(ENV_PREFIX)
                    .prefix_separator("__")
                    .separator("__")
                    .source(Some(env_map)),
            )
            .set_override_option("nats_url", cli.nats_url.clone())?
            .set_override_option("metrics_listen", cli.metrics_listen.clone())?
            .set_override_option("concurrency", cli.concurrency.map(|c| c as u64))?
            .set_override_option("prefetch", cli.prefetch.map(|c| c as u64))?
            .set_override_option("llm_concurrency", cli.llm_concurrency.map(|c| c as u64))?
            .set_override_option(
                "log_format",
                cli.log_format.map(|f| if f == LogFormat::Json { "json" } else { "text" }),
            )?;
        let raw: RawConfig = builder.build()?.try_deserialize()?;
        raw.resolve(env)
    }
}

impl Settings {
    /// The topology this worker expects: its consumer limits and `stream_replicas`.
    pub fn topology_config(&self) -> TopologyConfig {
        TopologyConfig {
            ack_wait: self.ack_wait,
            max_deliver: self.max_deliver,
            max_ack_pending: self.max_ack_pending,
            replicas: self.stream_replicas,
            ..TopologyConfig::default()
        }
    }
}

fn file_source(path: &Path) -> Result<config::File<config::FileSourceFile, config::FileFormat>, ConfigError> {
    if !path.is_file() {
        return Err(ConfigError::new("--config", format!("{} is not a readable file", path.display())));
    }
    Ok(config::File::from(path).format(config::FileFormat::Toml).required(true))
}

fn positive<T: PartialOrd + Default + fmt::Display>(key: &str, value: T) -> Result<T, ConfigError> {
    if value > T::default() {
        Ok(value)
    } else {
        Err(ConfigError::new(key, format!("must be positive, got {value}")))
    }
}

impl RawConfig {
    fn resolve(self, env: &HashMap<String, String>) -> Result<Settings, ConfigError> {
        simfleet::nats::parse_servers(&self.nats_url)?;
        let concurrency = positive("concurrency", self.concurrency.unwrap_or_else(available_cores))?;
        let metrics_listen = self.metrics_listen.parse().map_err(|e| {
            ConfigError::new(
                "metrics_listen",
                format!("{:?} is not an address like 127.0.0.1:9464: {e}", self.metrics_listen),
            )
        })?;
        if let Some(path) = &self.llm_ca_file {
            simfleet::llm::http::roots::ca_file(path).map_err(|e| ConfigError::new("llm_ca_file", e.to_string()))?;
        }
        for (i, p) in self.llm_prices.iter().enumerate() {
            let ok = |v: f64| v.is_finite() && v >= 0.0;
            if p.model.is_empty() || !ok(p.prompt_per_1k) || !ok(p.completion_per_1k) {
                return Err(ConfigError::new(
                    format!("llm_prices[{i}]"),
                    "needs a model name and prices that are finite and not negative",
                ));
            }
        }
        let worker_id = self.worker_id.unwrap_or_else(|| default_worker_id(env));
        if worker_id.is_empty() {
            return Err(ConfigError::new("worker_id", "must not be empty"));
        }
        Ok(Settings {
            nats_url: self.nats_url,
            worker_id,
            concurrency,
            ack_wait: Duration::from_secs(positive("ack_wait_seconds", self.ack_wait_seconds)?),
            max_deliver: positive("max_deliver", self.max_deliver)?,
            max_ack_pending: positive("max_ack_pending", self.max_ack_pending)?,
            stream_replicas: simfleet::nats::check_replicas(self.stream_replicas)?,
            fetch_batch: positive("fetch_batch", self.fetch_batch.unwrap_or(concurrency))?,
            prefetch: self.prefetch.unwrap_or(concurrency),
            runtime_threads: positive(
                "runtime_threads",
                self.runtime_threads.unwrap_or_else(|| default_runtime_threads(concurrency)),
            )?,
            drain_timeout: Duration::from_secs(self.drain_timeout_seconds),
            metrics_listen,
            log_format: self.log_format,
            llm_concurrency: positive("llm_concurrency", self.llm_concurrency)?,
            llm_ca_file: self.llm_ca_file,
            llm_fleet_workers: positive("llm_fleet_workers", self.llm_fleet_workers)?,
            llm_prices: self.llm_prices,
            auth: self.auth.resolve()?,
            buckets: telemetry::resolve_bucket_overrides(&self.buckets)?,
        })
    }
}
