//! Property tests of §12's invariants over random scenarios, teams, seeds, towns and draws.
//! Case counts are modest so the whole suite stays within seconds.

use proptest::prelude::*;
use serde_json::Value;

use super::*;
use crate::games::bucket_brigade::rules::extinguish;
use crate::games::Game;
use crate::seeding::Fnv64;

const POLICIES: [&str; 10] = [
    "random",
    "heuristic",
    "firefighter",
    "free_rider",
    "hero",
    "coordinator",
    "liar",
    "heuristic:1,1,1,1,1,1,1,1,1,1",
    "heuristic:0,0,0,0,0,0,0,0,0,0",
    "liar?exploration_rate=1",
];

fn probability() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0]
}

fn weight() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), -50.0..50.0]
}

prop_compose! {
    fn any_scenario()(
        base in 0..15usize,
        n in 4..=10usize,
        beta in probability(),
        p in probability(),
        rho in prop_oneof![Just(0.0), Just(1.0), 0.0..0.3],
        n_min in prop_oneof![0..25u32, Just(100)],
        w in proptest::collection::vec(weight(), 10),
        reference in any::<bool>(),
        contagion in any::<bool>(),
    ) -> Scenario {
        let mut sc = Scenario::named(crate::games::bucket_brigade::named::NAMES[base]).unwrap();
        sc.num_agents = n;
        sc.prob_fire_spreads_to_neighbor = beta;
        sc.prob_solo_agent_extinguishes_fire = p;
        sc.prob_house_catches_fire = rho;
        sc.min_nights = n_min;
        sc.team_reward_house_survives = w[0] * 4.0;
        sc.team_penalty_house_burns = w[1] * 4.0;
        sc.cost_to_work_one_night = w[2];
        sc.reward_own_house_survives = w[3];
        sc.reward_other_house_survives = w[4];
        sc.penalty_own_house_burns = w[5];
        sc.penalty_other_house_burns = w[6];
        sc.reward_rest = w[7];
        sc.team_share_gamma = w[8] / 10.0;
        sc.alpha_own = w[9] / 10.0;
        sc.reward_model = if reference { RewardModel::Reference } else { RewardModel::Seed };
        sc.spread_before_burnout = contagion;
        sc
    }
}

fn team_game(sc: Scenario, picks: &[usize]) -> BucketBrigade {
    let team: Vec<(AnyPolicy, String)> = (0..sc.num_agents)
        .map(|i| {
            let s = POLICIES[picks[i] % POLICIES.len()];
            (AnyPolicy::from_spec(i, &crate::spec::Spec::parse(s).unwrap()).unwrap(), s.to_string())
        })
        .collect();
    BucketBrigade::new(sc, &team).unwrap()
}

fn houses_of(v: &Value) -> Vec<u8> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u8).collect()
}

/// Checks every invariant of one played episode that its replay can show.
fn check_episode(sc: &Scenario, seed: u64, g: &mut BucketBrigade) -> Result<(), TestCaseError> {
    let ep = g.play(seed, true);
    let rec = &ep.record;
    let v: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
    let n = sc.num_agents;
    let t = rec.length;

    // Invariant 4: length bounds.
    prop_assert!(t >= (sc.min_nights + 1).min(100) && t <= 100, "T = {} with n_min = {}", t, sc.min_nights);
    if sc.min_nights == 100 {
        prop_assert_eq!(t, 100);
    }

    let nights = v["nights"].as_array().unwrap();
    prop_assert_eq!(nights.len(), t as usize);
    let mut before = houses_of(&v["initial_houses"]);
    let initial = before.clone();
    let mut sums = vec![0.0; n];
    let (mut lies, mut work) = (vec![0u32; n], vec![0u32; n]);
    let mut mode_terms = vec![0.0; n];
    let mut hash = Fnv64::new();
    hash.bytes(&initial);
    for (k, night) in nights.iter().enumerate() {
        prop_assert_eq!(night["night"].as_u64(), Some(k as u64 + 1));
        prop_assert_eq!(houses_of(&night["houses_before"]), before.clone());
        let after = houses_of(&night["houses_after"]);
        let signals: Vec<u64> = night["signals"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        let actions: Vec<(u64, u64)> = night["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a[0].as_u64().unwrap(), a[1].as_u64().unwrap()))
            .collect();
        hash.u32(k as u32 + 1);
        for i in 0..n {
            prop_assert!(actions[i].0 < 10 && actions[i].1 < 2 && signals[i] < 2);
            hash.bytes(&[signals[i] as u8, actions[i].0 as u8, actions[i].1 as u8]);
            let lie = signals[i] != actions[i].1;
            prop_assert_eq!(night["lies"][i].as_bool(), Some(lie));
            lies[i] += u32::from(lie);
            work[i] += u32::from(actions[i].1 == 1);
            mode_terms[i] += if actions[i].1 == 1 { -sc.cost_to_work_one_night } else { sc.reward_rest };
            let r = night["rewards"][i].as_f64().unwrap();
            prop_assert!(r.is_finite());
            sums[i] += r;
        }
        hash.bytes(&after);
        for h in 0..NUM_HOUSES {
            // Invariant 9: S→S, S→B, B→S, B→B, B→R, R→R only.
            let ok = matches!((before[h], after[h]), (0, 0) | (0, 1) | (1, 0) | (1, 1) | (1, 2) | (2, 2));
            prop_assert!(ok, "night {} house {} went {} → {}", k + 1, h, before[h], after[h]);
            let workers = actions.iter().filter(|a| a.0 == h as u64 && a.1 == 1).count();
            if before[h] == 1 && sc.prob_solo_agent_extinguishes_fire == 0.0 {
                prop_assert_eq!(after[h], 2, "p = 0: every fire ruins its house");
            }
            if before[h] == 1 && workers > 0 && sc.prob_solo_agent_extinguishes_fire == 1.0 {
                prop_assert_ne!(after[h], 2, "p = 1: a fire with a worker is always saved");
            }
            if sc.prob_house_catches_fire == 0.0 {
                prop_assert_eq!(after[h] == 1 || before[h] == 1, false, "ρ = 0: no fire ever");
            }
        }
        before = after;
    }

    // Invariant 4: truncated ⇔ max_nights ⇔ a house Burning at the end.
    let reason = rec.stats.as_map()["termination_reason"].as_str().unwrap();
    let burning = before.contains(&1);
    prop_assert_eq!(rec.truncated, reason == "max_nights");
    prop_assert_eq!(rec.truncated, burning);
    if !rec.truncated {
        prop_assert_eq!(reason == "all_ruined", before.iter().all(|&s| s == 2));
    }
    let saved = before.iter().filter(|&&s| s == 0).count();
    let ruined = before.iter().filter(|&&s| s == 2).count();
    prop_assert_eq!(rec.stats.as_map()["houses_saved"].as_u64(), Some(saved as u64));
    prop_assert_eq!(rec.stats.as_map()["houses_ruined"].as_u64(), Some(ruined as u64));
    prop_assert_eq!(rec.outcome.as_str(), if saved >= 7 { "success" } else { "failure" });
    if sc.prob_house_catches_fire == 0.0 {
        prop_assert_eq!(t, (sc.min_nights + 1).min(100));
        prop_assert_eq!(saved, 10);
    }

    // Invariants 5 and 6.
    prop_assert_eq!(&rec.agent_rewards, &sums);
    prop_assert_eq!(rec.stats.as_map()["agent_lies"].clone(), serde_json::json!(lies));
    prop_assert_eq!(rec.stats.as_map()["agent_work_nights"].clone(), serde_json::json!(work));
    prop_assert!(rec.team_reward.is_finite());
    let w_total: u32 = work.iter().sum();
    match sc.reward_model {
        RewardModel::Reference => {
            prop_assert_eq!(rec.team_reward, rec.agent_rewards.iter().fold(0.0, |a, r| a + r));
        }
        RewardModel::Seed => {
            let (sf, bf) = (saved as f64 / 10.0, ruined as f64 / 10.0);
            let expect = sc.team_reward_house_survives * sf
                - sc.team_penalty_house_burns * bf
                - sc.cost_to_work_one_night * f64::from(w_total);
            prop_assert_eq!(rec.team_reward, expect);
            // §6.1: the α_own terms telescope; with E_i, the nightly rewards sum to R_i.
            let e = crate::games::bucket_brigade::rewards::terminal(sc, &final_houses(&before));
            for i in 0..n {
                let own = |hs: &[u8]| (0..NUM_HOUSES).filter(|&h| h % n == i && hs[h] == 0).count() as f64;
                let expect = mode_terms[i] + sc.alpha_own * (own(&before) - own(&initial)) + e[i];
                let scale = 1.0 + mode_terms[i].abs() + e[i].abs() + 10.0 * sc.alpha_own.abs();
                prop_assert!((rec.agent_rewards[i] - expect).abs() <= 1e-9 * scale * f64::from(t));
            }
        }
    }
    prop_assert_eq!(&rec.trajectory_hash, &hash.hex());
    Ok(())
}

fn final_houses(codes: &[u8]) -> Houses {
    let mut out = ALL_SAFE;
    for (h, &c) in codes.iter().enumerate() {
        out[h] = [House::Safe, House::Burning, House::Ruined][usize::from(c)];
    }
    out
}

fn any_houses() -> impl Strategy<Value = Houses> {
    proptest::collection::vec(0..3usize, NUM_HOUSES)
        .prop_map(|v| final_houses(&v.iter().map(|&c| c as u8).collect::<Vec<_>>()))
}

prop_compose! {
    fn any_draws()(
        d in proptest::collection::vec(0.0..1.0f64, 40),
    ) -> NightDraws {
        let mut out = NightDraws::QUIET;
        for h in 0..NUM_HOUSES {
            out.extinguish[h] = d[h];
            out.ignite[h] = d[10 + h];
            out.spread[h] = [d[20 + 2 * h], d[21 + 2 * h]];
        }
        out
    }
}

fn any_actions() -> impl Strategy<Value = Vec<Action>> {
    proptest::collection::vec((0..10u8, any::<bool>()), 4..=10)
        .prop_map(|v| v.into_iter().map(|(h, w)| Action::new(h, if w { Mode::Work } else { Mode::Rest })).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn episodes_keep_every_invariant(sc in any_scenario(), picks in proptest::collection::vec(0..10usize, 10), seed in any::<u64>()) {
        let mut g = team_game(sc, &picks);
        check_episode(&sc, seed, &mut g)?;
    }

    #[test]
    fn beta_is_inert_in_the_default_order(
        sc in any_scenario(), picks in proptest::collection::vec(0..10usize, 10), seed in any::<u64>(), beta in 0.0..=1.0f64,
    ) {
        let sc = Scenario { spread_before_burnout: false, ..sc };
        let other = Scenario { prob_fire_spreads_to_neighbor: beta, ..sc };
        let a = team_game(sc, &picks).play(seed, true);
        let b = team_game(other, &picks).play(seed, true);
        prop_assert_eq!(&a.record, &b.record);
        let nights = |s: &str| serde_json::from_str::<Value>(s).unwrap()["nights"].clone();
        prop_assert_eq!(nights(a.replay.as_deref().unwrap()), nights(b.replay.as_deref().unwrap()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn each_phase_makes_only_its_own_transitions(
        start in any_houses(), draws in any_draws(), actions in any_actions(),
        p in probability(), beta in probability(), rho in probability(), contagion in any::<bool>(),
    ) {
        let mut sc = Scenario::default_scenario();
        sc.num_agents = actions.len();
        sc.prob_solo_agent_extinguishes_fire = p;
        sc.prob_fire_spreads_to_neighbor = beta;
        sc.prob_house_catches_fire = rho;
        sc.spread_before_burnout = contagion;
        let ph = resolve(&sc, &start, &actions, &draws);
        let (x, y, z) = (ph.after_extinguish, ph.after_burnout, ph.end);
        for h in 0..NUM_HOUSES {
            let workers = actions.iter().filter(|a| usize::from(a.house) == h && a.mode == Mode::Work).count();
            // Step 4: only B→S, and only with a worker.
            prop_assert!(x[h] == start[h] || (start[h] == House::Burning && x[h] == House::Safe && workers > 0));
            if start[h] == House::Burning && workers > 0 && p == 1.0 {
                prop_assert_eq!(x[h], House::Safe);
            }
            if p == 0.0 {
                prop_assert_eq!(x[h], start[h]);
            }
            // Steps 5–6 / 5′–6′: B→R; S→B only in the contagion variant, next to a fire.
            match (x[h], y[h]) {
                (House::Burning, House::Ruined) | (House::Safe, House::Safe) | (House::Ruined, House::Ruined) => {}
                (House::Safe, House::Burning) => {
                    prop_assert!(contagion);
                    let l = crate::games::bucket_brigade::house::left(h);
                    let r = crate::games::bucket_brigade::house::right(h);
                    prop_assert!(x[l] == House::Burning || x[r] == House::Burning);
                }
                (a, b) => prop_assert!(false, "burn-out phase made {:?} → {:?}", a, b),
            }
            // Step 7: only S→B.
            prop_assert!(z[h] == y[h] || (y[h] == House::Safe && z[h] == House::Burning));
            if !contagion {
                // Invariant 3: no fire survives step 5; every fire at the end is a new spark.
                prop_assert_ne!(y[h], House::Burning);
                if z[h] == House::Burning {
                    prop_assert_eq!(y[h], House::Safe);
                }
            }
        }
    }

    #[test]
    fn more_workers_never_turn_a_save_into_a_loss(
        start in any_houses(), draws in any_draws(), actions in any_actions(), p in probability(), extra in 0..10u8,
    ) {
        let saved = extinguish(&start, &actions, p, &draws);
        let mut more = actions.clone();
        more.push(Action::new(extra, Mode::Work));
        let saved_more = extinguish(&start, &more, p, &draws);
        for h in 0..NUM_HOUSES {
            if saved[h] == House::Safe {
                prop_assert_eq!(saved_more[h], House::Safe);
            }
        }
    }
}
