//! Property tests of §13's invariants over N, m, seeds and policy mixes.

use proptest::prelude::*;

use super::*;

const POLICIES: [&str; 8] = [
    "persuadable",
    "random",
    "utilitarian",
    "contrarian",
    "debater?operator=random&p_majority=0.9&skip=0.5",
    "persuadable?bias=-0.5&persuasion=1",
    "contrarian?skip=1",
    "random?skip=0&persuasion=0",
];

/// (N, m) with m valid for N.
fn n_and_m() -> impl Strategy<Value = (usize, usize)> {
    (3usize..=16).prop_flat_map(|n| {
        let max_m = if n == 3 { 1 } else { (n - 2) / 2 };
        (Just(n), 1..=max_m)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn episodes_keep_every_invariant(
        (n, m) in n_and_m(),
        seed in any::<u64>(),
        picks in proptest::collection::vec(0usize..POLICIES.len(), 16),
        cap in proptest::option::of(1u32..20),
    ) {
        let mut scenario = format!("balanced_5p?num_agents={n}&minority_size={m}");
        if let Some(c) = cap {
            scenario.push_str(&format!("&max_rounds={c}"));
        }
        let team: Vec<&str> = picks[..n].iter().map(|&i| POLICIES[i]).collect();
        let mut g = prepare(&scenario, &team).unwrap();
        let r = g.play(seed, false).record;
        let s = g.state().clone();
        let max_rounds = cap.unwrap_or(4 * n as u32);
        let expected_len = if max_rounds < n as u32 { max_rounds } else { n as u32 };
        prop_assert_eq!(r.length, expected_len);
        prop_assert_eq!(r.truncated, max_rounds < n as u32);
        prop_assert_eq!(s.status(), if r.truncated { GameStatus::GameTruncated } else { GameStatus::GameCompleted });
        let (maj, min) = if n == 3 { (1, 1) } else { (n - 1 - m, m) };
        let mut op_count = vec![0u32; n];
        for (i, round) in s.rounds().iter().enumerate() {
            prop_assert_eq!(round.majority.len(), maj);
            prop_assert_eq!(round.minority.len(), min);
            prop_assert!(!round.sides().contains(usize::from(round.operator)));
            prop_assert_eq!(round.sides().len() + 1, n);
            prop_assert_eq!(round.survivors, round.side(round.decision.unwrap().saved()));
            prop_assert!(state_args_are_by_side_agents(&s, i));
            op_count[usize::from(round.operator)] += 1;
        }
        prop_assert!(op_count.iter().all(|&c| c <= 1));
        if !r.truncated {
            prop_assert!(op_count.iter().all(|&c| c == 1));
            prop_assert!(s.coverage_complete());
        }
        // Scores: survivors' +1 per round (§8).
        let total: usize = s.rounds().iter().map(|x| x.survivors.len()).sum();
        prop_assert_eq!(r.team_reward as usize, total);
        for a in s.agents() {
            let seat = usize::from(a.seat);
            let saved = s.rounds().iter().filter(|x| x.survivors.contains(seat)).count() as u32;
            prop_assert_eq!(a.score, saved);
        }
        // Roles do not depend on policies: an all-utilitarian team gets the same schedule.
        let mut u = prepare(&scenario, &vec!["utilitarian"; n]).unwrap();
        u.play(seed, false);
        let roles = |st: &TrolleyState| st.rounds().iter().map(|x| (x.operator, x.majority, x.minority)).collect::<Vec<_>>();
        prop_assert_eq!(roles(u.state()), roles(&s));
        // Same job, same record.
        prop_assert_eq!(g.play(seed, false).record, r);
    }

    #[test]
    fn rejected_calls_leave_state_and_version_unchanged(
        n in 3u8..=8,
        seed in any::<u64>(),
        ops in proptest::collection::vec((0u8..6, 0usize..10, 0usize..4), 1..60),
    ) {
        let (mut s, _) = started(n, MinoritySize::Balanced, None, seed);
        let texts = [ArgText::new("fine"), ArgText::new(""), ArgText::new(&"x".repeat(501)), ArgText::new(" ok ")];
        for (op, seat, k) in ops {
            let before = s.clone();
            let round = s.current_round().map(|r| r.id).unwrap_or(RoundId(0));
            let round = if k == 3 { RoundId(round.0 + 1) } else { round };
            let mut events = Vec::new();
            let result = match op {
                0 => s.submit_argument(round, seat, &texts[k], &mut events).map(|_| ()),
                1 => s.skip(round, seat, SkipCause::Agent, &mut events).map(|_| ()),
                2 => s.submit_decision(round, seat, ["save_majority", "save_minority", "nah", "save_majority"][k], &mut events).map(|_| ()),
                3 => s.advance(AdvanceAction::NextPhase, &mut events).map(|_| ()),
                4 => s.expire_decision(&mut events).map(|_| ()),
                _ => s.start_next_round(&mut events).map(|_| ()),
            };
            match result {
                Ok(()) => {
                    prop_assert_eq!(s.version(), before.version() + 1);
                    prop_assert!(!events.is_empty());
                }
                Err(_) => {
                    prop_assert_eq!(&s, &before);
                    prop_assert!(events.is_empty());
                }
            }
            // Phases never skip ahead: at most one phase per call, except a resolution.
            if let (Some(a), Some(b)) = (before.current_round(), s.current_round()) {
                if a.number == b.number && b.phase != Phase::Resolved {
                    prop_assert!(b.phase == a.phase || b.phase == a.phase.next());
                }
            }
        }
    }
}

fn state_args_are_by_side_agents(s: &TrolleyState, i: usize) -> bool {
    let r = &s.rounds()[i];
    s.round_arguments(i).iter().all(|a| r.role_of(usize::from(a.agent)).side() == Some(a.side) && a.round == r.number)
}
