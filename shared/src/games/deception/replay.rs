//! The JSON replay (§11), built only when a job asks: the common fields (docs/protocol.md), then the roles,
//! every step with its actions and events, and the `llm` seats' calls.

use serde::Serialize;
use serde_json::{Map, Value};

use super::action::GameAction;
use super::agent::{AgentId, Role};
use super::event::GameEvent;
use super::policies::LlmCall;
use super::rules::RuleViolation;
use super::scenario::ScenarioConfig;
use super::state::Phase;
use crate::protocol::EpisodeRecord;

/// One applied action of a step.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayAction {
    /// The actor.
    pub agent: AgentId,
    /// The action name.
    pub action: &'static str,
    /// Its parameters.
    pub parameters: Map<String, Value>,
    /// The actor's private note.
    pub note: String,
    /// Whether the engine substituted it for an invalid action (§8).
    pub fallback: bool,
    /// Why the policy's own action was rejected, when `fallback`.
    pub violation: Option<RuleViolation>,
}

impl ReplayAction {
    /// The replay entry of an applied action.
    pub fn new(action: &GameAction, violation: Option<RuleViolation>) -> ReplayAction {
        ReplayAction {
            agent: action.agent_id,
            action: action.kind.name(),
            parameters: action.kind.parameters(),
            note: action.note.as_str().to_string(),
            fallback: violation.is_some(),
            violation,
        }
    }
}

/// One step: the phase it was played in, its actions in seat order and the events it emitted.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayStep {
    /// The tick.
    pub tick: u32,
    /// The phase before the step.
    pub phase: Phase,
    /// Applied actions.
    pub actions: Vec<ReplayAction>,
    /// Emitted events.
    pub events: Vec<GameEvent>,
}

/// The whole replay object.
#[derive(Debug, Serialize)]
pub struct Replay<'a> {
    /// `deception-rules-1`.
    pub rules_version: &'static str,
    /// `deception`.
    pub game: &'static str,
    /// The seed as a decimal string.
    pub seed: String,
    /// Every field resolved.
    pub scenario: &'a ScenarioConfig,
    /// Policy specs by seat.
    pub policies: &'a [String],
    /// The episode record (identical to the one returned without a replay).
    pub record: &'a EpisodeRecord,
    /// Roles by seat.
    pub roles: Vec<Role>,
    /// Every step.
    pub steps: &'a [ReplayStep],
    /// Every call of the `llm` seats.
    pub llm_calls: Vec<&'a LlmCall>,
}

impl Replay<'_> {
    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("replay values always serialise")
    }
}
