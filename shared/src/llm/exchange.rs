//! [`Exchange`]: one call of a seat as its record keeps it, enough to replay the episode
//! exactly without calling the model again.
//!
//! The prompt is not stored (the engine renders the same prompt again from the same state);
//! only its hash, so that a replay that would send a different prompt (another prompt version,
//! another engine) stops instead of answering the wrong question. What is stored is what the
//! model said: the raw answer and its token usage, or the error, and the latency (which the
//! record's latency counters sum).

use serde::{Deserialize, Serialize};

use super::{ChatMessage, ChatResponse, TransportError};
use crate::seeding::Fnv64;

/// One recorded call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// FNV-1a 64 of the messages sent (each role and content, NUL-separated), 16 hex digits.
    pub prompt_hash: String,
    /// The call's latency in milliseconds.
    pub latency_ms: u64,
    /// The raw answer (`choices[0].message.content`), when the call succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// `usage.prompt_tokens`, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// `usage.completion_tokens`, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// The failure, when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<TransportError>,
    /// Why the game refused the answer (`invalid_output`): the rejection's label and what was
    /// wrong with it, e.g. `self_target: it names the seat itself`. Absent when the answer was
    /// used, or the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

impl Exchange {
    /// The record of a call that sent `messages` and got `result` after `latency_ms`.
    pub fn new(messages: &[ChatMessage], latency_ms: u64, result: &Result<ChatResponse, TransportError>) -> Exchange {
        let prompt_hash = prompt_hash(messages);
        match result {
            Ok(r) => Exchange {
                prompt_hash,
                latency_ms,
                answer: Some(r.content.clone()),
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
                error: None,
                refused: None,
            },
            Err(e) => Exchange {
                prompt_hash,
                latency_ms,
                answer: None,
                prompt_tokens: None,
                completion_tokens: None,
                error: Some(e.clone()),
                refused: None,
            },
        }
    }

    /// What the transport returned, as recorded. An exchange with neither an answer nor an
    /// error (a hand-edited record) replays as a malformed answer.
    pub fn result(&self) -> Result<ChatResponse, TransportError> {
        match (&self.answer, &self.error) {
            (_, Some(e)) => Err(e.clone()),
            (Some(content), None) => Ok(ChatResponse {
                content: content.clone(),
                prompt_tokens: self.prompt_tokens,
                completion_tokens: self.completion_tokens,
            }),
            (None, None) => Err(TransportError::Malformed("the recorded exchange holds no answer".into())),
        }
    }
}

/// The hash recorded for `messages`: FNV-1a 64 over each role and content, NUL-separated.
pub fn prompt_hash(messages: &[ChatMessage]) -> String {
    let mut h = Fnv64::new();
    for m in messages {
        h.bytes(m.role.as_bytes());
        h.u8(0);
        h.bytes(m.content.as_bytes());
        h.u8(0);
    }
    h.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> ChatMessage {
        ChatMessage { role: role.into(), content: content.into() }
    }

    #[test]
    fn answers_and_errors_round_trip_and_skip_what_is_absent() {
        let messages = [msg("system", "rules"), msg("user", "go")];
        let ok = Ok(ChatResponse {
            content: "{\"action\": \"pass\"}".into(),
            prompt_tokens: Some(12),
            completion_tokens: None,
        });
        let e = Exchange::new(&messages, 250, &ok);
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            format!(
                r#"{{"prompt_hash":"{}","latency_ms":250,"answer":"{{\"action\": \"pass\"}}","prompt_tokens":12}}"#,
                e.prompt_hash
            )
        );
        assert_eq!(serde_json::from_str::<Exchange>(&json).unwrap().result(), ok);
        let failed = Err(TransportError::RateLimited { retry_after_ms: Some(20) });
        let e = Exchange::new(&messages, 3, &failed);
        let back: Exchange = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        assert_eq!(back.result(), failed);
    }

    #[test]
    fn the_hash_tells_conversations_apart() {
        let a = prompt_hash(&[msg("user", "ab"), msg("user", "c")]);
        let b = prompt_hash(&[msg("user", "a"), msg("user", "bc")]);
        let c = prompt_hash(&[msg("system", "ab"), msg("user", "c")]);
        assert_eq!(a.len(), 16);
        assert!(a != b && a != c && b != c);
        assert_eq!(a, prompt_hash(&[msg("user", "ab"), msg("user", "c")]));
    }
}
