//! The blocking OpenAI-compatible transport (feature `llm-http`): the only I/O in this crate.
//!
//! `POST {endpoint}/chat/completions` with `{model, messages, temperature, max_tokens}` and
//! `Authorization: Bearer <key>` when a key is set; the answer is `choices[0].message.content`
//! plus `usage` when reported. Plain `http://` and `https://` endpoints: TLS is rustls with the
//! ring provider (the one async-nats already builds), verifying against the system's roots plus
//! an optional CA file ([`roots`]); proxies come from `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`
//! and `NO_PROXY` ([`proxy`]). Connect and TLS failures (naming the endpoint), timeouts, 429s
//! (with `Retry-After` or `retry-after-ms`), other non-2xx statuses and answers without content
//! map to [`TransportError`]. Each endpoint's `rpm`/`tpm` share and any pause a 429 asked for
//! are enforced in [`ChatTransport::admit`] ([`super::limit`]).

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::{Agent, Proxy};

use super::limit::RateLimiter;
use super::{redact_endpoint, ChatRequest, ChatResponse, ChatTransport, TransportError};

pub mod proxy;
pub mod roots;

pub use proxy::Proxies;

/// The hint appended to TLS errors: how to trust a private CA.
pub const TLS_HINT: &str =
    "to trust a private CA, give its PEM file as the worker's `llm_ca_file` or the coordinator's SIMFLEET_LLM_CA_FILE";

/// Why the transport cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The CA file is unreadable or holds no certificate.
    #[error("CA file {path}: {message}")]
    CaFile {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A proxy URL does not parse.
    #[error("proxy {url:?}: {message}")]
    Proxy {
        /// The URL as given.
        url: String,
        /// What is wrong.
        message: String,
    },
}

/// How the transport reaches endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOptions {
    /// A PEM file of CA certificates trusted besides the system's roots.
    pub ca_file: Option<PathBuf>,
    /// Proxies by scheme (usually [`Proxies::from_env`]).
    pub proxies: Proxies,
    /// How many processes share each endpoint's fleet-wide `rpm`/`tpm` (each enforces its
    /// share, [`super::limit`]).
    pub fleet_processes: u32,
    /// Idle connections kept per host: as many as calls in flight, so that a call reuses a
    /// connection (and its TLS session) instead of opening one.
    pub max_idle_per_host: usize,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions { ca_file: None, proxies: Proxies::default(), fleet_processes: 1, max_idle_per_host: 64 }
    }
}

/// A blocking HTTP/1.1 chat-completions transport: one connection pool per route (direct, via
/// the HTTP proxy, via the HTTPS proxy), shared by every thread.
pub struct HttpTransport {
    direct: Agent,
    via_http_proxy: Option<Agent>,
    via_https_proxy: Option<Agent>,
    proxies: Proxies,
    limiter: RateLimiter,
    /// State of the backoff jitter.
    jitter: AtomicU64,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport").field("proxies", &self.proxies).finish_non_exhaustive()
    }
}

impl Default for HttpTransport {
    fn default() -> Self {
        HttpTransport::new()
    }
}

fn agent(tls: &TlsConfig, proxy: Option<Proxy>, idle_per_host: usize) -> Agent {
    Agent::config_builder()
        // Statuses are checked here, not by ureq, so that every non-2xx becomes a TransportError.
        .http_status_as_error(false)
        .tls_config(tls.clone())
        .proxy(proxy)
        .max_idle_connections_per_host(idle_per_host.max(1))
        .max_idle_connections(idle_per_host.max(1).saturating_mul(4))
        .build()
        .new_agent()
}

impl HttpTransport {
    /// A transport with the system's roots, proxies from the environment and no CA file.
    pub fn new() -> HttpTransport {
        let options = HttpOptions { proxies: Proxies::from_env(), ..HttpOptions::default() };
        HttpTransport::with_options(&options).unwrap_or_else(|_| {
            // Only a proxy URL from the environment can fail here; then go direct.
            HttpTransport::with_options(&HttpOptions::default()).expect("no CA file, no proxy: nothing to fail")
        })
    }

    /// A transport as `options` say. Fails on an unreadable CA file or a bad proxy URL.
    pub fn with_options(options: &HttpOptions) -> Result<HttpTransport, HttpError> {
        // ring, as async-nats uses: installed once per process (an error means it already is).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let extra = match &options.ca_file {
            Some(path) => roots::ca_file(path)?,
            None => Vec::new(),
        };
        let roots: RootCerts = roots::roots(extra);
        let tls = TlsConfig::builder().provider(TlsProvider::Rustls).root_certs(roots).build();
        let proxy = |url: &Option<String>| -> Result<Option<Agent>, HttpError> {
            url.as_ref()
                .map(|u| {
                    let p = Proxy::new(u).map_err(|e| HttpError::Proxy { url: u.clone(), message: e.to_string() })?;
                    Ok(agent(&tls, Some(p), options.max_idle_per_host))
                })
                .transpose()
        };
        Ok(HttpTransport {
            direct: agent(&tls, None, options.max_idle_per_host),
            via_http_proxy: proxy(&options.proxies.http)?,
            via_https_proxy: proxy(&options.proxies.https)?,
            proxies: options.proxies.clone(),
            limiter: RateLimiter::new(options.fleet_processes),
            jitter: AtomicU64::new(0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id())),
        })
    }

    fn agent_for(&self, endpoint: &str) -> &Agent {
        match self.proxies.for_endpoint(endpoint) {
            Some(_) if endpoint.starts_with("https") => self.via_https_proxy.as_ref().unwrap_or(&self.direct),
            Some(_) => self.via_http_proxy.as_ref().unwrap_or(&self.direct),
            None => &self.direct,
        }
    }

    /// A fraction in [0, 1) for the backoff jitter (xorshift; not part of any record).
    fn jitter_fraction(&self) -> f64 {
        let mut x = self.jitter.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl ChatTransport for HttpTransport {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        let url = format!("{}/chat/completions", request.endpoint.trim_end_matches('/'));
        let body = json!({
            "model": request.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        });
        let mut call = self
            .agent_for(&request.endpoint)
            .post(&url)
            .config()
            .timeout_global(Some(request.timeout))
            .build()
            .header("Content-Type", "application/json");
        if let Some(key) = request.api_key.as_deref().filter(|k| !k.is_empty()) {
            call = call.header("Authorization", format!("Bearer {key}"));
        }
        let endpoint = || redact_endpoint(&request.endpoint);
        let response = call.send_json(&body).map_err(|e| map_error(e, &endpoint()))?;
        let status = response.status().as_u16();
        if status == 429 {
            let retry_after_ms = retry_after_ms(response.headers());
            if let Some(ms) = retry_after_ms {
                self.limiter.pause(&request.endpoint, Instant::now() + Duration::from_millis(ms));
            }
            return Err(TransportError::RateLimited { retry_after_ms });
        }
        if !(200..300).contains(&status) {
            return Err(TransportError::Status(status));
        }
        let answer: Value = response.into_body().read_json().map_err(|e| map_error(e, &endpoint()))?;
        let content = answer
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| TransportError::Malformed("no choices[0].message.content".into()))?;
        let usage = |key: &str| answer.get("usage").and_then(|u| u.get(key)).and_then(Value::as_u64);
        let response = ChatResponse {
            content: content.to_string(),
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
        };
        if let (Some(p), Some(c)) = (response.prompt_tokens, response.completion_tokens) {
            self.limiter.settle(request, p + c);
        }
        Ok(response)
    }

    fn admit(&self, request: &ChatRequest) {
        let wait = self.limiter.reserve(request, Instant::now());
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }

    /// Sleeps `delay` plus up to a quarter more, so that calls turned back together (a 429 to
    /// many episodes at once) do not all come back at the same instant.
    fn sleep(&self, delay: Duration) {
        std::thread::sleep(delay.mul_f64(1.0 + 0.25 * self.jitter_fraction()));
    }
}

/// The wait a 429 asks for: `retry-after-ms` (milliseconds, as some OpenAI-compatible servers
/// send), else `Retry-After` in seconds. An HTTP-date `Retry-After` is ignored (the client's
/// own backoff applies).
fn retry_after_ms(headers: &ureq::http::HeaderMap) -> Option<u64> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0) {
        return Some(ms.ceil() as u64);
    }
    let secs = get("retry-after")?.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)?;
    Some((secs * 1000.0).ceil() as u64)
}

/// The TLS error inside an I/O error, if that is what it is.
fn tls_cause(e: &io::Error) -> Option<String> {
    let inner = e.get_ref()?;
    inner.downcast_ref::<rustls::Error>().map(|t| t.to_string())
}

fn map_error(e: ureq::Error, endpoint: &str) -> TransportError {
    let tls = |detail: String| TransportError::Tls(format!("{endpoint}: {detail} ({TLS_HINT})"));
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::Io(io) if matches!(io.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
            TransportError::Timeout
        }
        ureq::Error::Io(io) => match tls_cause(&io) {
            Some(detail) => tls(detail),
            None => TransportError::Connect(format!("{endpoint}: {io}")),
        },
        ureq::Error::Rustls(t) => tls(t.to_string()),
        ureq::Error::Tls(t) => tls(t.to_string()),
        ureq::Error::StatusCode(429) => TransportError::RateLimited { retry_after_ms: None },
        ureq::Error::StatusCode(s) => TransportError::Status(s),
        ureq::Error::Json(j) => TransportError::Malformed(format!("answer is not JSON: {j}")),
        ureq::Error::Protocol(p) => TransportError::Malformed(format!("HTTP protocol error: {p}")),
        other => TransportError::Connect(format!("{endpoint}: {other}")),
    }
}

/// A shared transport as `Arc<dyn ChatTransport>` (what [`crate::RunEnv::chat`] holds).
pub fn shared(options: &HttpOptions) -> Result<Arc<dyn ChatTransport>, HttpError> {
    Ok(Arc::new(HttpTransport::with_options(options)?))
}

#[cfg(test)]
mod tests;
