//! §5.3–§5.5: votes, tallies, each eject rule and tie policy, role reveal and every end of game.

use super::*;
use crate::games::deception::env_rng::EnvRng;
use crate::games::deception::rules::Tally;
use crate::games::deception::scenario::{EjectRule, TiePolicy};
use crate::games::deception::state::{Ballot, EndReason, NoEjectionCause, VoteCount};

#[test]
fn unanimous_vote_ejects_and_reveals_the_role() {
    let mut s = game("classic_5p1i", &[4]);
    let ev = vote(&mut s, &[(0, Some(3)), (1, Some(3)), (2, Some(3)), (3, Some(0)), (4, Some(3))]);
    let kinds: Vec<&str> = ev
        .iter()
        .map(|e| match &e.kind {
            EventKind::VoteRecorded { .. } => "vote_recorded",
            EventKind::VotesTallied { .. } => "votes_tallied",
            EventKind::AgentEjected { .. } => "agent_ejected",
            EventKind::VoteProposed => "vote_proposed",
            EventKind::DiscussionEnded { .. } => "discussion_ended",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "vote_recorded",
            "vote_recorded",
            "vote_recorded",
            "vote_recorded",
            "vote_recorded",
            "votes_tallied",
            "agent_ejected"
        ]
    );
    assert_eq!(ev.last().unwrap().kind, EventKind::AgentEjected { agent: id(3), role: Role::Crewmate });
    assert_eq!((s.agents[3].status, s.agents[3].ejected_tick), (Status::Ejected, Some(1)));
    let round = &s.votes[0];
    assert_eq!(round.outcome, VoteOutcome::Ejected { agent: id(3), role: Role::Crewmate });
    assert_eq!(&*round.counts, &[VoteCount { target: id(0), votes: 1 }, VoteCount { target: id(3), votes: 4 }]);
    assert_eq!(round.votes.len(), 5);
    // From now on every observation shows agent_3's role.
    for o in observations(&s) {
        assert_eq!(o.agents.get(3).unwrap().revealed_role, Some(Role::Crewmate));
    }
    assert_eq!(s.tick, 2, "1 imposter against 3 crewmates plays on");
}

fn tally(votes: &[(usize, Option<usize>)], active: u32, rule: EjectRule, tie: TiePolicy, rng: &mut EnvRng) -> Tally {
    let ballots: Vec<Ballot> = votes.iter().map(|(v, t)| Ballot { voter: id(*v), target: t.map(id) }).collect();
    tally_votes(&ballots, active, rule, tie, rng)
}

#[test]
fn ties_follow_the_tie_policy() {
    let two_two = [(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(0))];
    let mut rng = EnvRng::new(5);
    let t = tally(&two_two, 4, EjectRule::Plurality, TiePolicy::NoEject, &mut rng);
    assert_eq!((t.decision, t.tie_broken_randomly, rng.words()), (Err(NoEjectionCause::Tie), false, 0));
    // With `random` the leaders [agent_0, agent_1] are indexed by one env draw.
    for seed in 0..16 {
        let mut rng = EnvRng::new(seed);
        let t = tally(&two_two, 4, EjectRule::Plurality, TiePolicy::Random, &mut rng);
        let expected = [id(0), id(1)][EnvRng::new(seed).index(2)];
        assert_eq!((t.decision, t.tie_broken_randomly, rng.words()), (Ok(expected), true, 1));
    }
    // A single leader draws nothing.
    let mut rng = EnvRng::new(5);
    let t = tally(&[(0, Some(1)), (1, Some(0)), (2, Some(1))], 3, EjectRule::Plurality, TiePolicy::Random, &mut rng);
    assert_eq!((t.decision, rng.words()), (Ok(id(1)), 0));

    // Through the engine: tiebreak_6p1i ejects one of the two tied agents.
    let mut s = game("tiebreak_6p1i", &[5]);
    vote(&mut s, &[(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(0)), (4, Some(2)), (5, Some(3))]);
    assert!(s.votes[0].tie_broken_randomly);
    assert!(matches!(s.votes[0].outcome.ejected(), Some(a) if a == id(0) || a == id(1)));
    let mut s = game("classic_5p1i", &[4]);
    vote(&mut s, &[(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(0)), (4, None)]);
    assert_eq!(s.votes[0].outcome, VoteOutcome::NoEjection { cause: NoEjectionCause::Tie });
    assert_eq!(s.votes[0].abstentions, 1);
}

#[test]
fn absolute_majority_needs_more_than_half_of_the_active() {
    let mut rng = EnvRng::new(1);
    let three = [(0, Some(6)), (1, Some(6)), (2, Some(6)), (3, Some(0)), (4, None), (5, None), (6, None)];
    let t = tally(&three, 7, EjectRule::AbsoluteMajority, TiePolicy::Random, &mut rng);
    assert_eq!(t.decision, Err(NoEjectionCause::NoMajority));
    let four = [(0, Some(6)), (1, Some(6)), (2, Some(6)), (3, Some(6)), (4, None), (5, None), (6, None)];
    assert_eq!(tally(&four, 7, EjectRule::AbsoluteMajority, TiePolicy::Random, &mut rng).decision, Ok(id(6)));
    assert_eq!(rng.words(), 0, "absolute majority never draws");

    let mut s = game("strict_majority_7p2i", &[5, 6]);
    vote(&mut s, &three);
    assert_eq!(s.votes[0].outcome, VoteOutcome::NoEjection { cause: NoEjectionCause::NoMajority });
    vote(&mut s, &four);
    assert_eq!(s.votes[1].outcome, VoteOutcome::Ejected { agent: id(6), role: Role::Imposter });
}

#[test]
fn all_abstaining_ejects_nobody() {
    let mut s = game("classic_5p1i", &[4]);
    vote(&mut s, &[(0, None), (1, None), (2, None), (3, None), (4, None)]);
    assert_eq!(s.votes[0].outcome, VoteOutcome::NoEjection { cause: NoEjectionCause::AllAbstained });
    assert!(s.votes[0].counts.is_empty());
    assert_eq!(s.votes[0].abstentions, 5);
}

#[test]
fn win_conditions_in_order() {
    // Ejecting the last imposter: crewmates.
    let mut s = game("classic_5p1i", &[2]);
    let ev = vote(&mut s, &[(0, Some(2)), (1, Some(2)), (2, Some(0)), (3, Some(2)), (4, Some(2))]);
    assert_eq!(s.result.map(|r| (r.winner, r.reason)), Some((Winner::Crewmates, EndReason::AllImpostersEjected)));
    assert_eq!(s.phase, Phase::Over);
    assert_eq!(
        ev.last().unwrap().kind,
        EventKind::GameOver { winner: Winner::Crewmates, reason: EndReason::AllImpostersEjected }
    );
    assert_eq!(s.tick, 1, "the tick of the final vote");
    assert!(expected_actors(&s).is_empty());
    assert_eq!(step(&mut s, &BTreeMap::new()), Err(StepError::GameOver));

    // 1 imposter against 2 crewmates plays on; 1 against 1 is parity.
    let mut s = game("quick_4p1i", &[3]);
    vote(&mut s, &[(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(1))]);
    assert!(s.result.is_none());
    assert_eq!((s.active_with(Role::Imposter), s.active_with(Role::Crewmate)), (1, 2));
    vote(&mut s, &[(0, Some(2)), (2, Some(0)), (3, Some(2))]);
    assert_eq!(s.result.map(|r| (r.winner, r.reason)), Some((Winner::Imposters, EndReason::ImposterParity)));

    // Reaching max_ticks: timeout_winner.
    for (scenario, winner) in
        [("quick_4p1i?max_ticks=2", Winner::Imposters), ("quick_4p1i?max_ticks=2&timeout_winner=none", Winner::None)]
    {
        let mut s = game(scenario, &[3]);
        vote(&mut s, &[(0, None), (1, None), (2, None), (3, None)]);
        assert!(s.result.is_none());
        vote(&mut s, &[(0, None), (1, None), (2, None), (3, None)]);
        assert_eq!(s.result.map(|r| (r.winner, r.reason)), Some((winner, EndReason::Timeout)));
        assert_eq!(s.tick, 2);
    }
    // On the last tick the earlier conditions win over the timeout.
    let mut s = game("classic_5p1i?num_imposters=2&max_ticks=1", &[3, 4]);
    vote(&mut s, &[(0, Some(1)), (1, Some(0)), (2, Some(1)), (3, Some(1)), (4, Some(1))]);
    assert_eq!(s.result.unwrap().reason, EndReason::ImposterParity);
    let mut s = game("quick_4p1i?max_ticks=1", &[3]);
    vote(&mut s, &[(0, Some(3)), (1, Some(3)), (2, Some(3)), (3, Some(0))]);
    assert_eq!(s.result.unwrap().reason, EndReason::AllImpostersEjected);
    let mut s = game("quick_4p1i?max_ticks=1", &[3]);
    vote(&mut s, &[(0, None), (1, Some(0)), (2, Some(0)), (3, Some(0))]);
    assert_eq!(s.result.unwrap().reason, EndReason::Timeout, "1 against 2 after one ejection is not parity");
}
