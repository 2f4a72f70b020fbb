//! The command line of `worker`: the last and strongest layer of the configuration
//! ([`crate::settings`] merges it over defaults, `NATS_URL`, the file and the environment).

use std::path::PathBuf;

use clap::Parser;

use crate::settings::LogFormat;

/// simfleet worker: pulls episode jobs from NATS JetStream, plays them, publishes results.
///
/// Configuration is layered, later layers winning: built-in defaults, the NATS_URL
/// environment variable, the --config file, SIMFLEET_WORKER__<KEY> environment variables
/// (e.g. SIMFLEET_WORKER__CONCURRENCY=8, SIMFLEET_WORKER__AUTH__PASSWORD_FILE=/run/secrets/p),
/// then these flags. Keys are snake_case with unit suffixes: nats_url, concurrency,
/// ack_wait_seconds, max_deliver, max_ack_pending, stream_replicas, fetch_batch, prefetch,
/// runtime_threads, drain_timeout_seconds, metrics_listen, log_format, worker_id,
/// llm_concurrency, llm_ca_file, llm_fleet_workers, [[llm_prices]] (model, prompt_per_1k,
/// completion_per_1k), [auth] (user, password, password_file, token, token_file, nkey_seed,
/// nkey_seed_file, creds_file, tls_ca_file, tls_cert_file, tls_key_file) and [buckets.<game>]
/// (team_reward, length, agent_reward).
///
/// Workers never create the JetStream topology: an admin runs `coordinator setup` (or, on a
/// server without permissions, the first `coordinator submit` creates it). A worker started
/// before it, or while JetStream cannot answer (a lost cluster quorum), waits and says so.
///
/// Jobs with `llm` seats are played on I/O threads of their own, llm_concurrency episodes at
/// once, outside the CPU concurrency. Model endpoints are reached over HTTP or HTTPS (the
/// system's roots plus llm_ca_file), through HTTPS_PROXY / HTTP_PROXY / ALL_PROXY unless
/// NO_PROXY names the host; a seat's API key is read from the environment variable its
/// `api_key_env` names (default OPENAI_API_KEY).
///
/// Serves /metrics, /healthz and /readyz on --metrics-listen. SIGTERM or ctrl-c stops
/// pulling, lets jobs in flight finish for drain_timeout_seconds, returns the rest to the
/// queue and exits 0.
#[derive(Debug, Default, Parser)]
#[command(name = "worker", version, about, long_about)]
pub struct Cli {
    /// A TOML config file (keys as listed above).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// NATS server URL, or a cluster's servers comma-separated (nats://a:4222,nats://b:4222)
    /// [default: $NATS_URL, else nats://127.0.0.1:4222].
    #[arg(long, value_name = "URL")]
    pub nats_url: Option<String>,

    /// Where to serve /metrics, /healthz and /readyz [default: 127.0.0.1:9464]; port 0 picks a
    /// free port (logged at startup).
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<String>,

    /// Log format: `text` for people, `json` for log pipelines [default: text].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,

    /// Jobs played at once [default: the number of available cores].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,

    /// Jobs queued on this worker beyond those playing, so a freed slot starts the next job
    /// without waiting for a pull [default: the concurrency]. Use 0 for jobs that run for
    /// minutes.
    #[arg(long, value_name = "N")]
    pub prefetch: Option<usize>,

    /// Episodes with `llm` seats played at once, each waiting on one model call; they do not
    /// count against --concurrency [default: 64]. Choose about the calls per second wanted
    /// times the model's latency in seconds.
    #[arg(long, value_name = "N")]
    pub llm_concurrency: Option<usize>,
}
