//! Mapping a model's answer to a [`GameAction`] (§10.3): the first balanced JSON object,
//! `action` naming an action of §3 with its `parameters`, `reasoning` as the private note, then
//! the rules' own validation. Every refusal comes with a corrective message.

use serde_json::{Map, Value};

use super::super::super::action::{ActionKind, GameAction};
use super::super::super::observation::AgentObservation;
use super::super::super::text::{Text, MAX_NOTE_CHARS};
use super::prompt::legal_section;
use crate::llm::{first_json_object, Rejection};

/// Parses and validates `answer` for the agent of `obs`.
pub fn parse(answer: &str, obs: &AgentObservation<'_>) -> Result<GameAction, Rejection> {
    let reject = |reason: &str, problem: String| Rejection {
        reason: reason.to_string(),
        corrective: format!("Your answer could not be used: {problem}.\n{}", legal_section(obs)),
    };
    let object = first_json_object(answer).ok_or_else(|| reject("no_json_object", "it holds no JSON object".into()))?;
    let value: Value = serde_json::from_str(object)
        .map_err(|e| reject("invalid_json", format!("the JSON object does not parse ({e})")))?;
    let Value::Object(top) = value else { unreachable!("a balanced {{…}} that parses is an object") };
    let Some(Value::String(name)) = top.get("action") else {
        return Err(reject("bad_shape", "\"action\" must be a string naming an action".into()));
    };
    let empty = Map::new();
    let params = match top.get("parameters") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(reject("bad_shape", "\"parameters\" must be an object".into())),
    };
    let kind = ActionKind::from_json(name.trim(), params).map_err(|e| reject("bad_action", e))?;
    let note = match top.get("reasoning") {
        Some(Value::String(r)) => {
            let cut: String = r.chars().take(MAX_NOTE_CHARS).collect();
            Text::new(&cut)
        }
        _ => Text::default(),
    };
    let action = GameAction { agent_id: obs.agent_id, kind, note };
    obs.check(&action).map_err(|v| reject(v.kind(), format!("the action is illegal: {v}")))?;
    Ok(action)
}
