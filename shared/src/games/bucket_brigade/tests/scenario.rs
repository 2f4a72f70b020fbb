//! §2: scenario overrides, validation and its error messages.

use super::*;
use crate::protocol::JobError;
use crate::spec::Spec;

fn resolve(s: &str) -> Result<Scenario, JobError> {
    Scenario::from_spec(&Spec::parse(s).unwrap())
}

fn message(s: &str) -> String {
    resolve(s).unwrap_err().to_string()
}

#[test]
fn overrides_apply_in_order_over_the_base() {
    let sc = resolve("rest_trap?reward_model=reference&num_agents=6&spread_before_burnout=true").unwrap();
    assert_eq!(sc.name, "rest_trap");
    assert_eq!(sc.reward_model, RewardModel::Reference);
    assert_eq!(sc.num_agents, 6);
    assert!(sc.spread_before_burnout);
    assert_eq!(sc.prob_solo_agent_extinguishes_fire, 0.95);
    assert_eq!(sc.cost_to_work_one_night, 0.2);
    let sc = resolve("default?cost_to_work_one_night=-3.5&min_nights=0&alpha_own=0").unwrap();
    assert_eq!((sc.cost_to_work_one_night, sc.min_nights, sc.alpha_own), (-3.5, 0, 0.0));
}

#[test]
fn validation_messages_name_field_and_value() {
    assert_eq!(
        message("default?prob_house_catches_fire=1.5"),
        "invalid scenario.prob_house_catches_fire = 1.5: must be within [0, 1]"
    );
    assert_eq!(message("default?num_agents=11"), "invalid scenario.num_agents = 11: must be within 4..=10");
    assert_eq!(message("default?num_agents=3"), "invalid scenario.num_agents = 3: must be within 4..=10");
    assert_eq!(message("default?num_agents=4.0"), "invalid scenario.num_agents = 4.0: not an integer");
    assert_eq!(message("default?min_nights=101"), "invalid scenario.min_nights = 101: must be within 0..=100");
    assert_eq!(message("default?min_nights=-1"), "invalid scenario.min_nights = -1: must be within 0..=100");
    assert_eq!(
        message("default?prob_fire_spreads_to_neighbor=-0.1"),
        "invalid scenario.prob_fire_spreads_to_neighbor = -0.1: must be within [0, 1]"
    );
    assert_eq!(message("default?reward_rest=NaN"), "invalid scenario.reward_rest = NaN: must be a finite number");
    assert_eq!(message("default?alpha_own=inf"), "invalid scenario.alpha_own = inf: must be a finite number");
    assert_eq!(message("default?team_share_gamma=abc"), "invalid scenario.team_share_gamma = abc: not a number");
    assert_eq!(
        message("default?reward_model=Seed"),
        "invalid scenario.reward_model = Seed: must be one of seed, reference"
    );
    assert_eq!(
        message("default?spread_before_burnout=1"),
        "invalid scenario.spread_before_burnout = 1: must be true or false"
    );
}

#[test]
fn unknown_names_and_fields_are_named() {
    let e = resolve("nowhere").unwrap_err();
    assert_eq!((e.field.as_deref(), e.value.as_deref()), (Some("scenario"), Some("nowhere")));
    assert!(e.message.starts_with("unknown scenario (known: default, easy, hard,"), "{e}");
    let e = resolve("default?num_agent=5").unwrap_err();
    assert_eq!((e.field.as_deref(), e.value.as_deref()), (Some("scenario.num_agent"), Some("5")));
    assert!(e.message.starts_with("unknown field"), "{e}");
    let e = resolve("default:x").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("scenario"));
    let twice = Spec {
        name: "default".into(),
        arg: None,
        params: vec![("min_nights".into(), "3".into()), ("min_nights".into(), "4".into())],
    };
    let e = Scenario::from_spec(&twice).unwrap_err();
    assert_eq!(e.to_string(), "invalid scenario.min_nights = 4: field given twice");
}

#[test]
fn validate_catches_hand_built_values() {
    let mut sc = Scenario::default_scenario();
    assert!(sc.validate().is_ok());
    sc.prob_solo_agent_extinguishes_fire = 2.0;
    assert_eq!(
        sc.validate().unwrap_err().to_string(),
        "invalid scenario.prob_solo_agent_extinguishes_fire = 2: must be within [0, 1]"
    );
    let mut sc = Scenario::default_scenario();
    sc.reward_rest = f64::NEG_INFINITY;
    assert_eq!(sc.validate().unwrap_err().field.as_deref(), Some("scenario.reward_rest"));
    let mut sc = Scenario::default_scenario();
    sc.num_agents = 12;
    assert!(sc.validate().is_err());
}

#[test]
fn every_field_round_trips_through_its_written_form() {
    let sc = resolve("hard?reward_model=reference&spread_before_burnout=true").unwrap();
    let mut copy = Scenario::default_scenario();
    for name in FIELDS {
        copy.set(name, &sc.get(name).unwrap().to_string()).unwrap();
    }
    assert_eq!(Scenario { name: sc.name, ..copy }, sc);
    assert_eq!(sc.get("nope"), None);
}

#[test]
fn ownership_is_house_mod_n() {
    let sc = Scenario::default_scenario();
    let owned = |i: usize| (0..10).filter(|&h| sc.owner(h) == i).collect::<Vec<_>>();
    assert_eq!(owned(0), [0, 4, 8]);
    assert_eq!(owned(1), [1, 5, 9]);
    assert_eq!(owned(2), [2, 6]);
    assert_eq!(owned(3), [3, 7]);
}

#[test]
fn the_direct_check_agrees_with_the_round_trip() {
    // `validate` checks ranges directly and goes through `set` only for a scenario that fails
    // them: both must accept and refuse the same scenarios, field by field and at every edge.
    let reals = [0.0, -0.0, 1.0, 0.5, 1.0 + f64::EPSILON, -f64::MIN_POSITIVE, 1e300, -1e300, f64::INFINITY, f64::NAN];
    let mut checked = 0;
    for name in named::NAMES {
        let base = Scenario::named(name).unwrap();
        assert!(base.in_range() && base.round_trip().is_ok(), "{name}");
        for field in FIELDS {
            let values: Vec<String> = match base.get(field).unwrap() {
                FieldValue::Int(_) => ["0", "3", "4", "10", "11", "100", "101"].map(String::from).to_vec(),
                FieldValue::Real(_) => reals.iter().map(|v| v.to_string()).collect(),
                _ => continue,
            };
            for value in values {
                let mut sc = base;
                // Set directly where `set` would refuse, to build the out-of-range scenario.
                match (field, value.parse::<f64>()) {
                    ("num_agents", Ok(v)) => sc.num_agents = v as usize,
                    ("min_nights", Ok(v)) => sc.min_nights = v as u32,
                    (_, Ok(v)) => *real_field(&mut sc, field) = v,
                    _ => unreachable!(),
                }
                assert_eq!(sc.in_range(), sc.round_trip().is_ok(), "{name}: {field} = {value}");
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

/// The real-valued field `name`, to write unchecked.
fn real_field<'a>(sc: &'a mut Scenario, name: &str) -> &'a mut f64 {
    match name {
        "prob_fire_spreads_to_neighbor" => &mut sc.prob_fire_spreads_to_neighbor,
        "prob_solo_agent_extinguishes_fire" => &mut sc.prob_solo_agent_extinguishes_fire,
        "prob_house_catches_fire" => &mut sc.prob_house_catches_fire,
        "team_reward_house_survives" => &mut sc.team_reward_house_survives,
        "team_penalty_house_burns" => &mut sc.team_penalty_house_burns,
        "cost_to_work_one_night" => &mut sc.cost_to_work_one_night,
        "reward_own_house_survives" => &mut sc.reward_own_house_survives,
        "reward_other_house_survives" => &mut sc.reward_other_house_survives,
        "penalty_own_house_burns" => &mut sc.penalty_own_house_burns,
        "penalty_other_house_burns" => &mut sc.penalty_other_house_burns,
        "reward_rest" => &mut sc.reward_rest,
        "team_share_gamma" => &mut sc.team_share_gamma,
        "alpha_own" => &mut sc.alpha_own,
        other => panic!("{other} is not a real field"),
    }
}
