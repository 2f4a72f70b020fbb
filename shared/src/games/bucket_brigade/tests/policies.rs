//! §8: the policies' draws and decisions, and the policy spec strings of §8.4.

use super::*;
use crate::games::bucket_brigade::policies::Params;
use crate::protocol::JobError;
use crate::seeding::Stream;
use crate::spec::Spec;

fn parse(seat: usize, s: &str) -> Result<AnyPolicy, JobError> {
    AnyPolicy::from_spec(seat, &Spec::parse(s).unwrap())
}

fn heuristic(params: [f64; 10]) -> HeuristicPolicy {
    HeuristicPolicy::new(Params(params))
}

/// Asserts `rng` has consumed exactly `draws` values since it was a clone of `fresh`.
#[track_caller]
fn consumed(rng: &Stream, mut fresh: Stream, draws: usize) {
    for _ in 0..draws {
        fresh.next_u64();
    }
    assert_eq!(rng.clone().next_u64(), fresh.next_u64(), "expected {draws} draws");
}

#[test]
fn random_draws_signal_then_house_then_mode() {
    let sc = scenario("default");
    let t = Town::new(4, ALL_SAFE);
    let mut p = RandomPolicy;
    let mut rng = Stream::agent(11, 2);
    let mut check = rng.clone();
    let s = p.signal(&t.observation(&sc, 2, None), &mut rng);
    assert_eq!(s, Mode::from_index(check.index(2)));
    let sig = [s; 4];
    let a = p.act(&t.observation(&sc, 2, Some(&sig)), &mut rng);
    assert_eq!(a, Action::new(check.index(10) as u8, Mode::from_index(check.index(2))));
    consumed(&rng, Stream::agent(11, 2), 3);
}

#[test]
fn heuristic_signal_intent_formula() {
    let sc = scenario("default");
    // θ1 0.3, θ3 0.8, θ4 0.5, θ8 0.2; home 1 Burning, 2 of 10 burning:
    // (0.3 + 0.5·0.2 + 0.5·0.8)·0.8 = 0.64 > 0.5 → wants WORK; θ0 = 1 tells it.
    let mut p = heuristic([1.0, 0.3, 0.0, 0.8, 0.5, 0.0, 0.0, 0.0, 0.2, 0.0]);
    p.reset(1, &sc);
    let t = Town::new(4, town(".B.....B.."));
    let mut rng = Stream::agent(1, 1);
    assert_eq!(p.signal(&t.observation(&sc, 1, None), &mut rng), Mode::Work);
    close(p.intent(), 0.64);
    consumed(&rng, Stream::agent(1, 1), 1);
    // Home not burning: (0.3 + 0.1)·0.8 = 0.32 → REST; θ0 = 0 says the opposite.
    let mut p = heuristic([0.0, 0.3, 0.0, 0.8, 0.5, 0.0, 0.0, 0.0, 0.2, 0.0]);
    p.reset(0, &sc);
    assert_eq!(p.signal(&t.observation(&sc, 0, None), &mut rng), Mode::Work);
    close(p.intent(), 0.32);
    // The intent is clamped to [0, 1].
    let mut p = heuristic([1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    p.reset(1, &sc);
    p.signal(&t.observation(&sc, 1, None), &mut rng);
    assert_eq!(p.intent(), 1.0);
}

#[test]
fn heuristic_house_weights_match_the_score_formula() {
    let sc = scenario("default");
    // θ2 = θ4 = θ5 = 1, θ3 = 0.5; agent 0 (home 0); house 5 Burning; agents 1 and 3 signalled
    // WORK standing at 5, agent 2 signalled REST at 2; agent 0 itself stands at 5 too.
    let mut p = heuristic([1.0, 0.5, 1.0, 0.5, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    p.reset(0, &sc);
    let houses = town(".....B....");
    let signals = modes("WWRW");
    let locations = [5u8, 5, 2, 5];
    let obs = Observation {
        night: 2,
        agent_id: 0,
        houses: &houses,
        locations: &locations,
        last_actions: None,
        signals: Some(&signals),
        scenario: &sc,
    };
    let w = p.weights(&obs);
    let expect = [
        0.1 + 0.5,                   // home, distance 0
        0.1 / 2.0,                   // d 1
        0.1 / 3.0,                   // d 2
        0.1 / 4.0,                   // d 3
        0.1 / 5.0 + 0.3 - 0.2,       // next to the fire: help bias minus risk
        0.1 / 6.0 + 0.5 + 0.1 * 2.0, // burning, two other WORK signallers there (C = 2)
        0.1 / 5.0 + 0.3 - 0.2,
        0.1 / 4.0,
        0.1 / 3.0,
        0.1 / 2.0,
    ];
    for h in 0..NUM_HOUSES {
        close(w[h], expect[h]);
    }
    // Scores below 0.01 are raised to 0.01.
    let mut p = heuristic([1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    p.reset(0, &sc);
    let houses = town("B.B.......");
    let obs = Observation { houses: &houses, signals: None, ..obs };
    assert_eq!(p.weights(&obs)[1], 0.01); // 0.05 − 0.2·2 < 0.01
}

#[test]
fn heuristic_act_draw_order_and_modes() {
    let sc = scenario("default");
    let t = Town::new(4, town("..B......."));
    let sig = modes("WRRR");
    // θ0 = 1: a WORK signal is kept; no exploration, no memory yet: 1 + 3 draws.
    let mut p = heuristic([1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
    p.reset(0, &sc);
    let mut rng = Stream::agent(3, 0);
    assert_eq!(p.signal(&t.observation(&sc, 0, None), &mut rng), Mode::Work);
    let obs = t.observation(&sc, 0, Some(&sig));
    let mut check = rng.clone();
    let a = p.act(&obs, &mut rng);
    assert_eq!(a, Action::new(check.weighted(&p.weights(&obs)) as u8, Mode::Work));
    consumed(&rng, Stream::agent(3, 0), 4);

    // Second night with θ7 = 0: one more draw for the memory test, action not repeated.
    let before = rng.clone();
    p.signal(&obs, &mut rng);
    p.act(&obs, &mut rng);
    consumed(&rng, before, 1 + 3 + 1);

    // REST signal: works iff u < intent·θ9. θ9 = 0 → never.
    let mut p = heuristic([0.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
    p.reset(0, &sc);
    let mut rng = Stream::agent(4, 0);
    for _ in 0..20 {
        p.reset(0, &sc);
        let s = p.signal(&t.observation(&sc, 0, None), &mut rng);
        assert_eq!(s, Mode::Rest, "θ0 = 0 with intent 1 always signals REST");
        assert_eq!(p.act(&t.observation(&sc, 0, Some(&sig)), &mut rng).mode, Mode::Rest);
    }
}

#[test]
fn heuristic_exploration_and_fatigue() {
    let sc = scenario("default");
    let t = Town::new(4, ALL_SAFE);
    let sig = modes("RRRR");
    // θ6 = 1: always explores: weighted, mode, explore test, then index(10), index(2).
    let mut p = heuristic([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 0.0, 0.5, 0.5]);
    p.reset(2, &sc);
    let mut rng = Stream::agent(8, 2);
    p.signal(&t.observation(&sc, 2, None), &mut rng);
    let mut check = rng.clone();
    let a = p.act(&t.observation(&sc, 2, Some(&sig)), &mut rng);
    check.unit();
    check.unit();
    check.unit();
    assert_eq!(a, Action::new(check.index(10) as u8, Mode::from_index(check.index(2))));
    consumed(&rng, Stream::agent(8, 2), 6);

    // θ7 = 1: from the second night on, always repeats the first night's action.
    let mut p = heuristic([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 1.0, 0.5, 0.5]);
    p.reset(1, &sc);
    let mut rng = Stream::agent(8, 1);
    p.signal(&t.observation(&sc, 1, None), &mut rng);
    let first = p.act(&t.observation(&sc, 1, Some(&sig)), &mut rng);
    for _ in 0..10 {
        p.signal(&t.observation(&sc, 1, None), &mut rng);
        assert_eq!(p.act(&t.observation(&sc, 1, Some(&sig)), &mut rng), first);
    }
    // reset forgets it: the next first night draws no memory test.
    p.reset(1, &sc);
    let mut rng = Stream::agent(9, 1);
    p.signal(&t.observation(&sc, 1, None), &mut rng);
    let before = rng.clone();
    let mut explore_check = rng.clone();
    p.act(&t.observation(&sc, 1, Some(&sig)), &mut rng);
    explore_check.unit();
    explore_check.unit();
    let explores = explore_check.unit() < 0.3;
    consumed(&rng, before, if explores { 5 } else { 3 });
}

#[test]
fn spec_strings_of_all_three_heuristic_forms_and_archetypes() {
    let params = |p: AnyPolicy| match p {
        AnyPolicy::Heuristic(h) => h.params().0,
        AnyPolicy::Random(_) => panic!("not a heuristic"),
    };
    assert_eq!(parse(0, "random").unwrap(), AnyPolicy::Random(RandomPolicy));
    assert_eq!(params(parse(0, "heuristic").unwrap()), [0.5; 10]);
    let mut p = [0.5; 10];
    p[1] = 0.9;
    p[9] = 0.0;
    assert_eq!(params(parse(0, "heuristic?work_tendency=0.9&altruism_factor=0").unwrap()), p);
    assert_eq!(
        params(parse(0, "heuristic:0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9").unwrap()),
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    );
    for a in Archetype::ALL {
        assert_eq!(params(parse(0, a.as_str()).unwrap()), a.params().0);
        assert_eq!(params(parse(0, &format!("archetype:{}", a.as_str())).unwrap()), a.params().0);
    }
    let mut ff = Archetype::Firefighter.params().0;
    ff[6] = 0.0;
    assert_eq!(params(parse(0, "firefighter?exploration_rate=0").unwrap()), ff);
    assert_eq!(params(parse(0, "archetype:firefighter?exploration_rate=0").unwrap()), ff);
}

#[test]
fn spec_string_errors_name_the_offending_part() {
    let err = |s: &str| parse(3, s).unwrap_err();
    let e = err("genius");
    assert_eq!((e.field.as_deref(), e.value.as_deref()), (Some("policy_set[3]"), Some("genius")));
    assert!(e.message.starts_with("unknown policy"), "{e}");
    let e = err("archetype:villain");
    assert_eq!((e.field.as_deref(), e.value.as_deref()), (Some("policy_set[3].archetype"), Some("villain")));
    assert!(e.message.starts_with("unknown archetype"), "{e}");
    assert_eq!(err("archetype").field.as_deref(), Some("policy_set[3]"));
    let e = err("hero?courage=1");
    assert_eq!((e.field.as_deref(), e.value.as_deref()), (Some("policy_set[3].courage"), Some("1")));
    assert!(e.message.starts_with("unknown parameter"), "{e}");
    assert_eq!(err("random?honesty_bias=1").field.as_deref(), Some("policy_set[3].honesty_bias"));
    assert_eq!(err("random:x").field.as_deref(), Some("policy_set[3]"));
    assert_eq!(err("hero:x").field.as_deref(), Some("policy_set[3]"));
    let e = err("heuristic:0.1,0.2,0.3");
    assert_eq!(e.field.as_deref(), Some("policy_set[3]"));
    assert!(e.message.contains("exactly 10"), "{e}");
    assert_eq!(
        err("heuristic?work_tendency=1.01").to_string(),
        "invalid policy_set[3].work_tendency = 1.01: must be within [0, 1]"
    );
    assert_eq!(
        err("liar?honesty_bias=inf").to_string(),
        "invalid policy_set[3].honesty_bias = inf: must be a finite number"
    );
    assert_eq!(err("liar?honesty_bias=high").to_string(), "invalid policy_set[3].honesty_bias = high: not a number");
    let twice = Spec {
        name: "heuristic".into(),
        arg: None,
        params: vec![("risk_aversion".into(), "0".into()), ("risk_aversion".into(), "1".into())],
    };
    let e = AnyPolicy::from_spec(3, &twice).unwrap_err();
    assert_eq!(e.to_string(), "invalid policy_set[3].risk_aversion = 1: parameter given twice");
}

#[test]
fn prepare_checks_scenario_then_team_size_then_seats() {
    let e = BucketBrigade::from_strs("default?num_agents=5", &["random"; 4]).unwrap_err();
    assert_eq!(e.to_string(), "invalid policy_set = 4: the team has 4 seats but scenario.num_agents = 5");
    let e = BucketBrigade::from_strs("default?prob_house_catches_fire=1.5", &["random"; 4]).unwrap_err();
    assert_eq!(e.to_string(), "invalid scenario.prob_house_catches_fire = 1.5: must be within [0, 1]");
    let e = BucketBrigade::from_strs("default", &["random", "hero", "nobody", "random"]).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("policy_set[2]"));
    let g = BucketBrigade::from_strs("default?num_agents=10", &["liar"; 10]).unwrap();
    assert_eq!(g.scenario().num_agents, 10);
    // Never panics on odd input, including huge teams and empty ones.
    assert!(BucketBrigade::from_strs("default", &[]).is_err());
    assert!(BucketBrigade::from_strs("default", &["random"; 200]).is_err());
}
