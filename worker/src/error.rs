//! The worker's own failures: what stops [`crate::run`] or `main`, as opposed to a job's
//! failures, which are [`simfleet::JobError`] results published for the coordinator.
//!
//! Each variant names the thing that failed, so `main` can print one line and exit non-zero.
//! Nothing secret is ever part of a message: URLs are shown with their password cut out.

use std::net::SocketAddr;

use simfleet::nats::{ConnectError, TopologyError};

/// Why the worker cannot start or keep running.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkerError {
    /// The NATS servers refused us or are unreachable (wrong credentials, TLS, DNS, …), or a
    /// credentials file cannot be used.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The JetStream streams, consumer or KV bucket do not match what the worker needs.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// The metrics listener cannot bind.
    #[error("cannot serve metrics on {addr}: {source}")]
    Listen {
        /// The address of `metrics_listen`.
        addr: SocketAddr,
        /// The bind error.
        source: std::io::Error,
    },
    /// The Prometheus recorder cannot be installed (a second recorder, or bad buckets).
    #[error("cannot install the metrics recorder: {0}")]
    Metrics(String),
    /// The operating system refused to start the play threads.
    #[error("cannot start the play threads: {0}")]
    Threads(std::io::Error),
    /// The transport for `llm` seats cannot be built (a bad CA file or proxy URL).
    #[error("cannot set up the llm transport: {0}")]
    LlmTransport(simfleet::llm::http::HttpError),
}
