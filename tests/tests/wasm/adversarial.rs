//! Adversarial entries through `coordinator run`: a module that loops forever, one that asks
//! for memory without end, one that traps and one that answers outside the action space lose
//! their decisions to the fallback, counted, while every other seat's episodes are played; a
//! module that imports a forbidden function and one of garbage bytes are refused before
//! anything is played, naming the file and the reason. A replay of an episode in which a
//! module ran out of fuel reproduces it byte for byte.

use super::{agents_in, ok, records_of, rows, sweep_dir};
use simfleet_tests::coordinator_output;

const SWEEP: &str = r#"name = "bb-adversaries"
seeds = { start = 0, count = 30 }
[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
spin = ["wasm:spin.wasm?fuel=2000000", "firefighter", "hero", "coordinator"]
bomb = ["wasm:bomb.wasm?memory_mb=4", "firefighter", "hero", "coordinator"]
trap = ["wasm:trap.wasm", "firefighter", "hero", "coordinator"]
illegal = ["wasm:illegal.wasm", "firefighter", "hero", "coordinator"]
native = ["random", "firefighter", "hero", "coordinator"]
"#;

#[test]
fn adversarial_entries_lose_their_decisions_to_the_fallback_and_the_rest_plays() {
    let dir = sweep_dir(&["spin", "bomb", "trap", "illegal"], SWEEP);
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    assert_eq!(rows.len(), 150, "every episode of every entry is played");
    for (set, fault) in
        [("spin", Some("out_of_fuel")), ("bomb", Some("memory")), ("trap", Some("trap")), ("illegal", None)]
    {
        for r in records_of(&rows, set) {
            let f = &r["stats"]["outside"]["0"];
            assert_eq!(f["fault"].as_str(), fault, "{set}: {r}");
            let decisions = f["decisions"].as_u64().unwrap();
            assert_eq!(decisions, 2 * r["length"].as_u64().unwrap(), "{set}: two decisions a night");
            match fault {
                // A fault at the first decision: the fallback decides the whole episode.
                Some("out_of_fuel" | "memory") => assert_eq!(f["faulted"].as_u64(), Some(decisions), "{set}: {r}"),
                Some(_) => assert_eq!(f["faulted"].as_u64(), Some(decisions - 2), "{set}: {r}"),
                None => assert_eq!(f["illegal"].as_u64(), Some(decisions), "{set}: {r}"),
            }
        }
    }
    // The fallback is `random` on the seat's stream: a module that faults at its first decision
    // plays the native `random` seat's episodes.
    let native = records_of(&rows, "native");
    for set in ["spin", "bomb"] {
        let played: Vec<_> = records_of(&rows, set)
            .into_iter()
            .map(|mut r| {
                r["stats"].as_object_mut().unwrap().remove("outside");
                r
            })
            .collect();
        assert!(played == native, "{set}'s episodes are the random seat's");
    }
}

#[test]
fn a_replay_of_an_episode_that_ran_out_of_fuel_is_the_episode() {
    let dir = sweep_dir(&["spin", "bomb", "trap", "illegal"], SWEEP);
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    let spun = records_of(&rows, "spin");
    for seed in [3u64, 17] {
        let replay = super::replay(dir.path(), "spin", seed);
        let record = &spun[seed as usize];
        assert_eq!(replay["record"]["stats"], record["stats"], "seed {seed}");
        assert_eq!(replay["record"]["trajectory_hash"], record["trajectory_hash"], "seed {seed}");
        assert_eq!(replay["record"]["stats"]["outside"]["0"]["fault"], "out_of_fuel");
    }
}

#[test]
fn a_forbidden_import_and_garbage_bytes_are_refused_before_anything_is_played() {
    let dir = tempfile::tempdir().unwrap();
    agents_in(dir.path(), &["forbidden"]);
    std::fs::write(dir.path().join("garbage.wasm"), b"\0asm\x01\0\0\0this is not a module").unwrap();
    std::fs::write(dir.path().join("text.wasm"), b"#!/bin/sh\necho hello\n").unwrap();
    for (file, reason) in [
        ("forbidden.wasm", "imports env.clock_ms"),
        ("garbage.wasm", "not a valid WebAssembly module"),
        ("text.wasm", "not a valid WebAssembly module"),
    ] {
        let sweep = format!(
            "name = \"refused\"\nseeds = {{ start = 0, count = 5 }}\n[[cells]]\ngame = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\nbad = [\"firefighter\", \"wasm:{file}\", \"hero\", \"hero\"]\n"
        );
        std::fs::write(dir.path().join("s.toml"), sweep).unwrap();
        let out = coordinator_output(&[
            "run",
            dir.path().join("s.toml").to_str().unwrap(),
            "--out",
            dir.path().join("r.jsonl").to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains("s.toml:7: cells[0].policy_sets.bad[1]"), "{file}: the line and the seat: {stderr}");
        assert!(stderr.contains(file) && stderr.contains(reason), "{file}: {stderr}");
        assert!(!dir.path().join("r.jsonl").exists(), "{file}: nothing was played");
    }
}

#[test]
fn an_infinite_loop_with_the_default_fuel_loses_its_episode_and_the_run_ends() {
    // As a new user writes it: no fuel or memory keys, the defaults bound the loop.
    let sweep = "name = \"spin-defaults\"\nseeds = { start = 0, count = 3 }\n[[cells]]\ngame = \"bucket_brigade\"\n\
        scenarios = [\"default\"]\n[cells.policy_sets]\nspin = [\"wasm:spin.wasm\", \"firefighter\", \"hero\", \"coordinator\"]\n";
    let dir = sweep_dir(&["spin"], sweep);
    let stdout = {
        let s = dir.path().join("s.toml");
        let r = dir.path().join("r.jsonl");
        let out = coordinator_output(&["run", s.to_str().unwrap(), "--out", r.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(stdout.contains("spin[0] wasm:spin: 3 episodes, 3 faulted (out_of_fuel 3)"), "the faults table:\n{stdout}");
    let rows = rows(&dir.path().join("r.jsonl"));
    assert!(rows.iter().all(|r| r["stats"]["outside"]["0"]["fault"] == "out_of_fuel"));
}
