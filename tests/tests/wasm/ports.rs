//! The WebAssembly ports of built-in policies give the native policies' records, byte for
//! byte: Bucket Brigade's heuristic archetypes (`bb_archetype.c`) on 10,000 seeds, and
//! cogsguard's `random` (`cogsguard_random.c`); and a sweep with a `wasm:` seat gives the same
//! records with one play thread or two.

use super::{ok, records_of, rows, sweep_dir};

#[test]
fn the_bucket_brigade_archetype_port_gives_the_native_records_on_10000_seeds() {
    // Each archetype in seat 0 (its stream, its home), and the liar in seat 2 of a 5-agent
    // scenario: native and port play the same seeds.
    let dir = sweep_dir(
        &["bb_archetype"],
        r#"name = "bb-port"
seeds = { start = 0, count = 10000 }
[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
native = ["firefighter", "free_rider", "hero", "coordinator"]
port = ["wasm:bb_archetype.wasm?label=ff", "free_rider", "hero", "coordinator"]
[[cells]]
game = "bucket_brigade"
scenarios = ["hard?num_agents=5"]
[cells.policy_sets]
native5 = ["hero", "coordinator", "liar", "free_rider", "firefighter"]
port5 = ["wasm:bb_archetype.wasm?archetype=hero", "coordinator", "wasm:bb_archetype.wasm?archetype=liar", "free_rider", "firefighter"]
"#,
    );
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    // The rows name the entries that played them: label and the module's hash.
    let sha = simfleet::outside::wasm::sha256_hex(&std::fs::read(dir.path().join("bb_archetype.wasm")).unwrap());
    let port5 = rows.iter().find(|r| r["policy_set"] == "port5").unwrap();
    assert_eq!(
        port5["stats"]["modules"],
        serde_json::json!({"0": {"label": "bb_archetype", "sha256": sha}, "2": {"label": "bb_archetype", "sha256": sha}})
    );
    assert_eq!(rows.iter().find(|r| r["policy_set"] == "port").unwrap()["stats"]["modules"]["0"]["label"], "ff");
    assert!(rows.iter().filter(|r| r["policy_set"] == "native").all(|r| r["stats"].get("modules").is_none()));
    for (native, port) in [("native", "port"), ("native5", "port5")] {
        let (n, p) = (records_of(&rows, native), records_of(&rows, port));
        assert_eq!(n.len(), 10_000, "{native}");
        assert!(p.iter().all(|r| r["stats"].get("outside").is_none()), "no fault, no illegal answer");
        assert!(n == p, "{port}'s records differ from {native}'s");
    }
}

#[test]
fn the_cogsguard_random_port_gives_the_native_records() {
    let dir = sweep_dir(
        &["cogsguard_random"],
        r#"name = "cogsguard-port"
seeds = { start = 0, count = 200 }
[[cells]]
game = "cogsguard"
scenarios = ["arena?max_steps=60"]
[cells.policy_sets]
native = ["random", "pinky", "random", "noop", "pinky", "random", "noop", "random"]
port = ["wasm:cogsguard_random.wasm", "pinky", "wasm:cogsguard_random.wasm", "noop", "pinky", "random", "noop", "wasm:cogsguard_random.wasm"]
"#,
    );
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    let (n, p) = (records_of(&rows, "native"), records_of(&rows, "port"));
    assert_eq!(n.len(), 200);
    assert!(p.iter().all(|r| r["stats"].get("outside").is_none()), "no fault, no illegal answer");
    assert!(n == p, "the port's records differ from random's");
}

#[test]
fn a_sweep_with_a_wasm_seat_gives_the_same_bytes_on_one_thread_or_two() {
    let dir = sweep_dir(
        &["bb_archetype", "trap"],
        r#"name = "bb-threads"
seeds = { start = 0, count = 400 }
episodes_per_job = 50
[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard"]
[cells.policy_sets]
port = ["wasm:bb_archetype.wasm?archetype=coordinator", "firefighter", "hero", "liar"]
trap = ["wasm:trap.wasm", "firefighter", "hero", "liar"]
"#,
    );
    ok(dir.path(), &["run", "s.toml", "--out", "one.jsonl", "--threads", "1", "--quiet"]);
    ok(dir.path(), &["run", "s.toml", "--out", "two.jsonl", "--threads", "2", "--quiet"]);
    let one = std::fs::read(dir.path().join("one.jsonl")).unwrap();
    assert_eq!(one, std::fs::read(dir.path().join("two.jsonl")).unwrap(), "threads 1 and 2");
    // The trapping entry's faults are in its records: it answers twice per episode, then traps.
    let rows = rows(&dir.path().join("one.jsonl"));
    let trap = records_of(&rows, "trap");
    assert_eq!(trap.len(), 800);
    for r in &trap {
        let f = &r["stats"]["outside"]["0"];
        assert_eq!((f["fault"].as_str(), f["illegal"].as_u64()), (Some("trap"), Some(0)), "{r}");
        assert_eq!(f["decisions"].as_u64().unwrap() - f["faulted"].as_u64().unwrap(), 2, "{r}");
    }
}

/// The fenced block of `lang` in docs/agents.md's "WebAssembly agents" section.
fn docs_block(lang: &str) -> String {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/agents.md")).unwrap();
    let section = &page[page.find("## WebAssembly agents").expect("the section")..];
    let start = section.find(&format!("```{lang}\n")).unwrap_or_else(|| panic!("a {lang} block")) + lang.len() + 4;
    section[start..start + section[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_minimal_agents_of_the_docs_play_bucket_brigade_without_a_fault() {
    let dir = tempfile::tempdir().unwrap();
    simfleet_tests::agents::write_wat(&dir.path().join("text.wasm"), &docs_block("wat"));
    std::fs::write(dir.path().join("agent.c"), docs_block("c")).unwrap();
    // The C agent is built by the command its first line gives.
    let c = docs_block("c");
    let command = c.lines().next().unwrap().trim_start_matches("// ");
    let parts: Vec<&str> = command.split_whitespace().collect();
    let built = std::process::Command::new(parts[0]).args(&parts[1..]).current_dir(dir.path()).output().unwrap();
    assert!(built.status.success(), "{command}: {}", String::from_utf8_lossy(&built.stderr));
    std::fs::write(
        dir.path().join("s.toml"),
        r#"name = "docs-agents"
seeds = { start = 0, count = 50 }
[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
c = ["wasm:agent.wasm", "firefighter", "hero", "coordinator"]
text = ["wasm:text.wasm", "firefighter", "hero", "coordinator"]
"#,
    )
    .unwrap();
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = rows(&dir.path().join("r.jsonl"));
    let (c, text) = (records_of(&rows, "c"), records_of(&rows, "text"));
    assert_eq!(c.len(), 50);
    assert!(c.iter().chain(&text).all(|r| r["stats"].get("outside").is_none()), "no fault, no illegal answer");
    // The two are the same agent: the same draws, the same houses.
    assert!(c == text, "the C and the text agent play alike");
}
