//! Role selection (§13.9), spec parsing and ranks (§13.3), the debug string grammar (§13.10),
//! and the fixed seats' first action.

use super::cfg;
use crate::games::cogsguard::pinky::select::{fill_targets, Need};
use crate::games::cogsguard::pinky::{Mode, Mood, Role};
use crate::games::cogsguard::tests::{game, PINKY8};
use crate::games::cogsguard::types::action;
use crate::games::Game;

#[test]
fn fixed_roles_follow_rank_and_parameter_order_does_not_matter() {
    let c = cfg(PINKY8);
    let roles: Vec<Option<Role>> = (0..8).map(|k| c.fixed_role(k)).collect();
    use Role::*;
    assert_eq!(
        roles,
        [Some(Miner), Some(Miner), Some(Scout), Some(Aligner), Some(Aligner), Some(Scrambler), None, None]
    );
    assert_eq!(cfg("pinky?scrambler=1&aligner=2&scout=1&miner=2"), c);
    assert_eq!((c.timeout, c.review), (100, 100));
    let g =
        game("arena", &["pinky?miner=1", "pinky?aligner=1", "pinky?miner=1", "noop", "noop", "noop", "noop", "noop"]);
    let ranks: Vec<(usize, bool)> = g.policies()[..3]
        .iter()
        .map(|p| match p {
            crate::games::cogsguard::policies::Policy::Pinky(p) => (p.rank, p.fixed),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(ranks, [(0, true), (0, true), (1, false)]);
}

#[test]
fn fill_sequence_and_tie_order() {
    assert_eq!(fill_targets(8), [3, 1, 2, 2]); // miner, scout, aligner, scrambler
    assert_eq!(fill_targets(3), [1, 0, 1, 1]);
    assert_eq!(fill_targets(10), [4, 1, 3, 2]);
    let need = Need { target: [3, 1, 3, 1], count: [2, 1, 2, 1] };
    assert_eq!(need.pick(), Role::Miner, "miner and aligner tie: miner first");
    let need = Need { target: [3, 1, 3, 1], count: [3, 1, 2, 1] };
    assert_eq!(need.pick(), Role::Aligner);
}

/// The debug strings of one replay, by tick and seat.
fn debug_strings(scenario: &str, team: &[&str], seed: u64) -> Vec<Vec<String>> {
    let mut g = game(scenario, team);
    let replay = g.play(seed, true).replay.unwrap();
    let v: serde_json::Value = serde_json::from_str(&replay).unwrap();
    v["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["debug"].as_array().unwrap().iter().map(|d| d.as_str().unwrap_or("").to_string()).collect())
        .collect()
}

#[test]
fn fixed_seats_announce_their_role_first_and_flexible_seats_choose_at_their_step() {
    let d = debug_strings("arena?max_steps=20", &[PINKY8; 8], 1);
    for (seat, role) in [(0, "miner"), (1, "miner"), (2, "scout"), (3, "aligner"), (4, "aligner"), (5, "scrambler")] {
        assert!(d[0][seat].ends_with(&format!(":change_vibe_{role}")), "{}", d[0][seat]);
    }
    assert_eq!(d[0][3], "aligner:idle:cautious:none→none:change_vibe_aligner");
    // Flexible seats rest until s = id % 8, then choose (decision step s is tick s + 1).
    assert!(d[0][6].starts_with("resting:idle:"));
    assert_eq!(&d[6][6][..22], "choosing_role:idle:cal");
    assert!(d[6][6].ends_with(":change_vibe_miner"), "{}", d[6][6]);
    assert!(d[7][7].starts_with("choosing_role:") && d[7][7].ends_with(":change_vibe_aligner"), "{}", d[7][7]);
    assert!(d[8][6].starts_with("miner:") && d[8][7].starts_with("aligner:"));
}

#[test]
fn debug_strings_parse_as_the_grammar() {
    let roles: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
    let modes: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
    let moods: Vec<&str> =
        [Mood::Calm, Mood::Cautious, Mood::Urgent, Mood::Desperate].iter().map(|m| m.name()).collect();
    let labels = ["hub", "junction", "chest", "frontier", "safe", "cell"];
    let mut seen_dest = 0;
    for ticks in [
        debug_strings("arena?max_steps=400", &[PINKY8; 8], 2),
        debug_strings("ascii?map=tiny_3p", &["pinky?miner=1&aligner=1&scrambler=1"; 3], 42),
    ] {
        for s in ticks.iter().flatten() {
            let f: Vec<&str> = s.split(':').collect();
            assert_eq!(f.len(), 5, "{s}");
            assert!(roles.contains(&f[0]) && modes.contains(&f[1]) && moods.contains(&f[2]), "{s}");
            assert!(action::NAMES.contains(&f[4]), "{s}");
            let (goal, dest) = f[3].split_once('→').unwrap_or_else(|| panic!("{s}"));
            assert!(!goal.is_empty() && goal.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{s}");
            if dest != "none" {
                let (label, rest) = dest.split_once('(').unwrap_or_else(|| panic!("{s}"));
                let ok = labels.contains(&label) || label.ends_with("_extractor") || label.ends_with("_station");
                assert!(ok, "{s}");
                let (r, c) = rest.strip_suffix(')').and_then(|x| x.split_once(',')).unwrap_or_else(|| panic!("{s}"));
                assert!(r.parse::<u16>().is_ok() && c.parse::<u16>().is_ok(), "{s}");
                seen_dest += 1;
            } else {
                assert!(goal != "none" || dest == "none");
            }
        }
    }
    assert!(seen_dest > 100);
}

#[test]
fn noop_on_arena_holds_no_junction_and_ends_clips_ahead() {
    for seed in 1..=3 {
        let r = game("arena", &["noop"; 8]).play(seed, false).record;
        assert_eq!(r.stats.as_map()["junctions_time_avg"]["cogs"], 0.0);
        assert_eq!(r.outcome, "clips_ahead");
        assert_eq!(r.team_reward, 0.0);
    }
}

#[test]
fn mode_occupancy_fractions_sum_to_one_per_role() {
    let r = game("arena?max_steps=300", &[PINKY8; 8]).play(3, false).record;
    let occ = r.stats.as_map()["mode_occupancy"].as_object().unwrap();
    let mut steps = 0;
    for (_, v) in occ {
        let m = v.as_object().unwrap();
        steps += m["agent_steps"].as_u64().unwrap();
        let sum: f64 = m.iter().filter(|(k, _)| *k != "agent_steps").map(|(_, x)| x.as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-9);
    }
    assert_eq!(steps, 8 * 300);
    assert!(occ.contains_key("miner") && occ.contains_key("choosing_role"));
}
