//! The `llm` policy's text side (§11): how a model's answer maps to an action through the
//! rules (in the §6 order, with a corrective message), and what the `trolley-prompt-1`
//! messages show each role. No transport is involved; `llm.rs` plays whole episodes.

use super::*;
use crate::games::trolley::observation::observation;
use crate::games::trolley::policies::llm::{answer, prompt};

#[test]
fn answers_map_to_actions_through_the_rules() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 3);
    let r = current(&s);
    let (op, side) = (usize::from(r.operator), r.majority.iter().next().unwrap());
    let side_obs = observation(&s, side);
    let parse = |s: &TrolleyState, seat: usize, text: &str| answer::parse(text, s, seat, &observation(s, seat));
    let ok =
        parse(&s, side, r#"Sure. {"action": "argue", "parameters": {"text": " a } b "}, "reasoning": "r {x}"} {}"#);
    let ok = ok.unwrap();
    assert_eq!((ok.action, ok.reasoning.as_str()), (TrolleyAction::Argue { text: ArgText::new("a } b") }, "r {x}"));
    assert_eq!(parse(&s, side, r#"{"action": "skip"}"#).unwrap().action, TrolleyAction::SKIP);
    let long = format!(r#"{{"action": "skip", "parameters": {{}}, "reasoning": "{}"}}"#, "r".repeat(3000));
    assert_eq!(parse(&s, side, &long).unwrap().reasoning.chars().count(), answer::MAX_REASONING_CHARS);
    let reason = |s: &TrolleyState, seat: usize, text: &str| parse(s, seat, text).unwrap_err().reason;
    assert_eq!(reason(&s, side, "I skip."), "no_json_object");
    assert_eq!(reason(&s, side, r#"{"action": skip}"#), "invalid_json");
    assert_eq!(reason(&s, side, r#"{"act": "skip"}"#), "malformed_body");
    assert_eq!(reason(&s, side, r#"{"action": "skip", "parameters": []}"#), "malformed_body");
    assert_eq!(reason(&s, side, r#"{"action": "argue", "parameters": {"text": 3}}"#), "malformed_body");
    assert_eq!(reason(&s, side, r#"{"action": "fly", "parameters": {}}"#), "unknown_action");
    // The rules decide, in the §6 order: role before phase before value.
    let decide = |d: &str| format!(r#"{{"action": "decide", "parameters": {{"decision": "{d}"}}}}"#);
    assert_eq!(reason(&s, side, &decide("save_majority")), "wrong_role");
    assert_eq!(reason(&s, op, r#"{"action": "argue", "parameters": {"text": "hi"}}"#), "wrong_role");
    assert_eq!(reason(&s, op, &decide("save_all")), "wrong_phase");
    assert_eq!(reason(&s, side, r#"{"action": "argue", "parameters": {"text": "   "}}"#), "text_length");
    let too_long = format!(r#"{{"action": "argue", "parameters": {{"text": "{}"}}}}"#, "é".repeat(501));
    assert_eq!(reason(&s, side, &too_long), "text_length");
    let refused = answer::parse(&decide("save_majority"), &s, side, &side_obs).unwrap_err();
    assert!(refused.corrective.contains("wrong_role"), "{}", refused.corrective);
    assert!(refused.corrective.contains("Legal actions now: argue (for the majority side) or skip"));
    // A seat that already acted in this phase.
    s.skip(r.id, side, SkipCause::Agent, &mut NoEvents).unwrap();
    assert_eq!(reason(&s, side, r#"{"action": "skip"}"#), "duplicate_argument");
    // Awaiting the decision: only the operator's exact decision values pass.
    all_skip(&mut s);
    all_skip(&mut s);
    all_skip(&mut s);
    assert_eq!(current(&s).phase, Phase::AwaitingDecision);
    let got = parse(&s, op, &decide("save_minority")).unwrap().action;
    assert_eq!(got, TrolleyAction::Decide { decision: Decision::SaveMinority });
    assert_eq!(reason(&s, op, &decide("Save_Majority")), "invalid_decision");
    assert_eq!(reason(&s, side, r#"{"action": "skip"}"#), "wrong_phase");
}

#[test]
fn prompts_render_the_observation_for_each_role() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 4);
    let r = current(&s);
    let (op, minority) = (usize::from(r.operator), r.minority.iter().next().unwrap());
    let majority: Vec<usize> = r.majority.iter().collect();
    s.submit_argument(r.id, majority[0], &ArgText::new("Numbers matter."), &mut NoEvents).unwrap();
    s.submit_argument(r.id, minority, &ArgText::new("We are people too."), &mut NoEvents).unwrap();
    for &seat in &majority[1..] {
        s.skip(r.id, seat, SkipCause::Agent, &mut NoEvents).unwrap();
    }
    let m = prompt::messages(&observation(&s, minority));
    assert_eq!((m[0].role.as_str(), m[1].role.as_str()), ("system", "user"));
    assert!(m[0].content.contains(&format!("You are agent_{minority}")));
    assert!(m[0].content.contains("in the minority: 1 agent(s), you among them, against 3 in the majority"));
    assert!(m[0].content.contains("you score 1"), "{}", m[0].content);
    let user = &m[1].content;
    assert!(user.contains("Round 1 of at most 20. Phase: debate phase 2 of 3 (phase_2)."), "{user}");
    assert!(user.contains("phase_1, majority side:\n- agent_") && user.contains("\"Numbers matter.\""), "{user}");
    assert!(user.contains("phase_1, minority side:\n") && user.contains("\"We are people too.\""));
    assert!(user.contains(&format!("- agent_{} skipped", majority[1])));
    assert!(user.contains("Earlier rounds:\n(none yet)"));
    assert!(user.contains("Legal actions now: argue (for the minority side) or skip."));
    // The operator, once the debate is over, and the next round's history.
    all_skip(&mut s);
    all_skip(&mut s);
    let m = prompt::messages(&observation(&s, op));
    assert!(m[0].content.contains("You score 0 this round whatever you decide"));
    assert!(m[1].content.contains("awaiting the operator's decision") && m[1].content.contains("Numbers matter."));
    assert!(m[1].content.contains("Legal action now: decide."));
    assert!(m[1].content.contains(r#""decision": "save_majority" | "save_minority""#));
    s.submit_decision(r.id, op, "save_minority", &mut NoEvents).unwrap();
    s.start_next_round(&mut NoEvents).unwrap();
    let m = prompt::messages(&observation(&s, op));
    assert!(m[1].content.contains(&format!("- round 1: operator agent_{op}; ")));
    assert!(m[1].content.contains("decision save_minority."));
    assert!(!m[1].content.contains("Numbers matter."), "only the current round's debate is shown");
    // At N = 3 the sides are equal and the prompt says so.
    let (s3, _) = started(3, MinoritySize::Balanced, None, 1);
    assert!(prompt::messages(&observation(&s3, 0))[0].content.contains("the sides are equal"));
}
