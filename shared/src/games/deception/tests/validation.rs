//! §7: every violation, in its order, and the state left unchanged by a refused step.

use std::collections::BTreeMap;

use super::*;
use crate::games::deception::rules::TextField;

fn check(s: &GameState, a: GameAction) -> Result<(), RuleViolation> {
    validate_action(s, &a)
}

#[test]
fn each_violation_is_reported() {
    use RuleViolation as V;
    // classic: tick 1 opens with agent_0 speaking.
    let mut s = game("classic_5p1i", &[4]);
    assert_eq!(s.current_speaker(), Some(id(0)));
    assert_eq!(check(&s, say(9, "hi")), Err(V::UnknownAgent));
    assert_eq!(
        check(&s, act(0, ActionKind::Vote { target: id(0) })),
        Err(V::WrongPhase),
        "a self-vote in discussion is wrong_phase"
    );
    assert_eq!(check(&s, say(1, "hi")), Err(V::NotYourTurn));
    assert_eq!(check(&s, act(0, ActionKind::Accuse { target: id(7) })), Err(V::UnknownTarget));
    assert_eq!(check(&s, act(0, ActionKind::Accuse { target: AgentId::UNKNOWN })), Err(V::UnknownTarget));
    assert_eq!(check(&s, act(0, ActionKind::Accuse { target: id(0) })), Err(V::SelfTarget));
    assert_eq!(check(&s, say(0, "   ")), Err(V::EmptyText { field: TextField::DiscussMessage }));
    let long = "x".repeat(501);
    assert_eq!(check(&s, say(0, &long)), Err(V::TextTooLong { field: TextField::DiscussMessage }));
    assert_eq!(check(&s, say(0, &format!("  {}  ", "é".repeat(500)))), Ok(()), "500 scalar values after trimming fit");
    let defend = |r: &str, d: &str| act(0, ActionKind::Defend { reasoning: r.into(), defense_statement: d.into() });
    assert_eq!(check(&s, defend("", "ok")), Err(V::EmptyText { field: TextField::DefendReasoning }));
    assert_eq!(check(&s, defend("ok", &long)), Err(V::TextTooLong { field: TextField::DefendStatement }));
    let mut noted = say(0, "hi");
    noted.note = "n".repeat(2001).as_str().into();
    assert_eq!(check(&s, noted.clone()), Err(V::NoteTooLong));
    noted.note = "n".repeat(2000).as_str().into();
    assert_eq!(check(&s, noted), Ok(()));

    // Eject agent_1 so that inactive actors and targets exist.
    vote(&mut s, &[(0, Some(1)), (1, Some(2)), (2, Some(1)), (3, Some(1)), (4, Some(1))]);
    assert_eq!(s.agents[1].status, Status::Ejected);
    let speaker = s.current_speaker().unwrap();
    assert_eq!(check(&s, say(1, "hi")), Err(V::ActorInactive));
    assert_eq!(check(&s, act(speaker.index(), ActionKind::Accuse { target: id(1) })), Err(V::TargetInactive));

    // Voting: abstain is refused where not allowed.
    let mut t = game("tiebreak_6p1i", &[5]);
    turn(&mut t, ActionKind::ProposeVote);
    assert_eq!(check(&t, act(0, ActionKind::Abstain)), Err(V::AbstainNotAllowed));
    assert_eq!(check(&t, act(0, ActionKind::Vote { target: id(0) })), Err(V::SelfTarget));
    assert_eq!(check(&t, act(0, ActionKind::Pass)), Err(V::WrongPhase));
    assert_eq!(check(&t, act(3, ActionKind::Vote { target: id(2) })), Ok(()), "everyone votes, not only the speaker");

    // Over: game_over comes first, whoever acts.
    let mut over = game("classic_5p1i", &[4]);
    vote(&mut over, &[(0, Some(4)), (1, Some(4)), (2, Some(4)), (3, Some(4)), (4, Some(0))]);
    assert!(is_terminal(&over));
    assert_eq!(check(&over, say(9, "")), Err(V::GameOver));
}

#[test]
fn violations_come_in_spec_order() {
    use RuleViolation as V;
    let s = game("classic_5p1i", &[4]);
    // Unknown actor beats everything else wrong with the action.
    assert_eq!(check(&s, act(9, ActionKind::Vote { target: id(9) })), Err(V::UnknownAgent));
    // Wrong phase beats not-your-turn and target problems.
    assert_eq!(check(&s, act(3, ActionKind::Vote { target: id(3) })), Err(V::WrongPhase));
    // Not-your-turn beats a bad target and bad text.
    assert_eq!(check(&s, act(2, ActionKind::Accuse { target: id(2) })), Err(V::NotYourTurn));
    // Target problems beat the note.
    let mut a = act(0, ActionKind::Accuse { target: id(0) });
    a.note = "n".repeat(3000).as_str().into();
    assert_eq!(check(&s, a), Err(V::SelfTarget));
    // Text beats the note.
    let mut a = say(0, "");
    a.note = "n".repeat(3000).as_str().into();
    assert_eq!(check(&s, a), Err(V::EmptyText { field: TextField::DiscussMessage }));
}

#[test]
fn refused_steps_leave_the_state_unchanged() {
    let mut s = game("classic_5p1i", &[4]);
    turn(&mut s, ActionKind::Pass);
    let before = s.clone();
    let mut m = BTreeMap::new();
    m.insert(id(3), say(3, "not my turn"));
    assert_eq!(step(&mut s, &m), Err(StepError::Invalid { agent: id(3), violation: RuleViolation::NotYourTurn }));
    assert_eq!(s, before);
    assert_eq!(
        step(&mut s, &BTreeMap::new()),
        Err(StepError::MissingActions { agents: [id(1)].into_iter().collect() })
    );
    assert_eq!(s, before);
    // A mismatched key is refused too.
    let mut m = BTreeMap::new();
    m.insert(id(2), say(1, "hi"));
    assert_eq!(step(&mut s, &m), Err(StepError::KeyMismatch { key: id(2), actor: id(1) }));
    assert_eq!(s, before);

    // Voting: the first invalid entry in seat order is reported, and missing voters are named.
    turn(&mut s, ActionKind::ProposeVote);
    let before = s.clone();
    let mut m: BTreeMap<AgentId, GameAction> =
        (0..5).map(|v| (id(v), act(v, ActionKind::Vote { target: id((v + 1) % 5) }))).collect();
    m.insert(id(3), act(3, ActionKind::Vote { target: id(3) }));
    m.insert(id(4), act(4, ActionKind::Pass));
    assert_eq!(step(&mut s, &m), Err(StepError::Invalid { agent: id(3), violation: RuleViolation::SelfTarget }));
    assert_eq!(s, before);
    m.remove(&id(3));
    m.remove(&id(4));
    assert_eq!(step(&mut s, &m), Err(StepError::MissingActions { agents: [id(3), id(4)].into_iter().collect() }));
    assert_eq!(s, before);
}

#[test]
fn legal_actions_only_for_who_must_act() {
    let mut s = game("classic_5p1i", &[4]);
    let l = legal_actions(&s, id(0));
    assert_eq!(l.kinds, &["discuss", "accuse", "defend", "propose_vote", "pass"]);
    assert_eq!(&*l.targets, &[id(1), id(2), id(3), id(4)]);
    assert!(legal_actions(&s, id(1)).kinds.is_empty());
    turn(&mut s, ActionKind::ProposeVote);
    assert_eq!(legal_actions(&s, id(2)).kinds, &["vote", "abstain"]);
    assert_eq!(&*legal_actions(&s, id(2)).targets, &[id(0), id(1), id(3), id(4)]);
    let mut t = game("tiebreak_6p1i", &[5]);
    turn(&mut t, ActionKind::ProposeVote);
    assert_eq!(legal_actions(&t, id(2)).kinds, &["vote"]);
}
