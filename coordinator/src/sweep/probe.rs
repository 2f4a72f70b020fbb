//! What validating a sweep plays with: `prepare_job` builds every seat of a cell (an `llm`
//! seat needs a transport to be built), and nothing is played. Parsing a file therefore builds
//! no HTTP client: the seats get a transport that answers every call with an error.

use std::sync::Arc;

use simfleet::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};
use simfleet::RunEnv;

/// A transport for building seats only: validation plays nothing, so no call reaches it.
struct NoCalls;

impl ChatTransport for NoCalls {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        Err(TransportError::Connect(format!("{}: validating a sweep calls no model", request.endpoint)))
    }
}

/// The environment cells are validated in.
pub(crate) fn validation_env() -> RunEnv {
    RunEnv { chat: Some(Arc::new(NoCalls)), ..RunEnv::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_seat_never_reaches_a_model() {
        let env = validation_env();
        let request = ChatRequest {
            endpoint: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            messages: Vec::new(),
            temperature: 0.0,
            max_tokens: 1,
            api_key: None,
            timeout: std::time::Duration::from_secs(1),
            seat: 0,
            attempt: 0,
            limits: Default::default(),
        };
        let e = env.chat.unwrap().complete(&request).unwrap_err();
        assert!(e.to_string().contains("validating a sweep calls no model"), "{e}");
    }
}
