//! The chat transport the coordinator's in-process plays (`run`, `replay`) hand to `llm` seats.

use std::sync::Arc;

use simfleet::llm::ChatTransport;

/// The HTTP transport for `llm` seats (the binaries build with `llm-http`).
pub fn llm_transport() -> Option<Arc<dyn ChatTransport>> {
    None
}
