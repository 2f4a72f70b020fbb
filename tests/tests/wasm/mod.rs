//! `wasm:` seats end to end, through the `coordinator` and `worker` binaries: the test agents
//! of `tests/agents/` (C, built by clang on first use) as ports of built-in policies, byte for
//! byte, and as adversarial entries; modules shipped through the JetStream object store.

mod adversarial;
mod fleet;
mod ports;
mod sandbox;
mod tournament;

use std::path::Path;

use serde_json::Value;
use simfleet_tests::agents::agent;
use simfleet_tests::coordinator_output;

/// Copies the test agents `names` into `dir` (sweep files name them relative to themselves).
fn agents_in(dir: &Path, names: &[&str]) {
    for name in names {
        std::fs::copy(agent(name), dir.join(format!("{name}.wasm"))).unwrap();
    }
}

/// A new folder holding the test agents `agents` and the sweep file `s.toml` of `sweep`.
fn sweep_dir(agents: &[&str], sweep: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    agents_in(dir.path(), agents);
    std::fs::write(dir.path().join("s.toml"), sweep).unwrap();
    dir
}

/// `coordinator ARGS` run in `dir`, which must succeed; its stderr.
fn ok(dir: &Path, args: &[&str]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a.ends_with(".toml") || a.ends_with(".jsonl") {
                dir.join(a).display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = coordinator_output(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "coordinator {args:?} failed:\n{stderr}");
    stderr
}

/// `coordinator replay` of seed `seed` of policy set `set` (scenario `default`) of the sweep
/// `s.toml` in `dir`, which must succeed: the replay's JSON.
fn replay(dir: &Path, set: &str, seed: u64) -> Value {
    let sweep = dir.join("s.toml");
    let seed = seed.to_string();
    let args = ["replay", sweep.to_str().unwrap(), "--scenario", "default", "--policy-set", set, "--seed", &seed];
    let out = coordinator_output(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The rows of a JSON Lines records file, in file order.
fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The rows of policy set `set`, by seed, without the columns that name the cell (the record's
/// own fields: seed, outcome, length, rewards, trajectory hash, stats without `modules`).
fn records_of(rows: &[Value], set: &str) -> Vec<Value> {
    let mut out: Vec<Value> = rows
        .iter()
        .filter(|r| r["policy_set"] == set)
        .map(|r| {
            let mut r = r.clone();
            for k in ["sweep", "job", "policy_set"] {
                r.as_object_mut().unwrap().remove(k);
            }
            if let Some(stats) = r["stats"].as_object_mut() {
                stats.remove("modules");
            }
            r
        })
        .collect();
    out.sort_by_key(|r| r["seed"].as_u64());
    out
}
