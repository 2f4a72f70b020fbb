//! §12 invariants under proptest: random scenarios, overrides, seeds and policy mixes; and
//! random (valid or invalid) action sequences driven straight into the engine.

use proptest::prelude::*;

use super::*;
use crate::games::deception::state::Ballot;
use crate::games::Game;
use crate::seeding::Stream;

const SCENARIOS: [(&str, usize); 5] =
    [("classic_5p1i", 5), ("quick_4p1i", 4), ("crowded_8p2i", 8), ("strict_majority_7p2i", 7), ("tiebreak_6p1i", 6)];

fn scenario_string() -> impl Strategy<Value = (String, usize)> {
    (0..5usize, 1..=8u32, 0..=3u32, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(i, ticks, rounds, tie, abstain, fallback)| {
            let (name, n) = SCENARIOS[i];
            let s = format!(
                "{name}?max_ticks={ticks}&discussion_rounds_per_tick={rounds}&tie_policy={}&allow_abstain={abstain}&invalid_action_fallback={}",
                if tie { "random" } else { "no_eject" },
                if fallback { "random" } else { "pass" },
            );
            (s, n)
        },
    )
}

fn policy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("random".to_string()),
        Just("heuristic".to_string()),
        (0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(p, a)| format!("random?propose={p:.2}&abstain={a:.2}")),
        (0.05..=1.0f64, 0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(a, b, g)| format!(
            "heuristic?suspicion_from_accusation={a:.2}&bandwagon={b:.2}&aggression={g:.2}"
        )),
    ]
}

/// Checks every §12 invariant on a finished episode's final state and record.
fn check_episode(state: &GameState, record: &crate::protocol::EpisodeRecord) {
    let c = &state.scenario;
    assert_eq!(state.agents.iter().filter(|a| a.role == Role::Imposter).count() as u32, c.num_imposters);
    assert!(record.length >= 1 && record.length <= c.max_ticks);
    assert_eq!(state.votes.len() as u32, record.length, "one vote (≤ 1 ejection) per tick");
    assert!(state.result.is_some() && is_terminal(state));
    let mut active = c.num_agents as usize;
    for v in &state.votes {
        assert_eq!(v.votes.len(), active, "one ballot per active agent");
        let turns = state.discussion.iter().filter(|m| m.tick == v.tick).count();
        assert!(turns <= active * c.discussion_rounds_per_tick as usize);
        if let Some(e) = v.outcome.ejected() {
            assert_eq!(state.agents[e.index()].ejected_tick, Some(v.tick));
            active -= 1;
        }
    }
    assert_eq!(state.active().count(), active);
    let expected_team = match record.outcome.as_str() {
        "crewmates" => 1.0,
        "imposters" => -1.0,
        _ => 0.0,
    };
    assert_eq!(record.team_reward, expected_team);
    for a in &state.agents {
        let r = if a.role == Role::Crewmate { expected_team } else { -expected_team };
        assert_eq!(record.agent_rewards[a.seat as usize], r);
    }
}

/// Checks what each observation shows of roles.
fn check_observations(state: &GameState) {
    for o in observations(state) {
        for (seat, a) in o.agents.iter().enumerate() {
            let real = state.agents[seat].role;
            match a.status {
                Status::Ejected => assert_eq!(a.revealed_role, Some(real)),
                Status::Alive => assert_eq!(a.revealed_role, None),
            }
        }
        assert_eq!(o.result.is_some(), is_terminal(state));
    }
}

/// A random action for `actor`: any kind, targets possibly unknown or inactive, texts
/// possibly empty or too long.
fn random_action(actor: AgentId, n: usize, rng: &mut Stream) -> GameAction {
    let t = AgentId(rng.index(n + 2) as u32);
    let text = match rng.index(4) {
        0 => "",
        1 => "   ",
        _ => "hello",
    };
    let kind = match rng.index(7) {
        0 => ActionKind::Discuss { message: text.into() },
        1 => ActionKind::Accuse { target: t },
        2 => ActionKind::Defend { reasoning: text.into(), defense_statement: "ok".into() },
        3 => ActionKind::ProposeVote,
        4 => ActionKind::Pass,
        5 => ActionKind::Vote { target: t },
        _ => ActionKind::Abstain,
    };
    GameAction::new(actor, kind)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn episodes_keep_every_invariant(
        (scenario, n) in scenario_string(),
        team in prop::collection::vec(policy(), 10),
        seed in any::<u64>(),
    ) {
        let refs: Vec<&str> = team[..n].iter().map(String::as_str).collect();
        let mut g = prepare(&scenario, &refs).unwrap();
        let a = g.play(seed, false).record;
        check_episode(g.last_state(), &a);
        check_observations(g.last_state());
        // Same job, same record; other policies, same roles.
        prop_assert_eq!(&g.play(seed, false).record, &a);
        let mut h = prepare(&scenario, &vec!["random"; n]).unwrap();
        let other = h.play(seed, false).record;
        prop_assert_eq!(&other.stats.as_map()["roles"], &a.stats.as_map()["roles"]);
    }

    #[test]
    fn random_actions_keep_the_state_consistent(
        (scenario, _n) in scenario_string(),
        seed in any::<u64>(),
    ) {
        let c = cfg(&scenario);
        let n = c.num_agents as usize;
        let mut s = reset(&c, seed).unwrap();
        let mut rng = Stream::agent(seed, 0);
        let max_steps = c.max_ticks as u64 * (n as u64 * c.discussion_rounds_per_tick as u64 + 1);
        let mut tries = 0u32;
        let mut twin: Option<GameState> = None;
        while !is_terminal(&s) {
            let expected = expected_actors(&s);
            let mut m = BTreeMap::new();
            for who in expected.iter() {
                if rng.chance(0.9) {
                    m.insert(*who, random_action(*who, n, &mut rng));
                }
            }
            if rng.chance(0.2) {
                let extra = AgentId(rng.index(n + 1) as u32);
                m.insert(extra, random_action(extra, n, &mut rng));
            }
            // Give up on chaos after a while so every case finishes: play legal actions.
            if tries > 20 {
                m.clear();
                for who in expected.iter() {
                    let l = legal_actions(&s, *who);
                    let kind = if s.phase == Phase::Voting {
                        ActionKind::Vote { target: l.targets[rng.index(l.targets.len())] }
                    } else {
                        ActionKind::Pass
                    };
                    m.insert(*who, GameAction::new(*who, kind));
                }
            }
            let before = s.clone();
            let result = step(&mut s, &m);
            // A twin made by a JSON round trip earlier must take the same step the same way.
            if let Some(t) = twin.as_mut() {
                prop_assert_eq!(&step(t, &m), &result);
                prop_assert_eq!(&*t, &s);
            }
            match result {
                Err(_) => {
                    prop_assert_eq!(&s, &before, "a refused step changes nothing");
                    tries += 1;
                }
                Ok(events) => {
                    tries = 0;
                    prop_assert!(!events.is_empty());
                    prop_assert_eq!(s.steps, before.steps + 1);
                    if before.phase == Phase::Voting {
                        let v = s.votes.last().unwrap();
                        let ballots: Vec<Ballot> = v.votes.to_vec();
                        prop_assert_eq!(ballots.len(), before.active().count());
                    }
                    if twin.is_none() && rng.chance(0.2) {
                        let back: GameState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
                        prop_assert_eq!(&back, &s);
                        twin = Some(back);
                    }
                }
            }
            check_observations(&s);
            prop_assert!(s.tick <= c.max_ticks);
            prop_assert!(s.steps <= max_steps);
            prop_assert_eq!(s.result.is_some(), is_terminal(&s));
        }
        let imposters = s.agents.iter().filter(|a| a.role == Role::Imposter).count() as u32;
        prop_assert_eq!(imposters, c.num_imposters);
    }
}
