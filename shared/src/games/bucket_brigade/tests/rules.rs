//! §4 steps 4–7 and §5, phase by phase, on hand-built towns with injected draws.

use super::*;
use crate::games::bucket_brigade::draws::{LEFT, RIGHT};
use crate::games::bucket_brigade::rules::{burn_out, extinguish, ignite, spread_then_burn_out};

#[test]
fn save_probability_multiplies_in_a_loop() {
    assert_eq!(save_probability(0.5, 0), 0.0);
    assert_eq!(save_probability(0.5, 1), 0.5);
    assert_eq!(save_probability(0.5, 2), 0.75);
    assert_eq!(save_probability(0.5, 3), 0.875);
    assert_eq!(save_probability(0.3, 2), 1.0 - 0.7 * 0.7);
    assert_eq!(save_probability(1.0, 1), 1.0);
    assert_eq!(save_probability(0.0, 9), 0.0);
}

#[test]
fn extinguish_counts_only_workers_at_burning_houses() {
    let start = town("B...B...B.");
    let mut d = NightDraws::QUIET;
    d.extinguish[0] = 0.6; // k = 2 → P 0.75: saved
    d.extinguish[4] = 0.4; // k = 1 → P 0.5: saved
    d.extinguish[8] = 0.0; // k = 0 (a rester and a worker next door): P 0, never saved
    d.extinguish[2] = 0.0; // Safe house: untouched whatever the draw
    let actions = acts(&[(0, 'W'), (0, 'W'), (4, 'W'), (8, 'R'), (9, 'W'), (2, 'W')]);
    assert_eq!(extinguish(&start, &actions, 0.5, &d), town("........B."));
    // Just above P: not saved.
    d.extinguish[0] = 0.75;
    d.extinguish[4] = 0.5;
    assert_eq!(extinguish(&start, &actions, 0.5, &d), start);
}

#[test]
fn burn_out_ruins_every_fire_left() {
    assert_eq!(burn_out(&town("B.R.B...BB")), town("R.R.R...RR"));
    assert_eq!(burn_out(&town("..R.......")), town("..R......."));
}

#[test]
fn ignition_sparks_only_safe_houses() {
    let mut d = NightDraws::QUIET;
    d.ignite = [0.0; NUM_HOUSES];
    d.ignite[3] = 0.02; // equal to ρ: no spark (u < ρ is strict)
    assert_eq!(ignite(&town("R.B......."), 0.02, &d), town("RBB.BBBBBB"));
    assert_eq!(ignite(&town(".........."), 0.0, &d), town(".........."));
}

#[test]
fn contagion_marks_safe_neighbours_then_burns_out() {
    // Fires at 2 and 4 after step 4; house 3 sits between them, 9 is Ruined.
    let houses = town("..B.B....R");
    let mut d = NightDraws::QUIET;
    d.spread[2][LEFT] = 0.1; // 2 → 1 (β 0.25): marked
    d.spread[2][RIGHT] = 0.9; // 2 → 3 fails…
    d.spread[4][LEFT] = 0.2; // …but 4 → 3 succeeds: a house between two fires is tested twice
    d.spread[4][RIGHT] = 0.25; // 4 → 5: equal to β, not marked
    d.spread[0][LEFT] = 0.0; // house 0 is not burning: its draws are ignored
    assert_eq!(spread_then_burn_out(&houses, 0.25, &d), town(".BRBR....R"));
    // A burning neighbour is not Safe, so it is not marked; a Ruined one neither.
    let mut d = NightDraws::QUIET;
    d.spread = [[0.0; 2]; NUM_HOUSES];
    assert_eq!(spread_then_burn_out(&town("BB......RB"), 1.0, &d), town("RRB.....RR"));
    // β = 0: nothing spreads whatever the draws.
    assert_eq!(spread_then_burn_out(&town("BB......RB"), 0.0, &d), town("RR......RR"));
}

#[test]
fn default_order_keeps_beta_inert() {
    let start = town("B...B.....");
    let mut d = NightDraws::QUIET;
    d.spread = [[0.0; 2]; NUM_HOUSES];
    let actions = acts(&[(0, 'R'), (1, 'R'), (2, 'R'), (3, 'R')]);
    for beta in ["0", "0.5", "1"] {
        let sc = scenario(&format!("default?prob_fire_spreads_to_neighbor={beta}"));
        let phases = resolve(&sc, &start, &actions, &d);
        assert_eq!(phases.after_burnout, town("R...R....."));
        assert_eq!(phases.end, town("R...R....."));
    }
    let sc = scenario("default?prob_fire_spreads_to_neighbor=1&spread_before_burnout=true");
    assert_eq!(resolve(&sc, &start, &actions, &d).end, town("RB.BRB...B"));
}

#[test]
fn resolve_runs_the_phases_in_order() {
    // House 1 is saved then re-ignites the same night (B→S→B); house 6 burns out and, being
    // Ruined, cannot spark; house 8 sparks.
    let sc = scenario("default");
    let start = town(".B....B...");
    let mut d = NightDraws::QUIET;
    d.extinguish[1] = 0.1;
    d.ignite[1] = 0.01;
    d.ignite[6] = 0.0;
    d.ignite[8] = 0.019;
    let actions = acts(&[(1, 'W'), (6, 'R'), (2, 'R'), (3, 'R')]);
    let phases = resolve(&sc, &start, &actions, &d);
    assert_eq!(phases.after_extinguish, town("......B..."));
    assert_eq!(phases.after_burnout, town("......R..."));
    assert_eq!(phases.end, town(".B....R.B."));
}

fn quiet_step(t: &mut Town, sc: &Scenario) -> NightReport {
    let n = sc.num_agents;
    let signals = vec![Mode::Rest; n];
    let actions: Vec<Action> = (0..n).map(|i| Action::new(i as u8, Mode::Rest)).collect();
    t.step(sc, &NightDraws::QUIET, &signals, &actions).unwrap()
}

#[test]
fn episodes_end_on_the_first_quiet_night_after_min_nights() {
    let sc = scenario("default?min_nights=3");
    let mut t = Town::new(4, ALL_SAFE);
    for night in 1..=3 {
        let r = quiet_step(&mut t, &sc);
        assert_eq!((r.night, r.end), (night, None), "quiet but t ≤ n_min");
    }
    assert_eq!(quiet_step(&mut t, &sc).end, Some(Termination::NoFires));
    assert_eq!(t.nights(), 4);
    // min_nights = 0: the first night may end it.
    let sc = scenario("default?min_nights=0");
    let mut t = Town::new(4, ALL_SAFE);
    assert_eq!(quiet_step(&mut t, &sc).end, Some(Termination::NoFires));
}

#[test]
fn a_fire_at_the_end_of_the_night_keeps_the_game_going() {
    let sc = scenario("default?min_nights=0");
    assert_eq!(termination(&sc, 5, &town("....B.....")), None);
    assert_eq!(termination(&sc, 5, &town("....R.....")), Some(Termination::NoFires));
    assert_eq!(termination(&sc, 5, &[House::Ruined; NUM_HOUSES]), Some(Termination::AllRuined));
    assert_eq!(termination(&sc, 100, &town("....B.....")), Some(Termination::MaxNights));
    let sc = scenario("default?min_nights=100");
    assert_eq!(termination(&sc, 99, &ALL_SAFE), None);
    assert_eq!(termination(&sc, 100, &ALL_SAFE), Some(Termination::NoFires));
    assert_eq!(termination(&sc, 100, &town("B.........")), Some(Termination::MaxNights));
    assert!(Termination::MaxNights.truncated() && !Termination::NoFires.truncated());
}

#[test]
fn step_refuses_bad_input_and_leaves_the_town_unchanged() {
    let sc = scenario("default");
    let mut t = Town::new(4, town("....B....."));
    let before = format!("{t:?}");
    let signals = modes("WWRR");
    let bad = acts(&[(4, 'W'), (10, 'W'), (2, 'R'), (3, 'R')]);
    assert_eq!(t.step(&sc, &NightDraws::QUIET, &signals, &bad), Err(StepError::HouseOutOfRange { seat: 1, house: 10 }));
    assert_eq!(format!("{t:?}"), before);
    let short = acts(&[(4, 'W'), (1, 'W'), (2, 'R')]);
    assert!(matches!(t.step(&sc, &NightDraws::QUIET, &signals, &short), Err(StepError::WrongCount { .. })));
    assert_eq!(format!("{t:?}"), before);
    let five = scenario("default?num_agents=5");
    assert_eq!(
        t.step(&five, &NightDraws::QUIET, &signals, &bad),
        Err(StepError::ScenarioMismatch { town: 4, scenario: 5 })
    );
    assert_eq!(format!("{t:?}"), before);
    let sc0 = scenario("default?min_nights=0");
    quiet_step(&mut t, &sc0);
    assert_eq!(t.end(), Some(Termination::NoFires));
    let done = format!("{t:?}");
    let ok = acts(&[(0, 'R'), (1, 'R'), (2, 'R'), (3, 'R')]);
    assert_eq!(t.step(&sc0, &NightDraws::QUIET, &signals, &ok), Err(StepError::Finished));
    assert_eq!(format!("{t:?}"), done);
}

#[test]
fn bookkeeping_moves_agents_and_remembers_last_night() {
    let sc = scenario("default");
    let mut t = Town::new(4, ALL_SAFE);
    let obs = t.observation(&sc, 2, None);
    assert_eq!((obs.night, obs.locations, obs.last_actions), (1, &[0u8, 1, 2, 3][..], None));
    assert_eq!(obs.owned_houses().collect::<Vec<_>>(), [2, 6]);
    let signals = modes("WRWR");
    t.step(&sc, &NightDraws::QUIET, &signals, &acts(&[(9, 'W'), (9, 'R'), (0, 'R'), (5, 'W')])).unwrap();
    let sig = modes("RRRR");
    let obs = t.observation(&sc, 1, Some(&sig));
    assert_eq!(obs.night, 2);
    assert_eq!(obs.locations, &[9, 9, 0, 5]);
    let last = obs.last_actions.unwrap();
    assert_eq!(last[0], LastAction { house: 9, mode: Mode::Work, signal: Mode::Work });
    assert_eq!(last[2], LastAction { house: 0, mode: Mode::Rest, signal: Mode::Work });
    assert_eq!(obs.signals, Some(&sig[..]));
    assert_eq!(t.lies(), [0, 0, 1, 1]);
    assert_eq!(t.work_nights(), [1, 0, 0, 1]);
}
