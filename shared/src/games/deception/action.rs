//! The actions of §3: discussion actions, voting actions, and their JSON form
//! `{"action": "<name>", "parameters": {…}}` (shared by replays, snapshots and the `llm` parser).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::agent::AgentId;
use super::text::Text;

/// What an agent does on its turn or in a vote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawAction", into = "RawAction")]
pub enum ActionKind {
    /// Say something.
    Discuss {
        /// The message.
        message: Text,
    },
    /// Accuse an active agent (recorded only: it never ejects nor starts a vote).
    Accuse {
        /// The accused.
        target: AgentId,
    },
    /// Answer suspicion.
    Defend {
        /// Why the speaker should not be suspected.
        reasoning: Text,
        /// What the speaker says in its defence.
        defense_statement: Text,
    },
    /// End the discussion of this tick at once and vote.
    ProposeVote,
    /// Say nothing this turn.
    Pass,
    /// Vote to eject an active agent other than the voter.
    Vote {
        /// The agent voted against.
        target: AgentId,
    },
    /// Vote for nobody (only when `allow_abstain`).
    Abstain,
}

/// The names of the actions, in action-code order (§11).
pub const ACTION_NAMES: [&str; 7] = ["discuss", "accuse", "defend", "propose_vote", "pass", "vote", "abstain"];

impl ActionKind {
    /// The snake_case action name.
    pub fn name(&self) -> &'static str {
        ACTION_NAMES[self.code() as usize]
    }

    /// The trajectory-hash action code (§11): discuss 0, accuse 1, defend 2, propose_vote 3,
    /// pass 4, vote 5, abstain 6.
    pub fn code(&self) -> u8 {
        match self {
            ActionKind::Discuss { .. } => 0,
            ActionKind::Accuse { .. } => 1,
            ActionKind::Defend { .. } => 2,
            ActionKind::ProposeVote => 3,
            ActionKind::Pass => 4,
            ActionKind::Vote { .. } => 5,
            ActionKind::Abstain => 6,
        }
    }

    /// Whether this is a discussion action (the others are voting actions).
    pub fn is_discussion(&self) -> bool {
        self.code() <= 4
    }

    /// The targeted agent of `accuse` and `vote`.
    pub fn target(&self) -> Option<AgentId> {
        match self {
            ActionKind::Accuse { target } | ActionKind::Vote { target } => Some(*target),
            _ => None,
        }
    }

    /// The parameters as a JSON object (field order of §3).
    pub fn parameters(&self) -> Map<String, Value> {
        let mut m = Map::new();
        match self {
            ActionKind::Discuss { message } => {
                m.insert("message".into(), Value::from(message.as_str()));
            }
            ActionKind::Accuse { target } | ActionKind::Vote { target } => {
                m.insert("target".into(), Value::from(target.to_string()));
            }
            ActionKind::Defend { reasoning, defense_statement } => {
                m.insert("reasoning".into(), Value::from(reasoning.as_str()));
                m.insert("defense_statement".into(), Value::from(defense_statement.as_str()));
            }
            ActionKind::ProposeVote | ActionKind::Pass | ActionKind::Abstain => {}
        }
        m
    }

    /// Builds an action from its name and parameters. Unknown extra parameters are ignored;
    /// a target that is not of the form `agent_<n>` becomes [`AgentId::UNKNOWN`] so that rule
    /// validation reports it as `unknown_target` in its proper order.
    pub fn from_json(name: &str, params: &Map<String, Value>) -> Result<ActionKind, String> {
        let text = |key: &str| -> Result<Text, String> {
            match params.get(key) {
                Some(Value::String(s)) => Ok(Text::new(s)),
                Some(_) => Err(format!("parameter {key:?} of {name:?} must be a string")),
                None => Err(format!("action {name:?} needs parameter {key:?}")),
            }
        };
        let target = || -> Result<AgentId, String> {
            match params.get("target") {
                Some(Value::String(s)) => Ok(AgentId::parse_lenient(s.trim())),
                Some(_) => Err(format!("parameter \"target\" of {name:?} must be an agent id string")),
                None => Err(format!("action {name:?} needs parameter \"target\"")),
            }
        };
        Ok(match name {
            "discuss" => ActionKind::Discuss { message: text("message")? },
            "accuse" => ActionKind::Accuse { target: target()? },
            "defend" => {
                ActionKind::Defend { reasoning: text("reasoning")?, defense_statement: text("defense_statement")? }
            }
            "propose_vote" => ActionKind::ProposeVote,
            "pass" => ActionKind::Pass,
            "vote" => ActionKind::Vote { target: target()? },
            "abstain" => ActionKind::Abstain,
            other => return Err(format!("unknown action {other:?} (one of {})", ACTION_NAMES.join(", "))),
        })
    }
}

/// The JSON shape of an action.
#[derive(Clone, Serialize, Deserialize)]
struct RawAction {
    action: String,
    #[serde(default)]
    parameters: Map<String, Value>,
}

impl TryFrom<RawAction> for ActionKind {
    type Error = String;
    fn try_from(raw: RawAction) -> Result<ActionKind, String> {
        ActionKind::from_json(&raw.action, &raw.parameters)
    }
}

impl From<ActionKind> for RawAction {
    fn from(a: ActionKind) -> RawAction {
        RawAction { action: a.name().to_string(), parameters: a.parameters() }
    }
}

/// One agent's action (§3). `note` is private: never shown to other agents nor hashed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameAction {
    /// The actor.
    pub agent_id: AgentId,
    /// What it does.
    #[serde(flatten)]
    pub kind: ActionKind,
    /// The actor's private note (at most 2000 characters).
    #[serde(default)]
    pub note: Text,
}

impl GameAction {
    /// An action without a note.
    pub fn new(agent_id: AgentId, kind: ActionKind) -> GameAction {
        GameAction { agent_id, kind, note: Text::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape_round_trips() {
        let a = GameAction::new(
            AgentId(1),
            ActionKind::Defend { reasoning: Text::new(" r "), defense_statement: Text::new("s") },
        );
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(
            json,
            r#"{"agent_id":"agent_1","action":"defend","parameters":{"reasoning":"r","defense_statement":"s"},"note":""}"#
        );
        let back: GameAction = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
        let pass: ActionKind = serde_json::from_str(r#"{"action":"pass"}"#).unwrap();
        assert_eq!(pass, ActionKind::Pass);
        assert_eq!(serde_json::to_string(&pass).unwrap(), r#"{"action":"pass","parameters":{}}"#);
    }

    #[test]
    fn codes_follow_the_hash_table() {
        let all = [
            ActionKind::Discuss { message: Text::new("x") },
            ActionKind::Accuse { target: AgentId(0) },
            ActionKind::Defend { reasoning: Text::new("a"), defense_statement: Text::new("b") },
            ActionKind::ProposeVote,
            ActionKind::Pass,
            ActionKind::Vote { target: AgentId(0) },
            ActionKind::Abstain,
        ];
        for (i, a) in all.iter().enumerate() {
            assert_eq!(a.code() as usize, i);
            assert_eq!(a.is_discussion(), i <= 4);
        }
        assert!(ActionKind::from_json("kill", &Map::new()).is_err());
        assert!(ActionKind::from_json("vote", &Map::new()).is_err());
    }
}
