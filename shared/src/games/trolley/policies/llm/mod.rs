//! The `llm` policy (§11): the trolley prompt and answer mapping on top of the shared client in
//! [`crate::llm`] (attempt cap, corrective re-prompts, backoff, stats), with a scripted
//! `debater` fallback when the attempts are spent.
//!
//! The model's transport is the job's [`RunEnv::chat`]; nothing here does I/O of its own. The
//! policy never draws from the seat's stream itself: only its fallback does, so an `llm` seat
//! whose model never answers plays exactly its fallback's episode.

use serde::Serialize;

use super::super::engine::TrolleyAction;
use super::super::observation::observation;
use super::super::state::TrolleyState;
use super::super::vocab::Phase;
use super::{Debater, Drawn, Reason, Templates};
use crate::llm::{CallRecord, LlmClient, LlmStats};
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

pub mod answer;
pub mod params;
pub mod prompt;

pub use answer::Answer;
pub use params::LlmParams;

/// The prompt version recorded with every call.
pub const PROMPT_VERSION: &str = "trolley-prompt-1";

/// One call of an `llm` seat, as kept in the replay's `llm_calls`.
#[derive(Clone, Debug, Serialize)]
pub struct LlmCall {
    /// The seat.
    pub seat: u32,
    /// The round number of the decision.
    pub round: u32,
    /// The phase of the decision.
    pub phase: Phase,
    /// The decision's number within the seat's episode, from 0.
    pub decision: u64,
    /// `trolley-prompt-1`.
    pub prompt_version: &'static str,
    /// The call.
    #[serde(flatten)]
    pub call: CallRecord,
}

/// An `llm` seat: its client, its fallback, and the episode's counters and calls.
#[derive(Clone, Debug)]
pub struct LlmPolicy {
    seat: u32,
    client: LlmClient,
    fallback: Debater,
    stats: LlmStats,
    keep_calls: bool,
    calls: Vec<LlmCall>,
    scratch: Vec<CallRecord>,
}

impl LlmPolicy {
    /// Parses `llm?model=…&endpoint=…&…` for `seat` and reads the API key from the environment
    /// variable named by `api_key_env` now (never logged or recorded). Needs a transport in
    /// `env.chat`: without one the seat is an `invalid_job` naming `policy_set[<seat>]`.
    pub fn parse(seat: usize, spec: &Spec, templates: &'static Templates, env: &RunEnv) -> Result<LlmPolicy, JobError> {
        let params = LlmParams::parse(seat, spec)?;
        let transport = env.chat.clone().ok_or_else(|| {
            JobError::invalid(
                format!("policy_set[{seat}]"),
                crate::policy::metric_label(&spec.to_string()),
                "llm seats need a chat transport (workers built with the llm-http feature provide one)",
            )
        })?;
        let fallback = Debater::new(params.fallback, templates);
        Ok(LlmPolicy::new(seat, LlmClient::new(params.client.config(), transport), fallback))
    }

    /// A policy from its parts.
    pub fn new(seat: usize, client: LlmClient, fallback: Debater) -> LlmPolicy {
        LlmPolicy {
            seat: seat as u32,
            client,
            fallback,
            stats: LlmStats::default(),
            keep_calls: false,
            calls: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The client (its configuration: endpoint, model, sampling, timeout, retries).
    pub fn client(&self) -> &LlmClient {
        &self.client
    }

    /// The fallback policy.
    pub fn fallback(&self) -> &Debater {
        &self.fallback
    }

    /// Forgets the episode; `keep_calls` keeps a call log for the replay.
    pub fn reset(&mut self, keep_calls: bool) {
        self.stats = LlmStats::default();
        self.keep_calls = keep_calls;
        self.calls.clear();
        self.scratch.clear();
    }

    /// The episode's stats.
    pub fn stats(&self) -> &LlmStats {
        &self.stats
    }

    /// The episode's calls (empty unless asked to keep them).
    pub fn calls(&self) -> &[LlmCall] {
        &self.calls
    }

    /// Decides for `seat`: asks the model with a prompt rendered from the seat's observation,
    /// accepting only an answer the rules allow; when the attempts are spent, the fallback
    /// decides with the seat's stream (the only draws this policy makes). A seat with nothing
    /// to do (never asked by the engine) skips without calling the model.
    pub fn act(&mut self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let obs = observation(state, seat);
        let Some(phase) = obs.phase.filter(|_| !obs.legal.is_empty()) else {
            return (TrolleyAction::SKIP, Drawn::Idle.reason());
        };
        let decision = self.stats.decisions;
        let log = self.keep_calls.then_some(&mut self.scratch);
        let parse = |text: &str| answer::parse(text, state, seat, &obs);
        let accepted = self.client.decide(prompt::messages(&obs), parse, &mut self.stats, log);
        for call in self.scratch.drain(..) {
            self.calls.push(LlmCall {
                seat: self.seat,
                round: obs.round_number,
                phase,
                decision,
                prompt_version: PROMPT_VERSION,
                call,
            });
        }
        match accepted {
            Some(Answer { action, reasoning }) => (action, Reason::Model(reasoning)),
            None => {
                let (action, reason) = self.fallback.act(state, seat, rng);
                (action, Reason::LlmFallback(Box::new(reason)))
            }
        }
    }
}
