//! The worker's own failures: what stops [`crate::run`] or `main`, as opposed to a job's
//! failures, which are [`simfleet::JobError`] results published for the coordinator.
//!
//! Each variant names the thing that failed, so `main` can print one line and exit non-zero.
//! Nothing secret is ever part of a message: URLs are shown with their password cut out.

use std::net::SocketAddr;

use crate::topology::TopologyError;

/// Why the worker cannot start or keep running.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkerError {
    /// The NATS server refused us or is unreachable (wrong credentials, TLS, DNS, …).
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        /// The server URL, with any password redacted.
        url: String,
        /// The client's error.
        source: async_nats::ConnectError,
    },
    /// A credentials or TLS file named in the config cannot be used.
    #[error("cannot use {key} = {path}: {source}")]
    Credentials {
        /// The config key (e.g. `auth.creds_file`).
        key: &'static str,
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The JetStream streams, consumer or KV bucket cannot be created or do not match.
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

/// `nats://user:secret@host:4222` → `nats://user:***@host:4222`, for logs and errors.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let redacted = match rest.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            // A lone userinfo part is a token: hide it entirely.
            None => format!("***@{host}"),
        },
        None => rest.to_string(),
    };
    match scheme {
        Some(s) => format!("{s}://{redacted}"),
        None => redacted,
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn passwords_and_tokens_never_reach_logs() {
        assert_eq!(redact_url("nats://a:b@h:4222"), "nats://a:***@h:4222");
        assert_eq!(redact_url("nats://tok@h:4222"), "nats://***@h:4222");
        assert_eq!(redact_url("nats://h:4222"), "nats://h:4222");
        assert_eq!(redact_url("h:4222"), "h:4222");
    }
}
