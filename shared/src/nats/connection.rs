//! Connecting to NATS with the configured servers, credentials and TLS, and what the
//! connection says in the log afterwards.
//!
//! The first connect fails fast on a refusal (wrong credentials, TLS): retrying cannot fix it,
//! and a clear error with a non-zero exit is what an operator (or Kubernetes' restart backoff)
//! needs. Only unreachable servers are retried a few times, for a client that starts just
//! before its servers. After the first connect the client reconnects on its own, forever, to
//! any server of the list or of the cluster.
//!
//! A server that stops answering (paused, frozen, its host gone without a reset) is noticed by
//! the client's pings: one every [`PING_INTERVAL`], and after three unanswered the client
//! reconnects elsewhere, about 15 s (async-nats' default, a ping a minute, took about two
//! minutes). A server cut off from the rest of its cluster still answers pings: `watchdog`
//! moves the client off it when its JetStream stops answering.
//!
//! The server answers an operation the credentials may not do (a publish or a JetStream API
//! request outside the user's permissions) only with an asynchronous `-ERR`; the operation
//! itself just times out. So every such refusal is logged here, at `warn`, with the subject the
//! server refused: the line that tells a person which permission is missing.

use std::time::Duration;

use async_nats::connection::State;
use async_nats::{Client, ConnectErrorKind, ConnectOptions, Event, ServerError};

use super::auth::{Auth, Credentials};
use super::{parse_servers, redact_url, ConfigError};

/// How often the client pings its server when the connection is quiet.
pub const PING_INTERVAL: Duration = Duration::from_secs(5);

/// Attempts of the first connect while every server is unreachable, with a doubling pause.
const FIRST_CONNECT_ATTEMPTS: u32 = 5;

/// Why a client could not connect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The servers refused us or are unreachable (wrong credentials, TLS, DNS, …).
    #[error("cannot connect to NATS at {url}: {error}{hint}")]
    Connect {
        /// The server list, with any password redacted.
        url: String,
        /// The client's error (in the message, not a separate source: printing the chain
        /// would say it twice).
        error: async_nats::ConnectError,
        /// What to check, when the error suggests it (starts with "; ").
        hint: String,
    },
    /// `nats_url` is not a server list.
    #[error(transparent)]
    Servers(#[from] ConfigError),
    /// A credentials file named in the config cannot be used.
    #[error("cannot use {key} = {path}: {source}")]
    Credentials {
        /// The config key (e.g. `auth.creds_file`).
        key: &'static str,
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Connects to the servers of `nats_url` (comma-separated) with `auth`, naming the connection
/// `name` (it appears in the servers' connection lists and in every log line of this module).
pub async fn connect(nats_url: &str, auth: &Auth, name: &str) -> Result<Client, ConnectError> {
    let servers = parse_servers(nats_url)?;
    let url = redact_url(nats_url);
    let mut pause = Duration::from_millis(500);
    let mut attempt = 1;
    loop {
        match options(auth, name).await?.connect(servers.as_slice()).await {
            Ok(client) => {
                tracing::info!(url, connection = name, "connected to NATS");
                super::watchdog::spawn(&client, name, servers.len());
                return Ok(client);
            }
            Err(e)
                if matches!(e.kind(), ConnectErrorKind::Io | ConnectErrorKind::TimedOut | ConnectErrorKind::Dns)
                    && attempt < FIRST_CONNECT_ATTEMPTS
                    && !is_tls_failure(&e) =>
            {
                tracing::warn!(url, error = %e, retry_in_ms = pause.as_millis() as u64, "NATS unreachable");
                tokio::time::sleep(pause).await;
                pause *= 2;
                attempt += 1;
            }
            Err(error) => {
                let hint = hint(&error, auth);
                return Err(ConnectError::Connect { url, error, hint });
            }
        }
    }
}

/// A handshake the server's certificate failed (the client reports it as an I/O error).
fn is_tls_failure(e: &async_nats::ConnectError) -> bool {
    let text = e.to_string().to_lowercase();
    e.kind() == ConnectErrorKind::Tls || text.contains("certificate") || text.contains("tls")
}

/// What to check for the common refusals, naming the config keys involved.
fn hint(e: &async_nats::ConnectError, auth: &Auth) -> String {
    if e.kind() == ConnectErrorKind::AuthorizationViolation {
        return "; check the credentials (the auth.* keys)".to_string();
    }
    if !is_tls_failure(e) {
        return String::new();
    }
    // rustls names its failures in CamelCase ("UnknownIssuer", "CertificateRequired").
    let text = e.to_string().to_lowercase().replace(' ', "");
    let ca = auth.tls_ca_file.as_ref().map(|p| p.display().to_string());
    let client = auth.tls_client.as_ref().map(|(cert, _)| cert.display().to_string());
    match (ca, client) {
        (_, None) if text.contains("certificaterequired") => {
            "; the server verifies its clients: set auth.tls_cert_file and auth.tls_key_file to a certificate \
             signed by a CA it trusts"
                .to_string()
        }
        (Some(ca), _) if text.contains("unknownissuer") => {
            format!("; the server's certificate is not signed by the CA of auth.tls_ca_file ({ca})")
        }
        (None, _) if text.contains("unknownissuer") => {
            "; the server's certificate is signed by a CA this machine does not trust: set auth.tls_ca_file".to_string()
        }
        (_, _) if text.contains("notvalidforname") => {
            "; the server's certificate does not name the host in nats_url: connect by a name it carries".to_string()
        }
        (_, Some(cert)) if text.contains("alert") => {
            format!("; the server refused the client certificate of auth.tls_cert_file ({cert})")
        }
        (Some(ca), _) => format!("; check auth.tls_ca_file ({ca}) and auth.tls_cert_file / auth.tls_key_file"),
        (None, _) => "; the server wants TLS: set auth.tls_ca_file to the CA that signed its certificate".to_string(),
    }
}

async fn options(auth: &Auth, name: &str) -> Result<ConnectOptions, ConnectError> {
    let mut opts = match &auth.credentials {
        Credentials::None => ConnectOptions::new(),
        Credentials::UserPassword { user, password } => {
            ConnectOptions::with_user_and_password(user.clone(), password.expose().to_string())
        }
        Credentials::Token(t) => ConnectOptions::with_token(t.expose().to_string()),
        Credentials::NKey(seed) => ConnectOptions::with_nkey(seed.expose().to_string()),
        Credentials::CredsFile(path) => ConnectOptions::with_credentials_file(path).await.map_err(|source| {
            ConnectError::Credentials { key: "auth.creds_file", path: path.display().to_string(), source }
        })?,
    };
    if let Some(ca) = &auth.tls_ca_file {
        opts = opts.add_root_certificates(ca.clone()).require_tls(true);
    }
    if let Some((cert, key)) = &auth.tls_client {
        opts = opts.add_client_certificate(cert.clone(), key.clone()).require_tls(true);
    }
    let connection = name.to_string();
    Ok(opts.name(name).max_reconnects(None).ping_interval(PING_INTERVAL).event_callback(move |event| {
        let connection = connection.clone();
        async move { log_event(&connection, event) }
    }))
}

fn log_event(connection: &str, event: Event) {
    match event {
        Event::Connected => tracing::info!(connection, "NATS connection (re)established"),
        Event::Disconnected => tracing::warn!(connection, "NATS connection lost; reconnecting"),
        Event::LameDuckMode => {
            tracing::warn!(connection, "the NATS server is shutting down (lame duck); moving to another server")
        }
        Event::ServerError(ServerError::Other(message)) if message.to_lowercase().contains("permissions violation") => {
            tracing::warn!(
                connection,
                refused = message,
                "the NATS server refused an operation: these credentials lack the permission \
                 (each role's permissions are in deploy/k8s/base/permissions.conf)"
            )
        }
        other => tracing::info!(connection, event = %other, "NATS event"),
    }
}

/// Whether the client is connected right now (what the worker's `/healthz` and `/readyz` report).
pub fn is_connected(client: &Client) -> bool {
    client.connection_state() == State::Connected
}
