//! The `llm` policy (§10.3): the deception prompt and answer mapping on top of the shared
//! client in [`crate::llm`], with a scripted fallback when the attempts are spent.

use std::sync::Arc;

use serde::Serialize;

use super::super::action::GameAction;
use super::super::observation::AgentObservation;
use super::{check_keys, ScriptedPolicy, Templates};
use crate::field;
use crate::llm::seat::{self, LlmSeat};
use crate::llm::{ClientParams, LlmClient, LlmStats};
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

/// Where a deception decision happened: its tick.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Tick {
    /// The tick of the decision.
    pub tick: u32,
}

/// One call of an `llm` seat, as kept in the replay's `llm_calls`.
pub type LlmCall = crate::llm::LlmCall<Tick>;

/// An `llm` seat: the shared shell with a scripted fallback, and how much history it prompts
/// with.
#[derive(Debug)]
pub struct LlmPolicy {
    seat: LlmSeat<Tick, ScriptedPolicy>,
    history: usize,
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
        let transport = seat::transport(&env.chat, seat, spec)?;
        let config = client.config();
        Ok(LlmPolicy::new(seat, LlmClient::new(config, transport), history as usize, fallback))
    }

    /// A policy from its parts.
    pub fn new(seat: usize, client: LlmClient, history: usize, fallback: ScriptedPolicy) -> LlmPolicy {
        LlmPolicy { seat: LlmSeat::new(seat, PROMPT_VERSION, client, fallback), history }
    }

    /// Forgets the episode; `keep_calls` keeps a call log for the replay.
    pub fn reset(&mut self, keep_calls: bool) {
        self.seat.reset(keep_calls);
        self.seat.fallback_mut().reset();
    }

    /// The episode's stats.
    pub fn stats(&self) -> &LlmStats {
        self.seat.stats()
    }

    /// The episode's calls (empty unless asked to keep them).
    pub fn calls(&self) -> &[LlmCall] {
        self.seat.calls()
    }

    /// Decides: asks the model; when the attempts are spent, the fallback policy decides with
    /// the seat's stream (the only draws this policy makes).
    pub fn act(&mut self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        let messages = prompt::messages(obs, self.history);
        match self.seat.ask(Tick { tick: obs.tick }, messages, |text| answer::parse(text, obs)) {
            Some(action) => action,
            None => self.seat.fallback_mut().act(obs, rng),
        }
    }
}
