//! The simfleet worker: pulls episode jobs from the sweeps' JetStream consumers (priorities and
//! fair share between sweeps: `schedule`), plays them on play
//! threads of its own (jobs with `llm` seats on I/O threads), publishes MessagePack results and
//! keeps Prometheus metrics. `main.rs` only parses the config, starts logging and metrics, connects, and calls
//! [`run`] with a signal future; tests call the same [`run`].
//!
//! # Layout
//!
//! - [`settings`]: layered configuration → [`Settings`]; [`cli`]: the flags.
//! - NATS itself (connection, credentials and TLS, the topology) is `simfleet::nats`, shared
//!   with the coordinator; [`connect`] names this worker's connection.
//! - `readiness`: waiting for the topology at start; `intake`: the pull loop, slots and
//!   shutdown; `schedule`: which sweep gets the next free slot; `job`: one job from delivery to ack; `modules`: a job's `wasm:` modules fetched and compiled before it is queued; `player`: the play threads; `llm_pool`: the
//!   I/O threads for jobs with `llm` seats; `cancellation`: which sweeps are cancelled;
//!   `reservation`: a model job's calls reserved against its sweep's `llm_max_calls`.
//! - [`telemetry`]: metric names, buckets, the recorder, logging; `job_metrics`: recording per
//!   job; [`histograms`]: the per-episode histograms as exact bucket counts; [`llm_metrics`]:
//!   counting model calls as they happen.
//! - [`server`]: `/metrics`, `/healthz`, `/readyz`.
//! - `free_play` (cargo feature `bench-free-play`, off in every shipped build): the bench-only
//!   mode of `scripts/bench-scale` (`SIMFLEET_BENCH_FREE_PLAY=1`).
//! - [`WorkerError`]: what stops the worker.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let settings = worker::Settings { concurrency: 2, ..worker::Settings::default() };
//! let client = worker::connect(&settings).await?;
//! worker::run(client, settings, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::sync::Arc;

use async_nats::jetstream;
use tokio::sync::Semaphore;

mod cancellation;
pub mod cli;
mod error;
#[cfg(feature = "bench-free-play")]
mod free_play;
pub mod histograms;
mod intake;
mod job;
pub mod job_metrics;
mod large_result;
pub mod llm_metrics;
mod llm_pool;
mod modules;
mod player;
mod readiness;
mod reservation;
mod schedule;
pub mod server;
pub mod settings;
pub mod telemetry;

pub use cli::Cli;
pub use error::WorkerError;
pub use player::JobSink;
pub use settings::{ConfigError, LogFormat, Settings};

/// How long a job whose result could not be published waits before it is redelivered: long
/// enough for a server restart or leader election, short next to the ack wait.
const PUBLISH_RETRY_DELAY: std::time::Duration = std::time::Duration::from_secs(2);

/// Connects to the servers of `settings.nats_url` with its credentials and TLS, naming the
/// connection after the worker.
pub async fn connect(settings: &Settings) -> Result<async_nats::Client, WorkerError> {
    let name = format!("simfleet-worker {}", settings.worker_id);
    Ok(simfleet::nats::connect(&settings.nats_url, &settings.auth, &name).await?)
}

/// Runs the worker until `shutdown` completes, then drains: no more pulls, jobs in flight get
/// `settings.drain_timeout` to finish, the rest go back to the queue. Returns `Ok` after a
/// clean drain (or a shutdown while it still waited for the topology); errors only when the
/// topology exists but cannot serve (see `simfleet::nats::topology`).
pub async fn run(
    client: async_nats::Client,
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) -> Result<(), WorkerError> {
    tokio::pin!(shutdown);
    let js = jetstream::new(client);
    let topology_config = settings.topology_config();
    let Some(topology) = readiness::bind(&js, &topology_config, shutdown.as_mut()).await? else {
        tracing::info!("stopped before the topology was there");
        return Ok(());
    };
    // Workers set the sweeps' consumers' limits to their own configuration (`intake`), so the
    // ack wait is this worker's.
    let ack_wait = settings.ack_wait;
    let jobs = job_context(&settings, &js, topology.sweeps.clone(), ack_wait)?;
    tracing::info!(
        worker_id = settings.worker_id,
        concurrency = settings.concurrency,
        llm_concurrency = settings.llm_concurrency,
        prefetch = settings.prefetch,
        ack_wait_seconds = ack_wait.as_secs(),
        "worker started"
    );
    let intake = intake::Intake {
        js,
        topology: topology_config,
        stream: Some(topology.jobs),
        schedule: schedule::Schedule::default(),
        refreshed: None,
        busy_at: tokio::time::Instant::now(),
        jobs: Arc::new(jobs),
        // Jobs held from delivery until answered: playing, queued and publishing.
        slots: Arc::new(Semaphore::new(2 * settings.concurrency + settings.prefetch)),
        fetch_batch: settings.fetch_batch.max(1),
        drain_timeout: settings.drain_timeout,
    };
    serve_until(intake, shutdown, settings.drain_timeout + SHUTDOWN_MARGIN).await;
    Ok(())
}

/// What every job task shares: the play threads (and each game's metered model transport),
/// the metrics, the sweeps' states, and the in-progress ack period of `ack_wait`.
fn job_context(
    settings: &Settings,
    js: &jetstream::Context,
    sweeps: async_nats::jetstream::kv::Store,
    ack_wait: std::time::Duration,
) -> Result<job::JobContext, WorkerError> {
    telemetry::register_worker(settings.concurrency, settings.llm_concurrency, &settings.llm_prices);
    let http = simfleet::llm::http::shared(&llm_options(settings)).map_err(WorkerError::LlmTransport)?;
    let env = simfleet::RunEnv { chat: Some(Arc::clone(&http)), worker: settings.worker_id.clone(), agents: None };
    let llm_metrics = Arc::new(llm_metrics::LlmMetrics::new());
    // Each game's llm seats call through a transport that counts their calls by game.
    let llm_envs = simfleet::GameKind::ALL
        .into_iter()
        .map(|game| {
            let metered =
                llm_metrics::MeteredTransport::new(Arc::clone(&http), game.as_str(), Arc::clone(&llm_metrics));
            (game, simfleet::RunEnv { chat: Some(Arc::new(metered)), worker: settings.worker_id.clone(), agents: None })
        })
        .collect();
    let metrics = Arc::new(job_metrics::JobMetrics::with_llm(llm_metrics));
    let stopped = cancellation::StoppedSweeps::default();
    let play = player::PlayContext {
        env: env.clone(),
        stopped: stopped.clone(),
        metrics: Arc::clone(&metrics),
        #[cfg(feature = "bench-free-play")]
        free_play: free_play::FreePlay::from_env(),
    };
    #[cfg(feature = "bench-free-play")]
    if play.free_play.is_some() {
        tracing::warn!(
            "{}=1: bench-only free play; results repeat each cell's first episodes and are not the episodes' own",
            free_play::FREE_PLAY_ENV
        );
    }
    let players = player::Players::start(settings.concurrency, settings.llm_concurrency, Arc::new(play), llm_envs)
        .map_err(WorkerError::Threads)?;
    Ok(job::JobContext {
        js: js.clone(),
        env,
        metrics,
        sweeps: cancellation::SweepStates::new(sweeps, cancellation::SWEEP_STATE_TTL, stopped),
        players,
        progress_every: (ack_wait / 3).max(std::time::Duration::from_millis(100)),
        nak_delay: PUBLISH_RETRY_DELAY,
    })
}

/// Runs `intake` until `shutdown`, then lets it drain for at most `drain_bound`.
async fn serve_until(
    intake: intake::Intake,
    shutdown: std::pin::Pin<&mut impl Future<Output = ()>>,
    drain_bound: std::time::Duration,
) {
    let mut shutdown = shutdown;
    // Whatever the servers do (gone, paused, partitioned away), the worker stops within its
    // drain timeout and a second of a shutdown: a NAK or flush that cannot reach a server would
    // otherwise wait for it forever. What is not acknowledged by then comes back to the queue
    // after its ack wait.
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    let running = intake.run(async move {
        let _ = stop_rx.wait_for(|stop| *stop).await;
    });
    tokio::pin!(running);
    tokio::select! {
        () = &mut running => return,
        () = shutdown.as_mut() => {
            let _ = stop_tx.send(true);
        }
    }
    if tokio::time::timeout(drain_bound, running).await.is_err() {
        tracing::warn!(
            waited_seconds = drain_bound.as_secs_f64(),
            "stopping without a clean drain: the servers did not answer; unacknowledged jobs return after their ack wait"
        );
    }
}

/// How long past its drain timeout a stopping worker waits for the servers at most.
const SHUTDOWN_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// How the worker reaches model endpoints: its CA file, the environment's proxies, its share of
/// the endpoints' limits, and a connection per episode in flight.
fn llm_options(settings: &Settings) -> simfleet::llm::http::HttpOptions {
    simfleet::llm::http::HttpOptions {
        ca_file: settings.llm_ca_file.clone(),
        proxies: simfleet::llm::http::Proxies::from_env(),
        fleet_processes: settings.llm_fleet_workers,
        max_idle_per_host: settings.llm_concurrency,
    }
}
