//! The round rules (§4), scoring (§8) and the end condition.

use super::*;

#[test]
fn start_creates_round_one_in_phase_1_with_events() {
    let (s, events) = started(5, MinoritySize::Balanced, None, 1);
    assert_eq!(s.status(), GameStatus::InProgress);
    assert_eq!((s.max_rounds(), s.minority_size()), (20, 1));
    let r = current(&s);
    assert_eq!((r.number, r.phase), (1, Phase::Phase1));
    let kinds: Vec<_> = events.iter().map(Event::kind).collect();
    assert_eq!(kinds[0], "game_created");
    assert_eq!(kinds[1..6], ["agent_registered"; 5]);
    assert_eq!(kinds[6..], ["game_started", "round_started"]);
}

#[test]
fn phase_advances_only_when_every_side_agent_acted() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 2);
    let r = current(&s);
    let sides: Vec<_> = r.sides().iter().collect();
    for (i, &seat) in sides.iter().enumerate() {
        assert_eq!(current(&s).phase, Phase::Phase1, "after {i} actions");
        let mut events = Vec::new();
        let acted = if i % 2 == 0 {
            s.submit_argument(r.id, seat, &ArgText::new("  save us  "), &mut events).unwrap()
        } else {
            s.skip(r.id, seat, SkipCause::Agent, &mut events).unwrap()
        };
        let last = i == sides.len() - 1;
        assert_eq!(acted.phase_after, if last { Phase::Phase2 } else { Phase::Phase1 });
        assert_eq!(events.len(), if last { 2 } else { 1 });
        if last {
            assert_eq!(
                events[1],
                Event::PhaseAdvanced {
                    round: 1,
                    from: Phase::Phase1,
                    to: Phase::Phase2,
                    cause: AdvanceCause::AllActed
                }
            );
        }
    }
    assert_eq!(s.arguments()[0].text.as_str(), "save us");
    assert_eq!(s.arguments()[1].seq, 2);
    all_skip(&mut s);
    assert_eq!(current(&s).phase, Phase::Phase3);
    all_skip(&mut s);
    assert_eq!(current(&s).phase, Phase::AwaitingDecision);
    assert_eq!(s.expected_actors().iter().collect::<Vec<_>>(), vec![usize::from(r.operator)]);
}

#[test]
fn resolution_scores_survivors_and_updates_coverage() {
    let (mut s, _) = started(6, MinoritySize::Balanced, None, 3);
    let r = current(&s);
    let res = play_round(&mut s, Decision::SaveMinority);
    assert_eq!((res.survivors, res.lost), (r.minority, r.majority));
    let after = current(&s);
    assert_eq!((after.phase, after.decision, after.forced), (Phase::Resolved, Some(Decision::SaveMinority), false));
    for a in s.agents() {
        let seat = usize::from(a.seat);
        assert_eq!(a.score, u32::from(r.minority.contains(seat)));
        assert_eq!(a.has_been_operator, seat == usize::from(r.operator));
        assert_eq!(a.has_been_majority, r.majority.contains(seat));
        assert_eq!(a.has_been_minority, r.minority.contains(seat));
        assert_eq!(a.rounds_as_operator + a.rounds_as_majority + a.rounds_as_minority, 1);
    }
    // The next round starts only when asked (the arena's pause).
    assert_eq!(s.rounds().len(), 1);
    s.start_next_round(&mut NoEvents).unwrap();
    assert_eq!(current(&s).number, 2);
}

#[test]
fn game_completes_after_exactly_n_rounds_with_scores_as_section_8() {
    for n in [3u8, 4, 5, 7, 10, 16] {
        let (mut s, _) = started(n, MinoritySize::Balanced, None, u64::from(n));
        let mut events = Vec::new();
        let mut decisions = Vec::new();
        while !s.is_terminal() {
            let d = if s.rounds().len() % 2 == 0 { Decision::SaveMajority } else { Decision::SaveMinority };
            decisions.push(d);
            let r = current(&s);
            for _ in 0..3 {
                all_skip(&mut s);
            }
            s.submit_decision(r.id, usize::from(r.operator), d.as_str(), &mut events).unwrap();
            if !s.is_terminal() {
                s.start_next_round(&mut events).unwrap();
            }
        }
        assert_eq!(s.status(), GameStatus::GameCompleted);
        assert_eq!(s.rounds().len(), usize::from(n));
        assert_eq!(events.last(), Some(&Event::GameCompleted { rounds: u32::from(n) }));
        let total: u32 = s.agents().iter().map(|a| a.score).sum();
        let expected: usize = s.rounds().iter().map(|r| r.survivors.len()).sum();
        assert_eq!(total as usize, expected);
        assert!(s.agents().iter().all(|a| a.rounds_as_operator == 1 && a.coverage().complete()));
    }
}

#[test]
fn save_majority_throughout_scores_majority_rounds() {
    let (mut s, _) = started(7, MinoritySize::Fixed(1), None, 11);
    while !s.is_terminal() {
        play_round(&mut s, Decision::SaveMajority);
        if !s.is_terminal() {
            s.start_next_round(&mut NoEvents).unwrap();
        }
    }
    assert!(s.agents().iter().all(|a| a.score == a.rounds_as_majority));
    assert!(s.agents().iter().all(|a| a.rounds_as_minority >= 1));
}

#[test]
fn max_rounds_below_n_truncates() {
    let (mut s, _) = started(5, MinoritySize::Balanced, Some(3), 4);
    let mut events = Vec::new();
    for round in 1..=3 {
        let r = current(&s);
        for _ in 0..3 {
            all_skip(&mut s);
        }
        let res = s.submit_decision(r.id, usize::from(r.operator), "save_majority", &mut events).unwrap();
        if round < 3 {
            assert_eq!(res.status, GameStatus::InProgress);
            s.start_next_round(&mut events).unwrap();
        } else {
            assert_eq!(res.status, GameStatus::GameTruncated);
        }
    }
    assert_eq!(events.last(), Some(&Event::GameTruncated { rounds: 3 }));
    assert!(s.is_terminal());
}

#[test]
fn deadlines_skip_missing_agents_and_force_the_default() {
    let config = TrolleyConfig { default_decision: Decision::SaveMinority, ..TrolleyConfig::default() };
    let mut s = TrolleyState::new_game(config, 8, 1000, &mut NoEvents).unwrap();
    for name in ["a", "b", "c", "d"] {
        s.register(name, name, &mut NoEvents).unwrap();
    }
    s.start(&mut NoEvents).unwrap();
    let r = current(&s);
    let first = r.sides().iter().next().unwrap();
    s.submit_argument(r.id, first, &ArgText::new("x"), &mut NoEvents).unwrap();
    let mut events = Vec::new();
    assert_eq!(s.expire_phase(&mut events).unwrap(), Phase::Phase2);
    let skipped: Vec<_> = s.skips().iter().map(|k| (k.agent as usize, k.cause)).collect();
    let expected: Vec<_> = r.sides().iter().filter(|&x| x != first).map(|x| (x, SkipCause::Deadline)).collect();
    assert_eq!(skipped, expected);
    assert_eq!(
        events.last(),
        Some(&Event::PhaseAdvanced { round: 1, from: Phase::Phase1, to: Phase::Phase2, cause: AdvanceCause::Deadline })
    );
    // Admin next_phase: cause admin.
    s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
    assert!(s.skips()[expected.len()..].iter().all(|k| k.cause == SkipCause::Admin));
    s.expire_phase(&mut NoEvents).unwrap();
    assert_eq!(s.waiting_on(), Waiting::Decision);
    let res = s.expire_decision(&mut NoEvents).unwrap();
    assert_eq!(res.decision, Decision::SaveMinority);
    assert!(current(&s).forced);
    assert_eq!(s.waiting_on(), Waiting::NextRound);
    // In `resolved`, admin next_phase starts the next round.
    assert_eq!(s.advance(AdvanceAction::NextPhase, &mut NoEvents).unwrap(), Phase::Phase1);
    assert_eq!(current(&s).number, 2);
    assert_eq!(current(&s).id, RoundId(1002));
}

#[test]
fn admin_resolve_round_is_forced_with_the_given_or_default_decision() {
    let (mut s, _) = started(4, MinoritySize::Balanced, None, 5);
    for _ in 0..3 {
        all_skip(&mut s);
    }
    let mut events = Vec::new();
    s.advance(AdvanceAction::ResolveRound { decision: Some("save_minority") }, &mut events).unwrap();
    assert!(matches!(events[0], Event::RoundResolved { decision: Decision::SaveMinority, forced: true, .. }));
    s.start_next_round(&mut NoEvents).unwrap();
    for _ in 0..3 {
        all_skip(&mut s);
    }
    s.advance(AdvanceAction::ResolveRound { decision: None }, &mut NoEvents).unwrap();
    assert_eq!(current(&s).decision, Some(Decision::SaveMajority));
}

#[test]
fn open_actions_follow_role_and_phase() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 6);
    let r = current(&s);
    let op = usize::from(r.operator);
    let side = r.sides().iter().next().unwrap();
    assert_eq!(s.open_actions(side).unwrap().allowed, &[ActionKind::Argue, ActionKind::Skip]);
    assert!(s.open_actions(op).unwrap().allowed.is_empty());
    s.skip(r.id, side, SkipCause::Agent, &mut NoEvents).unwrap();
    assert!(s.open_actions(side).unwrap().allowed.is_empty());
    all_skip(&mut s);
    all_skip(&mut s);
    all_skip(&mut s);
    assert_eq!(s.open_actions(op).unwrap().allowed, &[ActionKind::Decide]);
    assert_eq!(s.open_actions(99), Err(TrolleyError::AgentNotFound));
}

#[test]
fn registration_opens_ready_to_start_at_min_agents() {
    let config = TrolleyConfig { min_agents: 4, ..TrolleyConfig::default() };
    let mut s = TrolleyState::new_game(config, 1, 0, &mut NoEvents).unwrap();
    for (i, name) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        s.register(&format!("  {name} "), name, &mut NoEvents).unwrap();
        let expected = if i + 1 >= 4 { GameStatus::ReadyToStart } else { GameStatus::WaitingForAgents };
        assert_eq!(s.status(), expected);
    }
    assert_eq!(s.agents()[0].display_name, "a");
    s.start(&mut NoEvents).unwrap();
    // Unset minority and max_rounds resolve from the final N = 5.
    assert_eq!((s.minority_size(), s.max_rounds()), (1, 20));
}

#[test]
fn restart_equals_a_fresh_game() {
    let (mut s, _) = started(6, MinoritySize::Balanced, None, 1);
    play_round(&mut s, Decision::SaveMinority);
    s.restart(99, &mut NoEvents);
    s.start(&mut NoEvents).unwrap();
    let (fresh, _) = started(6, MinoritySize::Balanced, None, 99);
    assert_eq!(s, fresh);
}
