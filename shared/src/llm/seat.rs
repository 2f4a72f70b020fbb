//! [`LlmSeat`]: every game's `llm` seat: the outside seats' one shell
//! ([`SeatShell`](crate::outside::SeatShell)) over the model's client as its transport, the
//! seat's fallback policy, the episode's [`LlmStats`] and, for a replay, its calls
//! ([`LlmCall`]); a game adds only its prompt, the mapping from an answer to its actions, and
//! where a decision happened (the `At` of a call: a tick, a round and phase). The client's
//! attempts (corrective re-prompts, retries) are the transport's; the shell counts the
//! decisions and the ones handed to the fallback, as it does for `python:` seats.

use std::sync::Arc;

use serde::Serialize;

use super::{CallRecord, ChatMessage, ChatTransport, LlmClient, LlmStats, Rejection};
use crate::outside::SeatShell;
use crate::protocol::JobError;
use crate::spec::Spec;

/// One call of an `llm` seat, as kept in the replay's `llm_calls`: the seat, where the decision
/// happened (`At`'s fields, inline), the decision's number, the prompt version and the call.
#[derive(Clone, Debug, Serialize)]
pub struct LlmCall<At> {
    /// The seat.
    pub seat: u32,
    /// Where the decision happened.
    #[serde(flatten)]
    pub at: At,
    /// The decision's number within the seat's episode, from 0.
    pub decision: u64,
    /// The game's prompt version.
    pub prompt_version: &'static str,
    /// The call.
    #[serde(flatten)]
    pub call: CallRecord,
}

/// An `llm` seat: the shell over its client, its fallback `F`, and the episode's counters and
/// calls.
#[derive(Clone, Debug)]
pub struct LlmSeat<At, F> {
    prompt_version: &'static str,
    shell: SeatShell<LlmClient>,
    fallback: F,
    stats: LlmStats,
    keep_calls: bool,
    calls: Vec<LlmCall<At>>,
    scratch: Vec<CallRecord>,
}

/// The job's chat transport for the `llm` seat `seat` (spec `spec`); without one the seat is an
/// `invalid_job` naming `policy_set[<seat>]`.
pub fn transport(
    chat: &Option<Arc<dyn ChatTransport>>,
    seat: usize,
    spec: &Spec,
) -> Result<Arc<dyn ChatTransport>, JobError> {
    chat.clone().ok_or_else(|| {
        JobError::invalid(
            format!("policy_set[{seat}]"),
            crate::policy::metric_label(&spec.to_string()),
            "llm seats need a chat transport (workers built with the llm-http feature provide one)",
        )
    })
}

impl<At, F> LlmSeat<At, F> {
    /// A seat from its parts; its calls are recorded with `prompt_version`.
    pub fn new(seat: usize, prompt_version: &'static str, client: LlmClient, fallback: F) -> LlmSeat<At, F> {
        LlmSeat {
            prompt_version,
            shell: SeatShell::new(seat, client),
            fallback,
            stats: LlmStats::default(),
            keep_calls: false,
            calls: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The client (its configuration: endpoint, model, sampling, timeout, retries).
    pub fn client(&self) -> &LlmClient {
        &self.shell.transport
    }

    /// The fallback policy.
    pub fn fallback(&self) -> &F {
        &self.fallback
    }

    /// The fallback policy, to decide with or to reset.
    pub fn fallback_mut(&mut self) -> &mut F {
        &mut self.fallback
    }

    /// Forgets the episode; `keep_calls` keeps a call log for the replay.
    pub fn reset(&mut self, keep_calls: bool) {
        self.shell.reset();
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
    pub fn calls(&self) -> &[LlmCall<At>] {
        &self.calls
    }

    /// Asks the model with `messages`, accepting only an answer `parse` accepts (within the
    /// client's attempts, with its corrective re-prompts); logs the calls, at `at`, when asked
    /// to keep them. `None`: the attempts are spent, and the game's fallback decides.
    pub fn ask<T>(
        &mut self,
        at: At,
        messages: Vec<ChatMessage>,
        parse: impl FnMut(&str) -> Result<T, Rejection>,
    ) -> Option<T>
    where
        At: Clone,
    {
        let decision = self.stats.decisions;
        let (stats, log) = (&mut self.stats, self.keep_calls.then_some(&mut self.scratch));
        // The shell: the transport answers (within its attempts), an answer is kept when there
        // is one, and a decision without one is counted and handed to the fallback (`None`).
        let answer = self.shell.decide(|client| client.decide(messages, parse, stats, log), |a| a.map(Some), || None);
        let faults = self.shell.faults();
        debug_assert_eq!((faults.decisions, faults.illegal), (self.stats.decisions, self.stats.fallbacks));
        for call in self.scratch.drain(..) {
            self.calls.push(LlmCall {
                seat: self.shell.seat as u32,
                at: at.clone(),
                decision,
                prompt_version: self.prompt_version,
                call,
            });
        }
        answer
    }
}
