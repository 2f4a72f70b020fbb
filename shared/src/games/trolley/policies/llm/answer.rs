//! Mapping a model's answer to a [`TrolleyAction`] (§11): the first balanced JSON object,
//! `action` naming `argue`, `skip` or `decide` with its `parameters`, the top-level `reasoning`
//! as the replay's note, then the rules module's own checks (in the §6 order) against the state
//! the engine will step. Every refusal names what was wrong and carries a corrective message.
//!
//! Refusal reasons: `no_json_object`, `invalid_json`, `unknown_action`, or a §6 kind:
//! `malformed_body` for a missing or mistyped field, and whatever the rules refuse
//! (`wrong_role`, `wrong_phase`, `duplicate_argument`, `invalid_decision`, `text_length`, …).

use serde_json::{Map, Value};

use super::super::super::engine::{check_action, TrolleyAction};
use super::super::super::error::TrolleyError;
use super::super::super::observation::Observation;
use super::super::super::state::TrolleyState;
use super::super::super::text::ArgText;
use super::prompt::legal_section;
use crate::llm::{first_json_object, Rejection};

/// The longest `reasoning` kept, in Unicode scalar values.
pub const MAX_REASONING_CHARS: usize = 2000;

/// An accepted answer: the action (valid against the state) and the model's reasoning (cut to
/// [`MAX_REASONING_CHARS`]; empty if none was given).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The action to play.
    pub action: TrolleyAction,
    /// The private note.
    pub reasoning: String,
}

/// Parses `answer` for `seat` and checks it against `state` through the rules; `obs` is the
/// seat's observation (for the corrective message).
pub fn parse(answer: &str, state: &TrolleyState, seat: usize, obs: &Observation) -> Result<Answer, Rejection> {
    let reject = |reason: &str, problem: String| Rejection {
        reason: reason.to_string(),
        corrective: format!("Your answer could not be used: {problem}.\n{}", legal_section(obs)),
    };
    let malformed = |problem: &str| reject("malformed_body", problem.to_string());
    let object = first_json_object(answer).ok_or_else(|| reject("no_json_object", "it holds no JSON object".into()))?;
    let value: Value = serde_json::from_str(object)
        .map_err(|e| reject("invalid_json", format!("the JSON object does not parse ({e})")))?;
    let Value::Object(top) = value else { unreachable!("a balanced {{…}} that parses is an object") };
    let Some(Value::String(name)) = top.get("action") else {
        return Err(malformed("\"action\" must be a string naming an action"));
    };
    let empty = Map::new();
    let params = match top.get("parameters") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(malformed("\"parameters\" must be an object")),
    };
    let checked = match name.trim() {
        "argue" => {
            let Some(Value::String(text)) = params.get("text") else {
                return Err(malformed("argue needs \"parameters\": {\"text\": \"<your argument>\"}"));
            };
            let action = TrolleyAction::Argue { text: ArgText::new(text) };
            check_action(state, seat, &action).map(|()| action)
        }
        "skip" => check_action(state, seat, &TrolleyAction::SKIP).map(|()| TrolleyAction::SKIP),
        "decide" => {
            let Some(Value::String(raw)) = params.get("decision") else {
                return Err(malformed(
                    "decide needs \"parameters\": {\"decision\": \"save_majority\" or \"save_minority\"}",
                ));
            };
            state
                .current_round()
                .ok_or(TrolleyError::NotStarted)
                .and_then(|r| state.check_decision(r.id, seat, raw))
                .map(|decision| TrolleyAction::Decide { decision })
        }
        other => {
            return Err(reject(
                "unknown_action",
                format!("{other:?} is not an action (the actions are argue, skip, decide)"),
            ))
        }
    };
    let action = checked.map_err(|e| reject(e.kind(), format!("the action is refused ({}): {e}", e.kind())))?;
    let reasoning = match top.get("reasoning") {
        Some(Value::String(r)) => r.trim().chars().take(MAX_REASONING_CHARS).collect(),
        _ => String::new(),
    };
    Ok(Answer { action, reasoning })
}
