//! §6: every reward term of both models against hand-computed values.

use super::*;
use crate::games::bucket_brigade::rewards::{nightly, team, terminal};

#[test]
fn seed_nightly_pays_mode_and_owned_safe_change() {
    // N = 5: agent 0 owns {0,5}, 1 {1,6}, 2 {2,7}, 3 {3,8}, 4 {4,9}.
    let sc = scenario("default?num_agents=5&alpha_own=2");
    let start = town("B....B....");
    let end = town(".....B.B..");
    let a = acts(&[(0, 'W'), (1, 'R'), (2, 'R'), (3, 'W'), (4, 'R')]);
    let r = nightly(&sc, &start, &end, &a);
    // a0: −c + 2·(1 − 0); a2: +r_rest + 2·(1 − 2); a3: −c.
    assert_eq!(&r[..5], [1.5, 0.5, -1.5, -0.5, 0.5]);
    assert_eq!(&r[5..], [0.0; 5]);
}

#[test]
fn seed_terminal_pays_team_share_and_ownership_once() {
    let sc =
        scenario("default?num_agents=5&reward_other_house_survives=3&penalty_other_house_burns=7&team_share_gamma=0.5");
    // Safe 7, Ruined 2, Burning 1 (a truncated ending): SF 0.7, BF 0.2, γ·(70 − 20) = 25.
    let fin = town("RR.B......");
    let e = terminal(&sc, &fin);
    // a0 owns {0,5}: 25 + 20·1 + 3·6 − 40·1 − 7·1 = 16 (a1 alike); a2 owns {2,7}, both Safe:
    // 25 + 20·2 + 3·5 − 0 − 7·2 = 66 (a4 alike); a3 owns {3,8}, 3 still Burning counts in
    // neither: 25 + 20·1 + 3·6 − 0 − 7·2 = 49.
    assert_eq!(&e[..5], [16.0, 16.0, 66.0, 49.0, 66.0]);
    // R_team = A·SF − L·BF − c·W, not Σ R_i.
    assert_eq!(team(&sc, &fin, 7, &[1.0; 5]), 46.5);
}

#[test]
fn reference_nightly_pays_bonus_penalty_and_team_term_every_night() {
    let sc = scenario("default?reward_model=reference&reward_other_house_survives=3&penalty_other_house_burns=7");
    // House 0 saved (B→S, owner 0); 1 sparked; 4 burnt out (owner 0); 7 still Ruined (owner 3).
    let start = town("B...B..R..");
    let end = town(".B..R..R..");
    let a = acts(&[(0, 'W'), (1, 'R'), (4, 'W'), (3, 'R')]);
    let r = nightly(&sc, &start, &end, &a);
    // Team term A·7/10 − L·2/10 = 50 to everyone.
    assert_eq!(
        &r[..4],
        [-0.5 + 20.0 - 47.0 + 50.0, 0.5 + 3.0 - 14.0 + 50.0, -0.5 + 3.0 - 14.0 + 50.0, 0.5 + 3.0 - 47.0 + 50.0]
    );
    // No terminal payout; R_team = Σ R_i.
    assert_eq!(terminal(&sc, &end), [0.0; MAX_AGENTS]);
    assert_eq!(team(&sc, &end, 99, &[1.5, 2.0, -0.5]), 3.0);
}

#[test]
fn reference_save_bonus_needs_a_not_safe_start_and_a_safe_end() {
    let sc = scenario("default?reward_model=reference");
    // Saved then re-ignited (B→B) earns no bonus; an initial fire put out on night 1 does.
    let a = acts(&[(0, 'R'), (1, 'R'), (2, 'R'), (3, 'R')]);
    let r = nightly(&sc, &town("B...B....."), &town("....B....."), &a);
    assert_eq!(&r[..4], [0.5 + 20.0 + 90.0, 90.5, 90.5, 90.5]);
}

#[test]
fn seed_episode_pays_the_terminal_term_on_the_last_night() {
    // ρ = 0, no fire: T = n_min + 1 = 3; r_i(t) = r_rest or −c; E_i = γ·A + a_own·owned.
    let sc = scenario("default?min_nights=2&prob_house_catches_fire=0");
    let mut t = Town::new(4, ALL_SAFE);
    let signals = modes("RRRR");
    let all = |m: char| acts(&[(0, m), (1, m), (2, m), (3, m)]);
    let r1 = t.step(&sc, &NightDraws::QUIET, &signals, &all('W')).unwrap();
    assert_eq!(&r1.rewards[..4], [-0.5; 4]);
    t.step(&sc, &NightDraws::QUIET, &signals, &all('R')).unwrap();
    let r3 = t.step(&sc, &NightDraws::QUIET, &signals, &all('R')).unwrap();
    assert_eq!(r3.end, Some(Termination::NoFires));
    assert_eq!(&r3.rewards[..4], [160.5, 160.5, 140.5, 140.5]);
    assert_eq!(t.totals(), [160.5, 160.5, 140.5, 140.5]);
    assert_eq!(t.team_reward(&sc), 100.0 - 0.5 * 4.0);
}
