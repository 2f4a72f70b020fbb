//! [`LlmParams`]: the parameters of an `llm` seat (§11), validated without touching the
//! network or the environment.
//!
//! `model` and `endpoint` are required; the rest have the spec's defaults. Every refusal is an
//! `invalid_job` naming `policy_set[<seat>].<param>` and the value as written. The same checks
//! and ranges as the deception game's `llm` policy where §11 gives none: `temperature` in
//! [0, 2] (the OpenAI range), `max_tokens` ≥ 1, `timeout_s` in (0, 3600].

use super::super::{parse as parse_scripted, DebaterParams};
use crate::field::policy_path;
use crate::llm::ClientParams;
use crate::protocol::JobError;
use crate::spec::Spec;

/// The parameter keys, in the spec's order.
pub const KEYS: [&str; 10] = [
    "model",
    "endpoint",
    "api_key_env",
    "temperature",
    "max_tokens",
    "timeout_s",
    "max_retries",
    "rpm",
    "tpm",
    "fallback",
];

/// The default fallback policy.
pub const DEFAULT_FALLBACK: &str = "debater";

/// An `llm` seat's validated parameters: the shared client's, and the fallback.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmParams {
    /// Model, endpoint, the *name* of the key's environment variable, sampling and retries.
    pub client: ClientParams,
    /// The scripted policy that decides when the attempts are spent.
    pub fallback: DebaterParams,
}

impl LlmParams {
    /// Parses `llm?model=…&endpoint=…&…` for `seat`.
    pub fn parse(seat: usize, spec: &Spec) -> Result<LlmParams, JobError> {
        check_keys(seat, spec)?;
        let path = |k: &str| policy_path(seat, k);
        let client = ClientParams::parse(spec, seat)?;
        let fallback_raw = spec.get("fallback").unwrap_or(DEFAULT_FALLBACK);
        let fallback = Spec::parse(fallback_raw)
            .map_err(|e| JobError::invalid(path("fallback"), fallback_raw, e.message))
            .and_then(|f| {
                parse_scripted(seat, &f).map_err(|e| {
                    JobError::invalid(path("fallback"), fallback_raw, format!("must be a scripted policy: {e}"))
                })
            })?;
        Ok(LlmParams { client, fallback })
    }
}

/// Rejects a `:ARG`, unknown keys and repeated keys.
fn check_keys(seat: usize, spec: &Spec) -> Result<(), JobError> {
    if let Some(arg) = &spec.arg {
        return Err(JobError::invalid(format!("policy_set[{seat}]"), arg, "llm takes no `:` argument"));
    }
    for (i, (k, v)) in spec.params.iter().enumerate() {
        if !KEYS.contains(&k.as_str()) {
            let known = KEYS.join(", ");
            return Err(JobError::invalid(
                policy_path(seat, k),
                v,
                format!("unknown parameter of llm (known: {known})"),
            ));
        }
        if spec.params[..i].iter().any(|(pk, _)| pk == k) {
            return Err(JobError::invalid(policy_path(seat, k), v, "parameter given twice"));
        }
    }
    Ok(())
}
