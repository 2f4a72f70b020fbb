//! The NATS plumbing the worker and the coordinator share (feature `nats`): every NATS
//! behaviour of simfleet is here, and the binaries only call it.
//!
//! - [`servers`]: the `nats_url` server list (comma-separated), checked and redacted for logs.
//! - [`auth`]: the `[auth]` config table (user/password, token, nkey, creds file; TLS CA and
//!   client certificate), resolved into secrets held in memory.
//! - [`connection`]: connecting with those credentials, and what the connection reports in
//!   the log (reconnects, lame duck, the server refusing an operation); `watchdog` moves a
//!   client off a server cut off from its cluster.
//! - [`topology`]: the JetStream streams, the sweeps' consumers and the KV bucket: binding to
//!   them (workers), get-or-create (coordinators on an open server), and the admin's setup,
//!   which also changes their replicas.
//! - [`modules`]: the `wasm:` modules of sweeps in the object store, by hash.
//! - [`outage`]: telling "JetStream cannot answer right now" (a restart, a leader election, a
//!   cluster without quorum) from real errors, and waiting it out while saying so.
//! - [`ConfigError`]: a configuration error naming its key, shared by both binaries' settings.
//!
//! Object names are in [`crate::names`], which needs no feature.
//!
//! Who may do what (the permissions in `deploy/k8s/base/permissions.conf`): workers bind to
//! the topology and never create any of it; the coordinator publishes jobs, reads results and
//! manages its own consumers and the sweeps bucket; an admin (`coordinator setup`) creates the
//! topology and changes it. On a server without permissions (a laptop, the tests) the
//! coordinator creates what is missing on first use.

use std::fmt;

pub mod auth;
pub mod connection;
pub mod modules;
pub mod outage;
pub mod result_parts;
pub mod servers;
pub mod topology;
mod watchdog;

pub use auth::{Auth, AuthConfig, Credentials, Secret};
pub use connection::{connect, is_connected, ConnectError};
pub use servers::{parse_servers, redact_url, DEFAULT_NATS_URL};
pub use topology::{Topology, TopologyConfig, TopologyError};

/// The most replicas JetStream gives a stream (`stream_replicas` is checked against it).
pub const MAX_REPLICAS: usize = 5;

/// A configuration error: one line naming the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    key: Option<String>,
    message: String,
}

impl ConfigError {
    /// An error about `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { key: Some(key.into()), message: message.into() }
    }

    /// The key at fault, when known.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "invalid config key `{key}`: {}", self.message),
            None => write!(f, "invalid config: {}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<config::ConfigError> for ConfigError {
    fn from(e: config::ConfigError) -> ConfigError {
        // The crate's messages already name the key ("invalid type: … for key `concurrency`",
        // "unknown field `x`"); keep them on one line.
        ConfigError { key: None, message: e.to_string().replace('\n', " ") }
    }
}

/// Checks `stream_replicas`: 1 to [`MAX_REPLICAS`] (a cluster needs as many servers).
pub fn check_replicas(replicas: usize) -> Result<usize, ConfigError> {
    if (1..=MAX_REPLICAS).contains(&replicas) {
        Ok(replicas)
    } else {
        Err(ConfigError::new(
            "stream_replicas",
            format!("must be 1 to {MAX_REPLICAS} (3 for a three-server cluster), got {replicas}"),
        ))
    }
}
