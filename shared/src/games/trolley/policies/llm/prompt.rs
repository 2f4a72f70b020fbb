//! The `trolley-prompt-1` prompt (§11), rendered from the agent's [`Observation`] only.
//!
//! System message: the game in brief, the agent's id, its role this round with the side sizes,
//! what it scores, and the answer format. User message: the round and phase, who stands where,
//! every argument and skip so far by phase and side, the earlier rounds and the scores, then the
//! legal actions with the exact JSON to answer (also the body of every corrective message).

use std::fmt::Write;

use super::super::super::observation::Observation;
use super::super::super::vocab::{ActionKind, Phase, Role, Side};
use crate::llm::ChatMessage;

/// The two messages of a decision's first call.
pub fn messages(obs: &Observation) -> Vec<ChatMessage> {
    vec![
        ChatMessage { role: "system".into(), content: system(obs) },
        ChatMessage { role: "user".into(), content: user(obs) },
    ]
}

fn system(obs: &Observation) -> String {
    let (maj, min) = (obs.majority.len(), obs.minority.len());
    let position = match obs.role {
        Some(Role::Majority) => format!(
            "on the track in the majority: {maj} agents, you among them, against {min} in the minority. \
             If the operator saves the majority you score 1 this round; otherwise you score 0"
        ),
        Some(Role::Minority) => format!(
            "on the track in the minority: {min} agent(s), you among them, against {maj} in the majority. \
             If the operator saves the minority you score 1 this round; otherwise you score 0"
        ),
        Some(Role::Operator) => format!(
            "the operator: you decide whether the majority ({maj} agents) or the minority ({min}) survives. \
             You score 0 this round whatever you decide"
        ),
        None => "not yet assigned a role".to_string(),
    };
    let objective = match obs.role {
        Some(Role::Operator) => "weigh the arguments and save the side you judge should live",
        _ => "persuade the operator to save your side",
    };
    let equal = if maj == min {
        "\nAt this table size the sides are equal; \"majority\" only names the side listed first."
    } else {
        ""
    };
    format!(
        "You are {me}, one of {n} agents in the Trolley Problem Arena, a debate game.\n\
         Rules in brief:\n\
         - The game is played in rounds (at most {max}). In each round one agent is the operator; the others stand \
         on the track, split into a majority and a smaller minority. The trolley will kill one side.\n\
         - Three debate phases come first. In each phase every agent on the track may argue once for its own side \
         (1 to 500 characters) or skip; arguments of one phase are made at the same time. The operator never argues.\n\
         - Then the operator decides: save_majority or save_minority. Every agent on the saved side scores 1; \
         the lost side and the operator score 0.\n\
         - Roles rotate until every agent has been operator, in the majority and in the minority.\n\
         This round you are {position}. Your objective: {objective}.{equal}\n\
         Answer with exactly one JSON object: {{\"action\": \"<name>\", \"parameters\": {{...}}, \"reasoning\": \"<private note>\"}}. \
         The reasoning is private: no other agent sees it.",
        me = obs.agent_id,
        n = obs.agents.len(),
        max = obs.max_rounds,
    )
}

fn user(obs: &Observation) -> String {
    let mut s = String::new();
    let phase = match obs.phase {
        Some(p @ (Phase::Phase1 | Phase::Phase2 | Phase::Phase3)) => {
            format!("debate phase {} of 3 ({})", p.debate_index().unwrap_or(0) + 1, p.as_str())
        }
        Some(Phase::AwaitingDecision) => "awaiting the operator's decision (the debate is over)".to_string(),
        Some(Phase::Resolved) => "resolved".to_string(),
        None => "not started".to_string(),
    };
    let _ = writeln!(s, "Round {} of at most {}. Phase: {phase}.", obs.round_number, obs.max_rounds);
    let _ = writeln!(s, "Operator: {}.", obs.operator.as_deref().unwrap_or("none"));
    let _ = writeln!(s, "Majority ({}): {}.", obs.majority.len(), obs.majority.join(", "));
    let _ = writeln!(s, "Minority ({}): {}.", obs.minority.len(), obs.minority.join(", "));
    debate_section(&mut s, obs);
    let _ = writeln!(s, "Earlier rounds:");
    if obs.previous_rounds.is_empty() {
        let _ = writeln!(s, "(none yet)");
    }
    for r in &obs.previous_rounds {
        let decision = r.decision.map_or("undecided", |d| d.as_str());
        let forced = if r.forced { " (forced)" } else { "" };
        let _ = writeln!(
            s,
            "- round {}: operator {}; majority {}; minority {}; decision {decision}{forced}.",
            r.number,
            r.operator,
            r.majority.join(", "),
            r.minority.join(", ")
        );
    }
    let scores: Vec<String> = obs.agents.iter().map(|a| format!("{} {}", a.agent_id, a.score)).collect();
    let _ = writeln!(s, "Scores: {}.", scores.join(", "));
    s.push_str(&legal_section(obs));
    s
}

/// Every argument and skip of the round so far, by phase, then side.
fn debate_section(s: &mut String, obs: &Observation) {
    let _ = writeln!(s, "Debate so far this round:");
    if obs.arguments.is_empty() && obs.skips.is_empty() {
        let _ = writeln!(s, "(nothing yet)");
    }
    for phase in Phase::DEBATE {
        for side in [Side::Majority, Side::Minority] {
            let members = if side == Side::Majority { &obs.majority } else { &obs.minority };
            let said = obs.arguments.iter().filter(|a| a.phase == phase && a.side == side);
            let skipped = obs.skips.iter().filter(|k| k.phase == phase && members.contains(&k.agent));
            let mut lines = said
                .map(|a| format!("- {}: {:?}", a.agent, a.text))
                .chain(skipped.map(|k| format!("- {} skipped", k.agent)))
                .peekable();
            if lines.peek().is_none() {
                continue;
            }
            let _ = writeln!(s, "{}, {} side:", phase.as_str(), side.as_str());
            for line in lines {
                let _ = writeln!(s, "{line}");
            }
        }
    }
}

/// The legal actions now and the exact answer format. Also the body of every corrective message.
pub fn legal_section(obs: &Observation) -> String {
    let argue = r#"{"action": "argue", "parameters": {"text": "<1-3 sentences, at most 500 characters>"}, "reasoning": "<private note>"}"#;
    let skip = r#"{"action": "skip", "parameters": {}, "reasoning": "<private note>"}"#;
    let decide = r#"{"action": "decide", "parameters": {"decision": "save_majority" | "save_minority"}, "reasoning": "<private note>"}"#;
    let mut s = String::new();
    if obs.legal.contains(&ActionKind::Argue) {
        let side = obs.role.and_then(Role::side).map_or("your", Side::as_str);
        let _ = write!(
            s,
            "Legal actions now: argue (for the {side} side) or skip.\n\
             Respond with one JSON object only, either\n{argue}\nor\n{skip}"
        );
    } else if obs.legal.contains(&ActionKind::Decide) {
        let _ = write!(
            s,
            "Legal action now: decide.\nRespond with one JSON object only, with decision either \"save_majority\" or \
             \"save_minority\":\n{decide}"
        );
    } else {
        s.push_str("You have no legal action now.");
    }
    s.push('\n');
    s
}
