//! §5.1, §5.2, §6: setup, speaking order, discussion, observations and snapshots.

use super::*;
use crate::games::deception::env_rng::EnvRng;
use crate::games::deception::event::DiscussionEndCause;
use crate::games::deception::state::EndReason;

#[test]
fn reset_draws_roles_from_the_environment_shuffle() {
    let c = cfg("crowded_8p2i");
    for seed in 0..20 {
        let s = reset(&c, seed).unwrap();
        let mut v: Vec<usize> = (0..8).collect();
        EnvRng::new(seed).shuffle(&mut v);
        let imposters: Vec<usize> =
            s.agents.iter().filter(|a| a.role == Role::Imposter).map(|a| a.seat as usize).collect();
        let mut expected = v[..2].to_vec();
        expected.sort();
        assert_eq!(imposters, expected, "seed {seed}");
        assert_eq!((s.tick, s.phase, s.steps, s.events), (1, Phase::Discussion { round: 1, turn: 0 }, 0, 0));
        assert_eq!(s.env_rng.words(), 7, "shuffling 8 seats draws 7 words");
    }
    let mut bad = c.clone();
    bad.num_imposters = 4;
    assert_eq!(reset(&bad, 1).unwrap_err().field.name(), "num_imposters");
}

#[test]
fn speaking_order_rotates_by_tick_and_skips_the_ejected() {
    let mut s = game("classic_5p1i?discussion_rounds_per_tick=1", &[4]);
    assert_eq!(&*s.turn_order, &[id(0), id(1), id(2), id(3), id(4)]);
    // One round: five turns in order, then voting.
    for expect in 0..5 {
        assert_eq!(expected_actors(&s).as_slice(), &[id(expect)]);
        turn(&mut s, ActionKind::Pass);
    }
    assert_eq!(s.phase, Phase::Voting);
    assert_eq!(expected_actors(&s).len(), 5);
    vote(&mut s, &[(0, Some(2)), (1, Some(2)), (2, Some(0)), (3, Some(2)), (4, Some(2))]);
    // Tick 2: L = [0, 1, 3, 4], o = 1.
    assert_eq!(s.tick, 2);
    assert_eq!(&*s.turn_order, &[id(1), id(3), id(4), id(0)]);
    vote(&mut s, &[(0, None), (1, None), (3, None), (4, None)]);
    // Tick 3: o = 2.
    assert_eq!(&*s.turn_order, &[id(3), id(4), id(0), id(1)]);
}

#[test]
fn rounds_and_proposals_end_the_discussion() {
    let mut s = game("quick_4p1i?discussion_rounds_per_tick=2", &[3]);
    let mut turns = 0;
    while matches!(s.phase, Phase::Discussion { .. }) {
        let target = id(if s.current_speaker() == Some(id(0)) { 1 } else { 0 });
        let ev = turn(&mut s, ActionKind::Accuse { target });
        turns += 1;
        assert!(ev.iter().all(|e| !matches!(e.kind, EventKind::AgentEjected { .. })), "accusations never eject");
        if turns == 8 {
            assert_eq!(
                ev.last().unwrap().kind,
                EventKind::DiscussionEnded { cause: DiscussionEndCause::RoundsExhausted }
            );
        }
    }
    assert_eq!(turns, 8, "A × rounds turns at most");
    assert!(s.agents.iter().all(|a| a.status == Status::Alive));

    let mut s = game("quick_4p1i?discussion_rounds_per_tick=2", &[3]);
    turn(&mut s, ActionKind::Pass);
    let ev = turn(&mut s, ActionKind::ProposeVote);
    assert_eq!(s.phase, Phase::Voting, "propose_vote moves to voting at once");
    let kinds: Vec<&EventKind> = ev.iter().map(|e| &e.kind).collect();
    assert_eq!(
        kinds,
        [&EventKind::VoteProposed, &EventKind::DiscussionEnded { cause: DiscussionEndCause::VoteProposed }]
    );
    assert_eq!((ev[0].seq, ev[1].seq, ev[0].actor, ev[1].actor), (1, 2, Some(id(1)), None));
    assert_eq!(s.discussion.len(), 2, "pass and propose_vote are messages too");
    assert_eq!((s.discussion[1].seq, s.discussion[1].tick, s.discussion[1].round), (1, 1, 1));
}

#[test]
fn zero_rounds_make_every_step_a_vote() {
    let mut s = game("classic_5p1i?discussion_rounds_per_tick=0&max_ticks=3", &[4]);
    for tick in 1..=3 {
        assert_eq!((s.tick, s.phase), (tick, Phase::Voting));
        vote(&mut s, &[(0, None), (1, None), (2, None), (3, None), (4, None)]);
    }
    assert!(s.discussion.is_empty());
    assert_eq!(s.result.unwrap().reason, EndReason::Timeout);
    assert_eq!(s.steps, 3);
}

#[test]
fn observations_hide_living_roles_and_current_votes() {
    let mut s = game("crowded_8p2i", &[3, 6]);
    turn(&mut s, ActionKind::Accuse { target: id(3) });
    for o in observations(&s) {
        let json = serde_json::to_string(&o).unwrap();
        for a in o.agents.iter() {
            assert_eq!(a.revealed_role, None);
        }
        let mentions_imposter = json.contains("imposter\"");
        assert_eq!(mentions_imposter, o.own_role == Role::Imposter, "seat {}: {json}", o.seat);
        assert!(!json.contains("env_rng") && !json.contains("note"));
        assert_eq!((o.imposters_remaining, o.crewmates_remaining), (2, 6));
    }
    // Imposters are not told who the other imposter is.
    let o3 = observation(&s, id(3)).unwrap();
    assert_eq!(o3.own_role, Role::Imposter);
    assert!(o3.agents.iter().all(|a| a.revealed_role.is_none()));
    // After an ejection the role is public; the count follows.
    vote(
        &mut s,
        &[
            (0, Some(6)),
            (1, Some(6)),
            (2, Some(6)),
            (3, Some(6)),
            (4, Some(6)),
            (5, Some(6)),
            (6, Some(0)),
            (7, Some(6)),
        ],
    );
    let o = observation(&s, id(0)).unwrap();
    assert_eq!(o.agents.get(6).unwrap().revealed_role, Some(Role::Imposter));
    assert_eq!((o.imposters_remaining, o.crewmates_remaining), (1, 6));
    assert_eq!(o.votes.len(), 1);
    assert_eq!(observation(&s, id(6)).unwrap().legal, Default::default(), "the ejected are never asked to act");
}

#[test]
fn json_round_trip_mid_game_continues_identically() {
    let mut s = game("tiebreak_6p1i", &[2]);
    turn(&mut s, ActionKind::Defend { reasoning: "r".into(), defense_statement: "d".into() });
    vote(&mut s, &[(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(0)), (4, Some(5)), (5, Some(4))]);
    let json = serde_json::to_string(&snapshot(&s)).unwrap();
    let mut back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    let alive: Vec<(usize, Option<usize>)> =
        s.active().map(|a| a.seat as usize).map(|v| (v, Some(if v == 2 { 3 } else { 2 }))).collect();
    let a = vote(&mut s, &alive);
    let b = vote(&mut back, &alive);
    assert_eq!(a, b);
    assert_eq!(back, s);
}
