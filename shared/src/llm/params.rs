//! The connection parameters every game's `llm` seat takes, validated once for all games:
//! `model` and `endpoint` (required), `api_key_env`, `temperature`, `max_tokens`, `timeout_s`,
//! `max_retries`, and the endpoint's fleet-wide rate limits `rpm` and `tpm`, with their
//! defaults and ranges. Each game adds its own keys (history, fallback) and checks the key set
//! itself ([`KEYS`] lists the shared ones).

use std::time::Duration;

use crate::field::{self, policy_path};
use crate::protocol::{JobError, JobErrorKind};
use crate::spec::Spec;

use super::{ClientConfig, RateLimits};

/// The keys every game's `llm` seat takes, in the order specs list them.
pub const KEYS: [&str; 9] =
    ["model", "endpoint", "api_key_env", "temperature", "max_tokens", "timeout_s", "max_retries", "rpm", "tpm"];

/// The validated connection parameters of one `llm` seat. Holds the *name* of the key's
/// environment variable, never the key.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientParams {
    /// The model name.
    pub model: String,
    /// The base URL; calls go to `{endpoint}/chat/completions`.
    pub endpoint: String,
    /// The environment variable holding the API key (unset or empty: no Authorization header).
    pub api_key_env: String,
    /// Sampling temperature, [0, 2] (the OpenAI range).
    pub temperature: f64,
    /// Completion token cap, at least 1.
    pub max_tokens: u32,
    /// Per-call timeout, (0, 3600] seconds.
    pub timeout: Duration,
    /// Extra attempts after the first, 0..=5.
    pub max_retries: u32,
    /// The endpoint's requests (`rpm`) and tokens (`tpm`) per minute for the whole fleet.
    pub limits: RateLimits,
    /// The seat.
    pub seat: usize,
}

impl ClientParams {
    /// Reads the connection keys of `spec` for `seat`; errors name `policy_set[<seat>].<key>`.
    pub fn parse(spec: &Spec, seat: usize) -> Result<ClientParams, JobError> {
        let path = |k: &str| policy_path(seat, k);
        let required = |k: &str| spec.get(k).filter(|v| !v.is_empty()).ok_or_else(|| missing(seat, k));
        let model = required("model")?;
        let endpoint = required("endpoint")?;
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return Err(JobError::invalid(path("endpoint"), endpoint, "must be an http:// or https:// base URL"));
        }
        let api_key_env = spec.get("api_key_env").unwrap_or("OPENAI_API_KEY");
        if api_key_env.is_empty() {
            return Err(JobError::invalid(path("api_key_env"), api_key_env, "must name an environment variable"));
        }
        let temperature =
            spec.get("temperature").map_or(Ok(0.0), |v| field::within(&path("temperature"), v, 0.0, 2.0))?;
        let max_tokens =
            spec.get("max_tokens").map_or(Ok(300), |v| field::int(&path("max_tokens"), v, 1, 1_000_000))?;
        let timeout_s = match spec.get("timeout_s") {
            None => 30.0,
            Some(v) => match field::within(&path("timeout_s"), v, 0.0, 3600.0)? {
                t if t > 0.0 => t,
                _ => return Err(JobError::invalid(path("timeout_s"), v, "must be greater than 0")),
            },
        };
        let max_retries = spec.get("max_retries").map_or(Ok(2), |v| field::int(&path("max_retries"), v, 0, 5))?;
        let limit = |k: &str, max: i64| -> Result<Option<u32>, JobError> {
            spec.get(k).map(|v| field::int(&path(k), v, 1, max).map(|n| n as u32)).transpose()
        };
        let limits = RateLimits {
            requests_per_minute: limit("rpm", 10_000_000)?,
            tokens_per_minute: limit("tpm", i64::from(u32::MAX))?,
        };
        Ok(ClientParams {
            model: model.to_string(),
            endpoint: endpoint.to_string(),
            api_key_env: api_key_env.to_string(),
            temperature,
            max_tokens: max_tokens as u32,
            timeout: Duration::from_secs_f64(timeout_s),
            max_retries: max_retries as u32,
            limits,
            seat,
        })
    }

    /// The client configuration, with the API key read from the environment now.
    pub fn config(&self) -> ClientConfig {
        ClientConfig {
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            timeout: self.timeout,
            max_retries: self.max_retries,
            api_key: std::env::var(&self.api_key_env).ok().filter(|k| !k.is_empty()),
            seat: self.seat as u32,
            limits: self.limits,
        }
    }
}

/// An `invalid_job` naming a required parameter that is missing (or empty).
pub fn missing(seat: usize, key: &str) -> JobError {
    JobError {
        kind: JobErrorKind::InvalidJob,
        field: Some(policy_path(seat, key)),
        value: None,
        message: "required".into(),
    }
}
