//! The coordinator's metrics while `watch` runs: `simfleet_sweep_jobs{sweep, state}` with state
//! `total`, `done`, `failed` and `pending`, and the counters of what its audit recovered
//! (`simfleet_sweep_jobs_replayed_total`, `simfleet_sweep_results_reread_total`), served on
//! `--metrics-listen` at `/metrics`.
//! Labels stay bounded: one sweep id per watch, four states.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// The gauge's name (docs/metrics.md).
pub const SWEEP_JOBS: &str = "simfleet_sweep_jobs";

/// Jobs `watch` published again because the servers lost them (no result, no job message).
pub const JOBS_REPLAYED: &str = "simfleet_sweep_jobs_replayed_total";
/// Results `watch` read again from the results stream because its file no longer held them.
pub const RESULTS_REREAD: &str = "simfleet_sweep_results_reread_total";

/// How long a finished `watch` waits for Prometheus to scrape its final counts.
pub const FINAL_SCRAPE_TIMEOUT: Duration = Duration::from_secs(15);

/// `/metrics` requests served so far.
static SCRAPES: AtomicU64 = AtomicU64::new(0);

/// Registers the `# HELP` text of every metric the coordinator serves with the current recorder.
pub fn describe() {
    metrics::describe_gauge!(SWEEP_JOBS, "Jobs of the watched sweep by state: total, done, failed, pending.");
    metrics::describe_counter!(
        JOBS_REPLAYED,
        "Jobs of the watched sweep published again by watch: the servers had lost both the job and its result."
    );
    metrics::describe_counter!(
        RESULTS_REREAD,
        "Results of the watched sweep read again from the results stream: acknowledged earlier, missing from the file."
    );
}

/// Installs the Prometheus recorder and serves `/metrics` on `addr` in a background task.
/// Returns the bound address (port 0 picks one).
pub async fn serve(addr: SocketAddr) -> anyhow::Result<SocketAddr> {
    let handle: PrometheusHandle = PrometheusBuilder::new().install_recorder()?;
    describe();
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot serve metrics on {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    let app = axum::Router::new()
        .route(
            "/metrics",
            get(move || {
                SCRAPES.fetch_add(1, Ordering::SeqCst);
                std::future::ready(handle.render())
            }),
        )
        .route("/healthz", get(|| std::future::ready("ok")));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!(error = %e, "the metrics listener stopped");
        }
    });
    Ok(bound)
}

/// Sets the sweep's four gauges and shows its recovery counters (a no-op without an installed
/// recorder).
pub fn record_progress(sweep: &str, total: u64, done: u64, failed: u64) {
    let pending = total.saturating_sub(done + failed);
    for (state, value) in [("total", total), ("done", done), ("failed", failed), ("pending", pending)] {
        metrics::gauge!(SWEEP_JOBS, "sweep" => sweep.to_string(), "state" => state).set(value as f64);
    }
    // The recovery counters are served from the start, at 0 until `watch` recovers something.
    for name in [JOBS_REPLAYED, RESULTS_REREAD] {
        metrics::counter!(name, "sweep" => sweep.to_string()).increment(0);
    }
}

/// Counts a job of `sweep` published again.
pub fn count_replayed(sweep: &str) {
    metrics::counter!(JOBS_REPLAYED, "sweep" => sweep.to_string()).increment(1);
}

/// Counts a result of `sweep` read again.
pub fn count_reread(sweep: &str) {
    metrics::counter!(RESULTS_REREAD, "sweep" => sweep.to_string()).increment(1);
}

/// Waits until `/metrics` has been scraped once more (so the final counts reach Prometheus
/// before the process exits), at most `timeout`. Returns whether a scrape came.
pub async fn await_next_scrape(timeout: Duration) -> bool {
    let seen = SCRAPES.load(Ordering::SeqCst);
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if SCRAPES.load(Ordering::SeqCst) > seen {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
