//! One place consumes results, read from the sources on disk: every call that routes a result
//! somewhere (the records file, the summary table, a summary cell's merge, a stopping sweep's
//! folds, the model spend) is made in `collector/` only, outside test code. A driver that
//! wrote records or merged cells itself would be a second rule of what goes where.

use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The calls that route a result, each with the file that defines it (which may call itself).
const ROUTES: &[(&str, &str)] = &[
    ("write_result(", "records/writer.rs"),
    ("write_encoded(", "records/writer.rs"),
    ("add_result(", "summary.rs"),
    ("accept_result(", ""),
    ("fold_round(", "stop/block.rs"),
    ("spend_of_result(", "llm_spend.rs"),
];

/// Every production `.rs` file under `src/` (test files left out), as its path from `src/`.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let rel = path.strip_prefix(SRC).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(SRC), &mut out);
    out.sort();
    out
}

/// The code of `source` before its `#[cfg(test)]` tests module (if any), without comment lines.
fn production(source: &str) -> String {
    let tests = ["mod tests", "pub(crate) mod tests", "pub mod tests"].map(|m| format!("#[cfg(test)]\n{m}"));
    let end = tests.iter().filter_map(|t| source.find(t.as_str())).min().unwrap_or(source.len());
    source[..end].lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Where a result is routed outside the collector: `file: call` for each.
fn routed_outside(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, source) in files {
        if file.starts_with("collector/") {
            continue;
        }
        let code = production(source);
        for (call, home) in ROUTES {
            let defines = format!("fn {call}");
            let calls = code.matches(call).count() - code.matches(defines.as_str()).count();
            if calls > 0 && file != home {
                found.push(format!("{file}: {call}"));
            }
        }
    }
    found
}

#[test]
fn results_are_routed_only_by_the_collector() {
    let files = sources();
    assert!(files.iter().any(|(f, _)| f == "embedded.rs"), "the walk found the sources");
    let outside = routed_outside(&files);
    assert!(outside.is_empty(), "results routed outside collector/ (deliver them to the Collector): {outside:?}");
}

#[test]
fn the_check_sees_a_result_routed_elsewhere() {
    let planted = vec![
        ("fleet/watch/ledger.rs".to_string(), "fn f(w: &mut W, r: &R) {\n    w.write_result(r);\n}\n".to_string()),
        ("collector/mod.rs".to_string(), "fn g(w: &mut W, r: &R) {\n    w.write_result(r);\n}\n".to_string()),
        ("summary.rs".to_string(), "pub fn add_result(&mut self) {}\n// s.add_result(r) in a comment\n".to_string()),
        ("x.rs".to_string(), "fn t() {}\n#[cfg(test)]\nmod tests {\n    fn u() { s.fold_round(); }\n}\n".to_string()),
    ];
    assert_eq!(routed_outside(&planted), vec!["fleet/watch/ledger.rs: write_result(".to_string()]);
}

/// A stopping sweep's bar counts to the end of the round it plays, never to the cap: at each
/// round its total is at most the episodes still possible, and the round's results fill it.
#[test]
fn a_stopping_sweeps_progress_counts_its_round_never_the_cap() {
    let text = "name = \"p\"\nseeds = { start = 0, count = 2000 }\n[[cells]]\ngame = \"bucket_brigade\"\n\
                scenarios = [\"default\"]\n[cells.policy_sets]\nf = [\"firefighter\", \"firefighter\", \
                \"firefighter\", \"firefighter\"]\nr = [\"random\", \"random\", \"random\", \"random\"]\n\
                [stop]\nmetric = \"team_reward\"\nhalf_width = 8.0\n";
    let sweep = crate::sweep::Sweep::parse(text, "p.toml").unwrap();
    let cap = sweep.episode_count();
    let dir = tempfile::tempdir().unwrap();
    let stopping = crate::stop::block::Stopping::new(&sweep);
    let progress = crate::progress::Progress::new(false);
    let out = dir.path().join("p.jsonl");
    let mut c = super::Collector::create(
        Some(sweep.clone()),
        &out,
        super::Output::Create,
        super::FailureFile::None,
        stopping,
        progress.clone(),
    )
    .unwrap();
    let mut rounds = 0;
    while let Some(round) = c.next_round() {
        rounds += 1;
        let (total, possible) = (progress.bar().length().unwrap(), c.stopping().unwrap().episodes_possible());
        assert!(total <= possible && possible <= cap, "round {rounds}: total {total}, possible {possible}, cap {cap}");
        for i in 0..round.len() {
            c.deliver(simfleet::run_job(&round.job(&sweep, i).unwrap(), &simfleet::RunEnv::default())).unwrap();
        }
        assert_eq!(progress.bar().position(), total, "round {rounds} fills its bar");
        c.end_round().unwrap();
    }
    let played = c.finish().unwrap().episodes;
    assert!(rounds > 1 && played < cap, "it stopped before the cap: {played} of {cap} in {rounds} rounds");
}
