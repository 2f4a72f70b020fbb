//! The worker's HTTP listener: `/metrics` for Prometheus, `/healthz` and `/readyz` for
//! Kubernetes probes. Both probes reflect the NATS connection: a worker that cannot reach its
//! server can do no work, and while the client reconnects on its own a failing probe shows it.

use std::future::Future;
use std::time::Duration;

use async_nats::Client;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::net::TcpListener;

use simfleet::nats::is_connected;

/// How often histograms are compacted for rendering (the exporter leaves it to its caller).
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

#[derive(Clone)]
struct AppState {
    client: Client,
    metrics: Option<PrometheusHandle>,
}

/// The routes, for tests that want them without a socket.
fn router(client: Client, metrics: Option<PrometheusHandle>) -> Router {
    Router::new()
        .route("/metrics", get(render))
        .route("/healthz", get(probe))
        .route("/readyz", get(probe))
        .with_state(AppState { client, metrics })
}

async fn render(State(state): State<AppState>) -> (StatusCode, [(&'static str, &'static str); 1], String) {
    let body = state.metrics.as_ref().map(crate::telemetry::render).unwrap_or_default();
    (StatusCode::OK, [("content-type", "text/plain; version=0.0.4")], body)
}

async fn probe(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if is_connected(&state.client) {
        (StatusCode::OK, "ok\n")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "nats disconnected\n")
    }
}

/// Serves the routes on `listener` until `shutdown` completes. `metrics` is `None` when no
/// recorder is installed (then `/metrics` is empty).
pub async fn serve(
    listener: TcpListener,
    client: Client,
    metrics: Option<PrometheusHandle>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let upkeep = metrics.clone().map(|handle| {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(UPKEEP_INTERVAL);
            loop {
                tick.tick().await;
                handle.run_upkeep();
            }
        })
    });
    let served = axum::serve(listener, router(client, metrics)).with_graceful_shutdown(shutdown).await;
    if let Some(task) = upkeep {
        task.abort();
    }
    served
}
