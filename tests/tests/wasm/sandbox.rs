//! What the host guarantees any module, whatever it does: its state is put back before every
//! episode (memory and mutable globals, exported or not), so a one-seed replay is the episode
//! its job played; parameters it refuses refuse the sweep; and a changed module is a new sweep.

use super::{ok, rows, sweep_dir};
use simfleet_tests::agents::write_wat;
use simfleet_tests::coordinator_output;

/// A Bucket Brigade agent that remembers: a counter in a global it does not export and one in
/// its memory, both advanced every decision and never reset by `simfleet_reset`; it works at
/// house (global + memory) % 10. Without the host's reset, an episode would depend on those
/// played before it in its job.
const REMEMBERS: &str = r#"(module
  (memory (export "memory") 1)
  (global $count (mut i32) (i32.const 0))
  (data (i32.const 1024) "\93\01\00\01")
  (func (export "simfleet_buffer") (param i32) (result i32) (i32.const 0))
  (func (export "simfleet_init") (param i32) (result i32) (i32.const 0))
  (func (export "simfleet_reset") (param i64))
  (func (export "simfleet_act") (param i32) (result i64)
    (global.set $count (i32.add (global.get $count) (i32.const 1)))
    (i32.store (i32.const 2048) (i32.add (i32.load (i32.const 2048)) (i32.const 3)))
    (i32.store8 (i32.const 1026)
      (i32.rem_u (i32.add (global.get $count) (i32.load (i32.const 2048))) (i32.const 10)))
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 4))))"#;

#[test]
fn a_module_that_remembers_is_reset_before_every_episode() {
    let dir = tempfile::tempdir().unwrap();
    write_wat(&dir.path().join("remembers.wasm"), REMEMBERS);
    std::fs::write(
        dir.path().join("s.toml"),
        "name = \"remembers\"\nseeds = { start = 0, count = 12 }\nepisodes_per_job = 12\n[[cells]]\n\
         game = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\n\
         m = [\"wasm:remembers.wasm\", \"firefighter\", \"hero\", \"coordinator\"]\n",
    )
    .unwrap();
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    assert_eq!(rows.len(), 12);
    // The last seeds of the job, replayed alone: the same episodes.
    for seed in [7u64, 11] {
        let replay = super::replay(dir.path(), "m", seed);
        let played = rows.iter().find(|r| r["seed"] == seed).unwrap();
        assert_eq!(replay["record"]["trajectory_hash"], played["trajectory_hash"], "seed {seed}");
        assert_eq!(replay["record"]["team_reward"], played["team_reward"], "seed {seed}");
    }
}

#[test]
fn parameters_a_module_refuses_refuse_the_sweep() {
    let dir = sweep_dir(
        &["bb_archetype"],
        "name = \"villain\"\nseeds = { start = 0, count = 2 }\n[[cells]]\ngame = \"bucket_brigade\"\n\
         scenarios = [\"default\"]\n[cells.policy_sets]\n\
         v = [\"hero\", \"wasm:bb_archetype.wasm?archetype=villain\", \"hero\", \"hero\"]\n",
    );
    let s = dir.path().join("s.toml");
    let out = coordinator_output(&["run", s.to_str().unwrap(), "--out", dir.path().join("r.jsonl").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cells[0].policy_sets.v[1]") && stderr.contains("simfleet_init refused"), "{stderr}");
    assert!(stderr.contains("villain"), "names the parameter: {stderr}");
}

#[test]
fn a_changed_module_is_a_new_sweep() {
    let text = "name = \"same-name\"\nseeds = { start = 0, count = 2 }\n[[cells]]\ngame = \"bucket_brigade\"\n\
        scenarios = [\"default\"]\n[cells.policy_sets]\nm = [\"wasm:entry.wasm?label=entry\", \"hero\", \"hero\", \"hero\"]\n";
    let dir = sweep_dir(&["bb_archetype", "illegal"], text);
    let id = |module: &str| {
        std::fs::copy(dir.path().join(module), dir.path().join("entry.wasm")).unwrap();
        coordinator::sweep::Sweep::load(&dir.path().join("s.toml")).unwrap().id
    };
    let (first, second, again) = (id("bb_archetype.wasm"), id("illegal.wasm"), id("bb_archetype.wasm"));
    assert_ne!(first, second, "another module, another sweep");
    assert_eq!(first, again, "the same bytes, the same sweep");
}
