//! The scripted policies' lines (§10): fixed template families, pre-rendered for every target at
//! construction so a turn needs no formatting, allocation or hashing.

use super::super::agent::AgentId;
use super::super::text::Text;
use crate::seeding::Stream;

/// No suspect named.
pub const NEUTRAL: [&str; 4] = [
    "I have nothing solid yet; let's hear from everyone before we decide.",
    "Nobody has slipped up so far, so I'll keep listening.",
    "Let's compare what each of us has said and look for contradictions.",
    "I'm not ready to point fingers yet.",
];

/// Names one suspect as `{target}`.
pub const SUSPECT: [&str; 4] = [
    "I don't trust {target}; their story keeps shifting.",
    "{target} has been steering the conversation a little too carefully.",
    "My gut says {target} is hiding something.",
    "If I had to vote now, it would be {target}.",
];

/// The `reasoning` of a `defend`.
pub const DEFENSE_REASONING: [&str; 4] = [
    "The accusation has no evidence behind it, only a feeling.",
    "I have voted consistently and explained every vote.",
    "An imposter would want us arguing with each other instead of comparing notes.",
    "Look at who is pushing hardest to get me ejected.",
];

/// The `defense_statement` of a `defend`.
pub const DEFENSE_STATEMENT: [&str; 4] = [
    "I'm a crewmate, and ejecting me wastes a vote.",
    "I'm innocent; watch how my accuser votes.",
    "Vote me out and you'll lose a crewmate.",
    "I've been honest from the start.",
];

/// Every family rendered once per game (suspect lines once per target seat).
#[derive(Debug)]
pub struct Templates {
    neutral: Vec<Text>,
    suspect: Vec<Vec<Text>>,
    reasoning: Vec<Text>,
    statement: Vec<Text>,
}

impl Templates {
    /// Renders every template for seats `0..n`.
    pub fn new(n: usize) -> Templates {
        let render = |family: &[&'static str]| family.iter().map(|s| Text::from_static(s)).collect::<Vec<_>>();
        Templates {
            neutral: render(&NEUTRAL),
            suspect: (0..n)
                .map(|seat| {
                    let id = AgentId::seat(seat).to_string();
                    SUSPECT.iter().map(|s| Text::new(&s.replace("{target}", &id))).collect()
                })
                .collect(),
            reasoning: render(&DEFENSE_REASONING),
            statement: render(&DEFENSE_STATEMENT),
        }
    }

    /// A `neutral` line: entry index(len).
    pub fn neutral(&self, rng: &mut Stream) -> Text {
        self.neutral[rng.index(self.neutral.len())].clone()
    }

    /// A `suspect` line naming `target`: entry index(len).
    pub fn suspect(&self, target: AgentId, rng: &mut Stream) -> Text {
        let family = &self.suspect[target.index()];
        family[rng.index(family.len())].clone()
    }

    /// A defence: reasoning, then statement, each entry index(len).
    pub fn defense(&self, rng: &mut Stream) -> (Text, Text) {
        let r = self.reasoning[rng.index(self.reasoning.len())].clone();
        let s = self.statement[rng.index(self.statement.len())].clone();
        (r, s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::text::MAX_TEXT_CHARS;
    use super::*;

    #[test]
    fn every_rendered_line_is_valid_text() {
        let t = Templates::new(10);
        let all = t.neutral.iter().chain(t.suspect.iter().flatten()).chain(&t.reasoning).chain(&t.statement);
        for line in all {
            assert!((1..=MAX_TEXT_CHARS).contains(&line.chars()), "{line:?}");
            assert!(!line.as_str().contains('{'), "{line:?} left a placeholder");
        }
        assert!(t.suspect[7][0].as_str().contains("agent_7"));
    }
}
