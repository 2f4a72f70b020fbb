//! Connecting to NATS with the configured credentials, and what `/healthz` and `/readyz` read.
//!
//! The first connect fails fast on a refusal (wrong credentials, TLS): retrying cannot fix it,
//! and a clear error with a non-zero exit is what an operator (or Kubernetes' restart backoff)
//! needs. Only an unreachable server is retried a few times, for a worker that starts just
//! before its server. After the first connect the client reconnects on its own, forever.

use std::time::Duration;

use async_nats::connection::State;
use async_nats::{Client, ConnectErrorKind, ConnectOptions, Event};

use crate::auth::{Auth, Credentials};
use crate::{redact_url, Settings, WorkerError};

/// Attempts of the first connect while the server is unreachable, with a doubling pause.
const FIRST_CONNECT_ATTEMPTS: u32 = 5;

/// Connects with the settings' URL, credentials and TLS.
pub async fn connect(settings: &Settings) -> Result<Client, WorkerError> {
    connect_with(&settings.nats_url, &settings.auth, &format!("simfleet-worker {}", settings.worker_id)).await
}

/// Connects to `nats_url` with `auth`, naming the connection `name` (the coordinator uses this
/// with its own settings).
pub async fn connect_with(nats_url: &str, auth: &Auth, name: &str) -> Result<Client, WorkerError> {
    let url = redact_url(nats_url);
    let mut pause = Duration::from_millis(500);
    let mut attempt = 1;
    loop {
        match options(auth, name).await?.connect(nats_url).await {
            Ok(client) => {
                tracing::info!(url, "connected to NATS");
                return Ok(client);
            }
            Err(e)
                if matches!(e.kind(), ConnectErrorKind::Io | ConnectErrorKind::TimedOut | ConnectErrorKind::Dns)
                    && attempt < FIRST_CONNECT_ATTEMPTS =>
            {
                tracing::warn!(url, error = %e, retry_in_ms = pause.as_millis() as u64, "NATS unreachable");
                tokio::time::sleep(pause).await;
                pause *= 2;
                attempt += 1;
            }
            Err(source) => return Err(WorkerError::Connect { url, source }),
        }
    }
}

async fn options(auth: &Auth, name: &str) -> Result<ConnectOptions, WorkerError> {
    let mut opts = match &auth.credentials {
        Credentials::None => ConnectOptions::new(),
        Credentials::UserPassword { user, password } => {
            ConnectOptions::with_user_and_password(user.clone(), password.expose().to_string())
        }
        Credentials::Token(t) => ConnectOptions::with_token(t.expose().to_string()),
        Credentials::NKey(seed) => ConnectOptions::with_nkey(seed.expose().to_string()),
        Credentials::CredsFile(path) => ConnectOptions::with_credentials_file(path).await.map_err(|source| {
            WorkerError::Credentials { key: "auth.creds_file", path: path.display().to_string(), source }
        })?,
    };
    if let Some(ca) = &auth.tls_ca_file {
        opts = opts.add_root_certificates(ca.clone()).require_tls(true);
    }
    Ok(opts.name(name).max_reconnects(None).event_callback(|event| async move {
        match event {
            Event::Connected => tracing::info!("NATS connection (re)established"),
            Event::Disconnected => tracing::warn!("NATS connection lost; reconnecting"),
            other => tracing::info!(event = %other, "NATS event"),
        }
    }))
}

/// Whether the client is connected right now (what `/healthz` and `/readyz` report).
pub fn is_connected(client: &Client) -> bool {
    client.connection_state() == State::Connected
}
