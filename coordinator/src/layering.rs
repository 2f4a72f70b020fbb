//! The coordinator's layers, read from the sources on disk: every production file under `src/`
//! (found by walking it) belongs to its top-level module, and its `crate::X` paths are that
//! module's imports. A module imports only modules of the layers below its own, so no import
//! cycle can form between modules (within `records/`, `records/tests.rs` checks the files).
//! Test code only; `the_layering_check_sees_an_upward_import` shows the check can fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::source_graph::{code, paths};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The top-level modules, bottom up. Leaves (the terminal's tables and bars, the one cell
/// order); results files; the sweep file and its sections; what reads a sweep (its stopping
/// plan, ranking fits, spend, summaries); the collector and the analyses above them; the
/// drivers (in-process, the fleet, the arena, the report); the commands.
const LAYERS: &[&[&str]] = &[
    &["cell_order", "progress", "table"],
    &["records"],
    &["sweep"],
    &["rebuild", "llm_spend", "rank", "stop", "summary"],
    &["collector", "compare", "llm"],
    &["arena", "embedded", "fleet", "llm_tally", "report", "wasm_tally"],
    &["commands"],
];

/// Each production file under `src/` as (its top-level module, its source); test files
/// (`tests.rs`, `*_tests.rs`, `tests/`) and the crate's root files left out.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && name != "tests" {
                walk(&path, out);
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let rel = path.strip_prefix(SRC).unwrap();
                let top = rel.iter().next().unwrap().to_string_lossy().trim_end_matches(".rs").to_string();
                out.push((top, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(SRC), &mut out);
    out.retain(|(top, _)| !["lib", "main", "layering", "source_graph", "function_lengths"].contains(&top.as_str()));
    out
}

/// Each module's imports of other top-level modules (`crate::X`).
fn imports(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (top, source) in sources {
        let uses = out.entry(top.clone()).or_default();
        for path in paths(&code(source)) {
            if path[0] == "crate" && path.len() > 1 && path[1] != *top {
                uses.insert(path[1].clone());
            }
        }
    }
    out
}

/// Every import that does not go down a layer, and every module in no layer.
fn violations(imports: &BTreeMap<String, BTreeSet<String>>, layers: &[&[&str]]) -> Vec<String> {
    let layer = |m: &str| layers.iter().position(|l| l.contains(&m));
    let mut out = Vec::new();
    for (module, uses) in imports {
        let Some(at) = layer(module) else {
            out.push(format!("{module} is in no layer: add it to LAYERS"));
            continue;
        };
        for used in uses {
            match layer(used) {
                Some(below) if below < at => {}
                Some(_) => out.push(format!("{module} (layer {at}) imports {used}, which is not below it")),
                None => out.push(format!("{module} imports crate::{used}, which is in no layer")),
            }
        }
    }
    out
}

#[test]
fn the_coordinator_is_layered() {
    let imports = imports(&sources());
    // The walk found the modules, and the parser their imports.
    assert!(imports["embedded"].contains("collector"), "{imports:?}");
    assert!(imports["commands"].len() > 5, "{imports:?}");
    let broken = violations(&imports, LAYERS);
    assert!(broken.is_empty(), "the coordinator's layering:\n{}", broken.join("\n"));
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let found: BTreeSet<&str> = imports.keys().map(String::as_str).collect();
    assert_eq!(listed, found, "LAYERS names every top-level module, and only those");
}

#[test]
fn the_layering_check_sees_an_upward_import() {
    let planted = |top: &str, code: &str| (top.to_string(), code.to_string());
    let sources = [
        planted("sweep", "use crate::records::Row;\n// use crate::collector::X;\n"),
        planted("records", "fn f() { crate::sweep::Sweep::load(p) }\n"),
        planted("records", "#[cfg(test)]\nmod tests { use crate::collector::Collector; }\n"),
        planted("collector", "use crate::{records::RecordWriter, sweep::Sweep};\nuse crate::collector::x;\n"),
    ];
    let layers: &[&[&str]] = &[&["records"], &["sweep"], &["collector"]];
    let imports = imports(&sources);
    assert_eq!(imports["collector"], BTreeSet::from(["records".to_string(), "sweep".to_string()]));
    assert_eq!(violations(&imports, layers), vec!["records (layer 0) imports sweep, which is not below it"]);
}
