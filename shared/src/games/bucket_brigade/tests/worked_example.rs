//! §6.3 reproduced exactly with injected draws and scripted signals and actions (§12.8).
//! The same `Town::step` that the policy loop calls plays every night.

use super::*;
use crate::games::bucket_brigade::record;

/// Plays the three nights of §6.3 in `sc` and returns the town and each night's report.
fn play(sc: &Scenario) -> (Town, Vec<NightReport>) {
    let mut t = Town::new(4, town("....B....."));
    let mut n1 = NightDraws::QUIET;
    n1.extinguish[4] = 0.7; // k = 1, P = 0.5: house 4 is ruined
    n1.ignite[7] = 0.01; // house 7 sparks (ρ = 0.02)
    let mut n2 = NightDraws::QUIET;
    n2.extinguish[7] = 0.3; // k = 2, P = 0.75: house 7 is saved
    let nights = [
        (n1, modes("WWRR"), acts(&[(4, 'W'), (4, 'R'), (2, 'R'), (3, 'R')])),
        (n2, modes("RRRW"), acts(&[(0, 'R'), (1, 'R'), (7, 'W'), (7, 'W')])),
        (NightDraws::QUIET, modes("RRRR"), acts(&[(0, 'R'), (1, 'R'), (2, 'R'), (3, 'R')])),
    ];
    let reports = nights.iter().map(|(d, s, a)| t.step(sc, d, s, a).unwrap()).collect();
    (t, reports)
}

fn common_checks(t: &Town, reports: &[NightReport]) {
    assert_eq!(reports[0].phases.end, town("....R..B.."));
    assert_eq!(reports[1].phases.end, town("....R....."));
    assert_eq!(reports[2].phases.end, town("....R....."));
    assert_eq!(reports.iter().map(|r| r.end).collect::<Vec<_>>(), [None, None, Some(Termination::NoFires)]);
    assert_eq!(t.nights(), 3);
    assert_eq!(t.lies(), [0, 1, 1, 0]);
    assert_eq!(t.work_nights(), [1, 0, 1, 1]);
}

#[test]
fn seed_model() {
    let sc = scenario("default?min_nights=2");
    let (t, reports) = play(&sc);
    common_checks(&t, &reports);
    assert_eq!(&reports[0].rewards[..4], [-0.5, 0.5, 0.5, -0.5]);
    assert_eq!(&reports[1].rewards[..4], [0.5, 0.5, -0.5, 0.5]);
    assert_eq!(&reports[2].rewards[..4], [80.5, 140.5, 120.5, 120.5]);
    assert_eq!(t.totals(), [80.5, 141.5, 120.5, 120.5]);
    assert_eq!(t.team_reward(&sc), 78.5);

    let rec = record::build(7, &sc, &t);
    assert_eq!((rec.outcome.as_str(), rec.length, rec.truncated), ("success", 3, false));
    assert_eq!(rec.agent_rewards, [80.5, 141.5, 120.5, 120.5]);
    assert_eq!(rec.team_reward, 78.5);
    assert_eq!(
        serde_json::Value::Object(rec.stats.into_map()).to_string(),
        r#"{"termination_reason":"no_fires","houses_saved":9,"houses_ruined":1,"agent_work_nights":[1,0,1,1],"agent_lies":[0,1,1,0]}"#
    );
}

#[test]
fn reference_model() {
    let sc = scenario("default?min_nights=2&reward_model=reference");
    let (t, reports) = play(&sc);
    common_checks(&t, &reports);
    assert_eq!(&reports[0].rewards[..4], [29.5, 70.5, 70.5, 70.5]);
    assert_eq!(&reports[1].rewards[..4], [40.5, 80.5, 79.5, 99.5]);
    assert_eq!(&reports[2].rewards[..4], [40.5, 80.5, 80.5, 80.5]);
    assert_eq!(t.totals(), [110.5, 231.5, 230.5, 250.5]);
    assert_eq!(t.team_reward(&sc), 823.0);
    close(t.team_reward(&sc) / f64::from(t.nights()), 274.333_333_333_333_3);
}

#[test]
fn trajectory_hash_covers_the_spec_fields() {
    let sc = scenario("default?min_nights=2");
    let (t, _) = play(&sc);
    // Hand-fed FNV-1a: initial states, then per night t (u32), per seat signal/house/mode,
    // then the end states.
    let mut h = crate::seeding::Fnv64::new();
    h.bytes(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
    h.bytes(&1u32.to_le_bytes());
    h.bytes(&[1, 4, 1, 1, 4, 0, 0, 2, 0, 0, 3, 0]);
    h.bytes(&[0, 0, 0, 0, 2, 0, 0, 1, 0, 0]);
    h.bytes(&2u32.to_le_bytes());
    h.bytes(&[0, 0, 0, 0, 1, 0, 0, 7, 1, 1, 7, 1]);
    h.bytes(&[0, 0, 0, 0, 2, 0, 0, 0, 0, 0]);
    h.bytes(&3u32.to_le_bytes());
    h.bytes(&[0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0]);
    h.bytes(&[0, 0, 0, 0, 2, 0, 0, 0, 0, 0]);
    assert_eq!(t.hash().hex(), h.hex());
}
