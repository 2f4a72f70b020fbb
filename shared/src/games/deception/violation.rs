//! Why an action is illegal (§7): the violations, in check order, and their record names.

use std::fmt;

use serde::{Serialize, Serializer};

/// A text parameter, named as in violations (`discuss.message`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TextField {
    /// `discuss.message`.
    DiscussMessage,
    /// `defend.reasoning`.
    DefendReasoning,
    /// `defend.defense_statement`.
    DefendStatement,
}

impl TextField {
    /// The dotted name.
    pub const fn as_str(self) -> &'static str {
        match self {
            TextField::DiscussMessage => "discuss.message",
            TextField::DefendReasoning => "defend.reasoning",
            TextField::DefendStatement => "defend.defense_statement",
        }
    }
}

/// Why an action is illegal (§7). Checked in the order of the variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleViolation {
    /// The game is over.
    GameOver,
    /// The actor is not a seat of the game.
    UnknownAgent,
    /// The actor was ejected.
    ActorInactive,
    /// A discussion action while voting, or a vote while discussing.
    WrongPhase,
    /// A discussion action by someone other than the current speaker.
    NotYourTurn,
    /// The target is not a seat of the game.
    UnknownTarget,
    /// The target was ejected.
    TargetInactive,
    /// The actor targets itself.
    SelfTarget,
    /// A text parameter is empty after trimming.
    EmptyText {
        /// Which parameter.
        field: TextField,
    },
    /// A text parameter exceeds 500 characters after trimming.
    TextTooLong {
        /// Which parameter.
        field: TextField,
    },
    /// The private note exceeds 2000 characters.
    NoteTooLong,
    /// `abstain` while the scenario does not allow it.
    AbstainNotAllowed,
}

impl RuleViolation {
    /// Every kind name, in check order (the keys of `invalid_by_kind`).
    pub const KINDS: [&'static str; 12] = [
        "game_over",
        "unknown_agent",
        "actor_inactive",
        "wrong_phase",
        "not_your_turn",
        "unknown_target",
        "target_inactive",
        "self_target",
        "empty_text",
        "text_too_long",
        "note_too_long",
        "abstain_not_allowed",
    ];

    /// Index into [`RuleViolation::KINDS`].
    pub const fn kind_index(self) -> usize {
        match self {
            RuleViolation::GameOver => 0,
            RuleViolation::UnknownAgent => 1,
            RuleViolation::ActorInactive => 2,
            RuleViolation::WrongPhase => 3,
            RuleViolation::NotYourTurn => 4,
            RuleViolation::UnknownTarget => 5,
            RuleViolation::TargetInactive => 6,
            RuleViolation::SelfTarget => 7,
            RuleViolation::EmptyText { .. } => 8,
            RuleViolation::TextTooLong { .. } => 9,
            RuleViolation::NoteTooLong => 10,
            RuleViolation::AbstainNotAllowed => 11,
        }
    }

    /// The snake_case kind name (without the field).
    pub const fn kind(self) -> &'static str {
        Self::KINDS[self.kind_index()]
    }
}

impl fmt::Display for RuleViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleViolation::EmptyText { field } | RuleViolation::TextTooLong { field } => {
                write!(f, "{} ({})", self.kind(), field.as_str())
            }
            _ => f.write_str(self.kind()),
        }
    }
}

impl Serialize for RuleViolation {
    /// `"self_target"`, or `{"empty_text": {"field": "discuss.message"}}` for text violations.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RuleViolation::EmptyText { field } | RuleViolation::TextTooLong { field } => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(self.kind(), &serde_json::json!({ "field": field.as_str() }))?;
                m.end()
            }
            _ => s.serialize_str(self.kind()),
        }
    }
}
