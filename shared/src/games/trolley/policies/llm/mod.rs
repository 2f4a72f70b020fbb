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
use crate::llm::seat::{self, LlmSeat};
use crate::llm::{LlmClient, LlmStats};
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

/// Where a trolley decision happened: its round and phase.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RoundPhase {
    /// The round number of the decision.
    pub round: u32,
    /// The phase of the decision.
    pub phase: Phase,
}

/// One call of an `llm` seat, as kept in the replay's `llm_calls`.
pub type LlmCall = crate::llm::LlmCall<RoundPhase>;

/// An `llm` seat: the shared shell with a scripted `debater` fallback.
#[derive(Clone, Debug)]
pub struct LlmPolicy {
    seat: LlmSeat<RoundPhase, Debater>,
}

impl LlmPolicy {
    /// Parses `llm?model=…&endpoint=…&…` for `seat` and reads the API key from the environment
    /// variable named by `api_key_env` now (never logged or recorded). Needs a transport in
    /// `env.chat`: without one the seat is an `invalid_job` naming `policy_set[<seat>]`.
    pub fn parse(seat: usize, spec: &Spec, templates: &'static Templates, env: &RunEnv) -> Result<LlmPolicy, JobError> {
        let params = LlmParams::parse(seat, spec)?;
        let transport = seat::transport(&env.chat, seat, spec)?;
        let fallback = Debater::new(params.fallback, templates);
        Ok(LlmPolicy::new(seat, LlmClient::new(params.client.config(), transport), fallback))
    }

    /// A policy from its parts.
    pub fn new(seat: usize, client: LlmClient, fallback: Debater) -> LlmPolicy {
        LlmPolicy { seat: LlmSeat::new(seat, PROMPT_VERSION, client, fallback) }
    }

    /// The client (its configuration: endpoint, model, sampling, timeout, retries).
    pub fn client(&self) -> &LlmClient {
        self.seat.client()
    }

    /// The fallback policy.
    pub fn fallback(&self) -> &Debater {
        self.seat.fallback()
    }

    /// Forgets the episode; `keep_calls` keeps a call log for the replay.
    pub fn reset(&mut self, keep_calls: bool) {
        self.seat.reset(keep_calls);
    }

    /// The episode's stats.
    pub fn stats(&self) -> &LlmStats {
        self.seat.stats()
    }

    /// The episode's calls (empty unless asked to keep them).
    pub fn calls(&self) -> &[LlmCall] {
        self.seat.calls()
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
        let at = RoundPhase { round: obs.round_number, phase };
        let parse = |text: &str| answer::parse(text, state, seat, &obs);
        match self.seat.ask(at, prompt::messages(&obs), parse) {
            Some(Answer { action, reasoning }) => (action, Reason::Model(reasoning)),
            None => {
                let (action, reason) = self.seat.fallback().act(state, seat, rng);
                (action, Reason::LlmFallback(Box::new(reason)))
            }
        }
    }
}
