//! Determinism (same job ⇒ same bytes, by the games' determinism driver), the replay's shape,
//! and the no-allocation-per-tick check.

use super::{game, PINKY8};
use crate::games::testing::same_job_same_bytes;
use crate::games::{Game, GameKind};

#[test]
fn same_job_same_bytes_however_run() {
    let seats = [PINKY8, PINKY8, PINKY8, "random", PINKY8, PINKY8, "noop", PINKY8];
    same_job_same_bytes(GameKind::Cogsguard, "arena?max_steps=200", &seats, 10, 4);
    same_job_same_bytes(GameKind::Cogsguard, "ascii?map=tiny_3p&max_steps=60", &["random"; 3], 1, 3);
}

#[test]
fn the_record_is_the_same_with_or_without_a_replay_and_the_replay_has_its_shape() {
    let mut g = game("ascii?map=tiny_3p&max_steps=60", &["pinky?miner=1&aligner=1&scrambler=1"; 3]);
    let plain = g.play(42, false);
    let with = g.play(42, true);
    assert_eq!(plain.record, with.record);
    assert!(plain.replay.is_none());
    let v: serde_json::Value = serde_json::from_str(&with.replay.unwrap()).unwrap();
    assert_eq!(v["rules_version"], "cogsguard-rules-1");
    assert_eq!(v["game"], "cogsguard");
    assert_eq!(v["seed"], "42");
    assert_eq!(v["scenario"]["name"], "ascii");
    assert_eq!(v["scenario"]["max_steps"], 60);
    assert_eq!(v["policies"][2], "pinky?miner=1&aligner=1&scrambler=1");
    assert_eq!(v["record"]["trajectory_hash"], plain.record.trajectory_hash.as_str());
    assert_eq!(v["initial_map"][4], "#################");
    let ticks = v["ticks"].as_array().unwrap();
    assert_eq!(ticks.len(), 60);
    assert_eq!(ticks[0]["t"], 1);
    assert_eq!(ticks[0]["actions"].as_array().unwrap().len(), 3);
    assert!(ticks[0]["debug"][0].as_str().unwrap().starts_with("miner:idle:"));
    assert!(ticks[9]["events"].as_array().unwrap().iter().any(|e| e["event"] == "initial_clips"));
    // The initial map loads back into the same world.
    let text: Vec<&str> = v["initial_map"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let back = super::world(&text.join("\n"));
    assert_eq!(back.agents.len(), 3);
}

#[test]
fn no_buffer_grows_after_warm_up() {
    // No counting allocator (unsafe is forbidden in this workspace): instead every buffer's
    // (address, capacity) must stay the same over 1000 ticks once the first ticks have run.
    for team in [vec!["noop"; 8], vec!["random"; 8], vec![PINKY8; 8]] {
        let mut g = game("arena?max_steps=1100", &team);
        g.begin(5, false);
        for _ in 0..20 {
            g.advance();
        }
        let before = g.buffer_fingerprint();
        for _ in 0..1000 {
            g.advance();
        }
        assert_eq!(g.buffer_fingerprint(), before, "{}", team[0]);
    }
}
