//! `worker`: the thin binary around the `worker` library. It loads the configuration, starts
//! logging and the metrics recorder, connects, serves `/metrics`, and runs [`worker::run`]
//! until SIGTERM or ctrl-c. Exit codes: 0 after a clean drain, 1 when the worker cannot start
//! or run (e.g. wrong credentials), 2 for a bad configuration.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use worker::{Cli, Settings, WorkerError};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let env: HashMap<String, String> = std::env::vars().collect();
    let settings = match Settings::load(&cli, &env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("worker: {e}");
            return ExitCode::from(2);
        }
    };
    worker::telemetry::init_logging(settings.log_format);
    // Safe to log: `Settings`' Debug redacts the URL's password and every credential.
    tracing::info!(settings = ?settings, "configuration loaded");
    // `runtime_threads` threads (one, below 17 play threads): they only pull, publish and
    // acknowledge, and one thread does that for less CPU than two waking each other.
    let runtime =
        match tokio::runtime::Builder::new_multi_thread().worker_threads(settings.runtime_threads).enable_all().build()
        {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("worker: cannot start the async runtime: {e}");
                return ExitCode::FAILURE;
            }
        };
    // Spawned, not run on `main`'s thread: the pull loop then wakes the job tasks on the
    // runtime's own threads, without a cross-thread wake-up per job.
    let outcome = runtime.block_on(async {
        tokio::spawn(serve(settings))
            .await
            .unwrap_or_else(|e| Err(anyhow::anyhow!("the worker's main task failed: {e}")))
    });
    // Jobs given back at shutdown may still be playing on the play or I/O threads: those are
    // threads of our own (worker/src/player.rs, llm_pool.rs), which returning from `main` ends,
    // and their results are no longer wanted. The runtime's own blocking pool holds only the
    // NATS client's short tasks (a host name lookup, loading TLS files), which a stopping worker
    // need not wait for either: dropping the runtime normally would.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "worker failed");
            eprintln!("worker: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    let metrics = worker::telemetry::install(&settings.buckets)?;
    let client = worker::connect(&settings).await?;
    let listener = tokio::net::TcpListener::bind(settings.metrics_listen)
        .await
        .map_err(|source| WorkerError::Listen { addr: settings.metrics_listen, source })?;
    let addr = listener.local_addr().context("metrics listener address")?;
    tracing::info!(metrics_addr = %addr, "serving /metrics, /healthz and /readyz");
    let (stop_http, http_stopped) = tokio::sync::oneshot::channel::<()>();
    let http = tokio::spawn(worker::server::serve(listener, client.clone(), Some(metrics), async {
        let _ = http_stopped.await;
    }));
    let result = worker::run(client, settings, shutdown_signal()).await;
    let _ = stop_http.send(());
    let _ = http.await;
    result.map_err(Into::into)
}

/// Completes on SIGTERM (what Kubernetes sends) or ctrl-c.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM received"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("ctrl-c received"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only ctrl-c stops the worker");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
