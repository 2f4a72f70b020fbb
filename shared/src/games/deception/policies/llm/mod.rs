//! The `llm` policy (§10.3): the deception prompt and answer mapping on top of the shared
//! client in [`crate::llm`], with a scripted fallback when the attempts are spent.

use std::sync::Arc;

use serde::Serialize;

use super::super::action::GameAction;
use super::super::observation::AgentObservation;
use super::{check_keys, ScriptedPolicy, Templates};
use crate::field;
use crate::llm::{CallRecord, ClientParams, LlmClient, LlmStats};
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

pub mod answer;
pub mod prompt;

/// The prompt version recorded with every call.
pub const PROMPT_VERSION: &str = "deception-prompt-1";

const KEYS: [&str; 11] = [
    "model",
    "endpoint",
    "api_key_env",
    "temperature",
    "max_tokens",
    "timeout_s",
    "max_retries",
    "rpm",
    "tpm",
    "history",
    "fallback",
];

/// One call of an `llm` seat, as kept in the replay's `llm_calls`.
#[derive(Clone, Debug, Serialize)]
pub struct LlmCall {
    /// The seat.
    pub seat: u32,
    /// The tick of the decision.
    pub tick: u32,
    /// The decision's number within the seat's episode, from 0.
    pub decision: u64,
    /// `deception-prompt-1`.
    pub prompt_version: &'static str,
    /// The call.
    #[serde(flatten)]
    pub call: CallRecord,
}

/// An `llm` seat.
#[derive(Debug)]
pub struct LlmPolicy {
    seat: u32,
    client: LlmClient,
    history: usize,
    fallback: ScriptedPolicy,
    stats: LlmStats,
    keep_calls: bool,
    calls: Vec<LlmCall>,
    scratch: Vec<CallRecord>,
}

impl LlmPolicy {
    /// Parses `llm?model=…&endpoint=…&…` for `seat`. Reads the API key from the environment
    /// variable named by `api_key_env` now (never recorded). Needs a transport in `env.chat`.
    pub fn parse(spec: &Spec, seat: usize, templates: &Arc<Templates>, env: &RunEnv) -> Result<LlmPolicy, JobError> {
        check_keys(spec, seat, &KEYS)?;
        let path = |k: &str| field::policy_path(seat, k);
        let client = ClientParams::parse(spec, seat)?;
        let history = spec.get("history").map_or(Ok(60), |v| field::int(&path("history"), v, 0, 1_000_000))?;
        let fallback_raw = spec.get("fallback").unwrap_or("heuristic");
        let fallback = Spec::parse(fallback_raw)
            .map_err(|e| JobError::invalid(path("fallback"), fallback_raw, e.message))
            .and_then(|f| {
                ScriptedPolicy::parse(&f, seat, templates).map_err(|e| {
                    JobError::invalid(path("fallback"), fallback_raw, format!("must be a scripted policy: {e}"))
                })
            })?;
        let transport = env.chat.clone().ok_or_else(|| {
            JobError::invalid(
                format!("policy_set[{seat}]"),
                crate::policy::metric_label(&spec.to_string()),
                "llm seats need a chat transport (workers built with the llm-http feature provide one)",
            )
        })?;
        let config = client.config();
        Ok(LlmPolicy::new(seat, LlmClient::new(config, transport), history as usize, fallback))
    }

    /// A policy from its parts.
    pub fn new(seat: usize, client: LlmClient, history: usize, fallback: ScriptedPolicy) -> LlmPolicy {
        LlmPolicy {
            seat: seat as u32,
            client,
            history,
            fallback,
            stats: LlmStats::default(),
            keep_calls: false,
            calls: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Forgets the episode; `keep_calls` keeps a call log for the replay.
    pub fn reset(&mut self, keep_calls: bool) {
        self.stats = LlmStats::default();
        self.keep_calls = keep_calls;
        self.calls.clear();
        self.fallback.reset();
    }

    /// The episode's stats.
    pub fn stats(&self) -> &LlmStats {
        &self.stats
    }

    /// The episode's calls (empty unless asked to keep them).
    pub fn calls(&self) -> &[LlmCall] {
        &self.calls
    }

    /// Decides: asks the model; when the attempts are spent, the fallback policy decides with
    /// the seat's stream (the only draws this policy makes).
    pub fn act(&mut self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        let decision = self.stats.decisions;
        let messages = prompt::messages(obs, self.history);
        let log = self.keep_calls.then_some(&mut self.scratch);
        let answer = self.client.decide(messages, |text| answer::parse(text, obs), &mut self.stats, log);
        for call in self.scratch.drain(..) {
            self.calls.push(LlmCall {
                seat: self.seat,
                tick: obs.tick,
                decision,
                prompt_version: PROMPT_VERSION,
                call,
            });
        }
        match answer {
            Some(action) => action,
            None => self.fallback.act(obs, rng),
        }
    }
}
