//! The blocking OpenAI-compatible transport (feature `llm-http`): the only I/O in this crate.
//!
//! `POST {endpoint}/chat/completions` with `{model, messages, temperature, max_tokens}` and
//! `Authorization: Bearer <key>` when a key is set; the answer is `choices[0].message.content`
//! plus `usage` when reported. Connect errors, timeouts, non-2xx statuses and answers without
//! content map to [`TransportError`]. Built without TLS (ureq's default features are off), so
//! endpoints are plain `http://` (a local server or a TLS-terminating sidecar).

use std::io;

use serde_json::{json, Value};

use super::{ChatRequest, ChatResponse, ChatTransport, TransportError};

/// A blocking HTTP/1.1 chat-completions transport. One agent (connection pool) per transport.
#[derive(Debug)]
pub struct HttpTransport {
    agent: ureq::Agent,
}

impl Default for HttpTransport {
    fn default() -> Self {
        HttpTransport::new()
    }
}

impl HttpTransport {
    /// A transport with its own connection pool. Statuses are checked here, not by ureq, so that
    /// every non-2xx becomes [`TransportError::Status`].
    pub fn new() -> HttpTransport {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        HttpTransport { agent }
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
            .agent
            .post(&url)
            .config()
            .timeout_global(Some(request.timeout))
            .build()
            .header("Content-Type", "application/json");
        if let Some(key) = request.api_key.as_deref().filter(|k| !k.is_empty()) {
            call = call.header("Authorization", format!("Bearer {key}"));
        }
        let response = call.send_json(&body).map_err(map_error)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(TransportError::Status(status));
        }
        let answer: Value = response.into_body().read_json().map_err(map_error)?;
        let content = answer
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| TransportError::Malformed("no choices[0].message.content".into()))?;
        let usage = |key: &str| answer.get("usage").and_then(|u| u.get(key)).and_then(Value::as_u64);
        Ok(ChatResponse {
            content: content.to_string(),
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
        })
    }
}

fn map_error(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::Io(io) if matches!(io.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
            TransportError::Timeout
        }
        ureq::Error::StatusCode(s) => TransportError::Status(s),
        ureq::Error::Json(j) => TransportError::Malformed(format!("answer is not JSON: {j}")),
        ureq::Error::Protocol(p) => TransportError::Malformed(format!("HTTP protocol error: {p}")),
        other => TransportError::Connect(other.to_string()),
    }
}

#[cfg(test)]
mod tests;
