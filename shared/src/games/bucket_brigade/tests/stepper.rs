//! The stepper against `play`: with every outside seat choosing what its scripted policy
//! (deciding from the view) would, the stepped episode is the played one, record for record.

use super::*;
use crate::spec::Spec;

fn team(specs: &[&str]) -> Vec<AnyPolicy> {
    specs.iter().enumerate().map(|(i, s)| AnyPolicy::from_spec(i, &Spec::parse(s).unwrap()).unwrap()).collect()
}

/// Steps `seed` with the seats in `outside` played from views by their own scripted policy.
fn stepped(sc: Scenario, policies: &[AnyPolicy], outside: &[usize], seed: u64) -> crate::EpisodeRecord {
    let entries: Vec<_> = policies.iter().enumerate().map(|(i, p)| (!outside.contains(&i)).then_some(*p)).collect();
    let mut stepper = Stepper::new(sc, &entries);
    let mut agents: Vec<_> = outside.iter().map(|&i| ScriptedSeat::new(policies[i], i, sc)).collect();
    stepper.reset(seed);
    agents.iter_mut().for_each(|a| a.reset(seed));
    loop {
        let choices: Vec<_> = outside.iter().zip(&mut agents).map(|(&i, a)| a.decide(&stepper.view(i))).collect();
        let out = stepper.step(&choices).unwrap();
        if out.terminated || out.truncated {
            return stepper.record().unwrap();
        }
        assert!(stepper.record().is_none());
    }
}

#[test]
fn a_stepped_episode_with_scripted_choices_is_the_played_one() {
    for (sc, specs) in [
        ("default", ["firefighter", "random", "liar", "hero"]),
        ("hard", ["coordinator", "free_rider", "random", "firefighter"]),
    ] {
        let sc = scenario(sc);
        let policies = team(&specs);
        let seated: Vec<_> = policies.iter().zip(specs).map(|(p, s)| (*p, s.to_string())).collect();
        let mut game = BucketBrigade::new(sc, &seated).unwrap();
        for seed in 0..40 {
            let played = game.play(seed, false).record;
            for outside in [vec![0], vec![1, 3], vec![0, 1, 2, 3]] {
                assert_eq!(stepped(sc, &policies, &outside, seed), played, "seed {seed}, outside {outside:?}");
            }
        }
    }
}

#[test]
fn a_refused_house_changes_nothing() {
    let sc = scenario("default");
    let policies = team(&["random"; 4]);
    let entries = [None, Some(policies[1]), Some(policies[2]), Some(policies[3])];
    let mut stepper = Stepper::new(sc, &entries);
    stepper.reset(3);
    let c = Choice { signal: Mode::Work, house: 2, mode: Mode::Work };
    stepper.step(&[c]).unwrap();
    let before = stepper.clone();
    let bad = Choice { house: 10, ..c };
    assert_eq!(stepper.step(&[bad]), Err(StepError::HouseOutOfRange { seat: 0, house: 10 }));
    assert_eq!(format!("{:?}", stepper), format!("{before:?}"));
    assert_eq!(stepper.step(&[]), Err(StepError::WrongCount { expected: 1, signals: 0, actions: 0 }));
}

#[test]
fn a_view_survives_its_codes() {
    let sc = scenario("default");
    let mut stepper = Stepper::new(sc, &[None, None, None, None]);
    stepper.reset(11);
    let c = Choice { signal: Mode::Work, house: 4, mode: Mode::Work };
    for _ in 0..5 {
        for seat in 0..4 {
            let view = stepper.view(seat);
            let (mut phase, mut night) = (0, 0);
            let mut b = [[0u8; 10]; 6];
            let [houses, locations, lh, lm, ls, signals] = &mut b;
            view.write_codes(
                &sc,
                &mut CodesMut {
                    phase: &mut phase,
                    night: &mut night,
                    houses,
                    locations: &mut locations[..4],
                    last_houses: &mut lh[..4],
                    last_modes: &mut lm[..4],
                    last_signals: &mut ls[..4],
                    signals: &mut signals[..4],
                },
            );
            let codes = Codes {
                phase,
                night,
                houses: &b[0],
                locations: &b[1][..4],
                last_houses: &b[2][..4],
                last_modes: &b[3][..4],
                last_signals: &b[4][..4],
                signals: &b[5][..4],
            };
            assert_eq!(View::from_codes(seat, &codes).unwrap(), view);
        }
        stepper.step(&[c; 4]).unwrap();
    }
}
