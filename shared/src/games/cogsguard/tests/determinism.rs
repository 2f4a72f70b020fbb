//! Determinism (same seed ⇒ same bytes; job splits and seed order do not matter), the replay's
//! shape, and the no-allocation-per-tick check.

use super::{game, PINKY8};
use crate::games::Game;
use crate::protocol::{encode, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use crate::runner::run_job;
use crate::RunEnv;

fn job(seats: &[&str], start: u64, count: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "cg-000000000000".into(),
        index: 0,
        game: "cogsguard".into(),
        scenario: "arena?max_steps=200".into(),
        policy_set: PolicySet { name: "p".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
        seeds: SeedRange { start, count },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

#[test]
fn same_seed_same_bytes_whatever_ran_before() {
    let mut team = vec![PINKY8; 6];
    team.extend(["random", "noop"]);
    let mut g = game("arena?max_steps=300", &team);
    let a: Vec<Vec<u8>> = [3, 1, 2].iter().map(|&s| encode(&g.play(s, false).record)).collect();
    let b: Vec<Vec<u8>> = [2, 3, 1].iter().map(|&s| encode(&g.play(s, false).record)).collect();
    assert_eq!((&a[0], &a[1], &a[2]), (&b[1], &b[2], &b[0]));
    let fresh = encode(&game("arena?max_steps=300", &team).play(1, false).record);
    assert_eq!(fresh, a[1]);
}

#[test]
fn a_job_split_differently_gives_the_same_records() {
    let seats = [PINKY8, PINKY8, PINKY8, "random", PINKY8, PINKY8, "noop", PINKY8];
    let whole = run_job(&job(&seats, 10, 4), &RunEnv::default());
    assert!(whole.error.is_none(), "{:?}", whole.error);
    let mut parts = run_job(&job(&seats, 10, 1), &RunEnv::default()).records;
    parts.extend(run_job(&job(&seats, 11, 3), &RunEnv::default()).records);
    assert_eq!(encode(&whole.records), encode(&parts));
    assert!(whole.engine_version.ends_with("+cogsguard-rules-1"));
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
