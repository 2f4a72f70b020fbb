//! The layering of `records/` (see its module docs), read from the sources on disk: every `.rs`
//! file under the folder, found by walking it (none is listed here), is a module; its imports
//! (`crate::records::…`, `super::…`, `self::…` paths, followed into folders) are its edges, and a
//! folder's `mod.rs` stands above the files it declares. The test fails on any import cycle, and
//! on an import from the rest of the coordinator that is not a leaf (a module that imports
//! nothing of the crate), through which a cycle could leave the folder and come back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::source_graph::{code, declared, paths, ModPath};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Every `.rs` file under `src/records`, as its module path and its source.
fn sources() -> Vec<(ModPath, String)> {
    fn walk(dir: &Path, out: &mut Vec<(ModPath, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(SRC).unwrap().with_extension("");
                let mut module: ModPath = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                out.push((module, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(SRC).join("records"), &mut out);
    out
}

/// The import graph of a set of module sources.
#[derive(Debug, Default)]
struct Graph {
    /// Each production module and the modules of the set it imports.
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
    /// Imports of modules outside the set: (importer, the first segment after `crate::`).
    outside: Vec<(ModPath, String)>,
    /// Files no module declares.
    undeclared: Vec<ModPath>,
}

fn graph(sources: &[(ModPath, String)]) -> Graph {
    let mut g = Graph::default();
    let root = sources.iter().map(|(p, _)| p).min_by_key(|p| p.len()).expect("some source");
    // Test modules (declared under `#[cfg(test)]`) and what they declare are left out.
    let mut test: BTreeSet<ModPath> = BTreeSet::new();
    let mut known: BTreeSet<ModPath> = BTreeSet::from([root.clone()]);
    let by_path: BTreeMap<&ModPath, &String> = sources.iter().map(|(p, s)| (p, s)).collect();
    for (path, source) in sources {
        for (name, is_test) in declared(source) {
            let child: ModPath = path.iter().cloned().chain([name]).collect();
            if is_test || test.contains(path) {
                test.insert(child.clone());
            }
            known.insert(child);
        }
    }
    for (path, source) in sources {
        if !known.contains(path) {
            g.undeclared.push(path.clone());
        }
        if test.contains(path) || !known.contains(path) {
            continue;
        }
        let mut uses = BTreeSet::new();
        // A folder's face is above the files it declares: they must not import from it.
        for (name, is_test) in declared(source) {
            if !is_test && by_path.contains_key(&[path.clone(), vec![name.clone()]].concat()) {
                uses.insert([path.clone(), vec![name]].concat());
            }
        }
        for segments in paths(&code(source)) {
            let (mut at, rest) = match segments[0].as_str() {
                "crate" if segments.get(1) != Some(&root[0]) => {
                    g.outside.push((path.clone(), segments.get(1).cloned().unwrap_or_default()));
                    continue;
                }
                "crate" => (root.clone(), &segments[2..]),
                "super" => (path[..path.len() - 1].to_vec(), &segments[1..]),
                _ => (path.clone(), &segments[1..]),
            };
            for segment in rest {
                match segment.as_str() {
                    "super" => drop(at.pop()),
                    "self" => {}
                    name if known.contains(&[at.clone(), vec![name.to_string()]].concat()) => at.push(name.to_string()),
                    _ => break,
                }
            }
            if at != *path && at.starts_with(root) {
                uses.insert(at);
            }
        }
        g.edges.insert(path.clone(), uses);
    }
    g
}

/// An import cycle of `g`, if it has one: the modules along it, the first repeated at the end.
fn cycle(g: &Graph) -> Option<Vec<ModPath>> {
    fn visit(g: &Graph, at: &ModPath, stack: &mut Vec<ModPath>, done: &mut BTreeSet<ModPath>) -> Option<Vec<ModPath>> {
        if let Some(i) = stack.iter().position(|m| m == at) {
            return Some([&stack[i..], std::slice::from_ref(at)].concat());
        }
        if done.contains(at) {
            return None;
        }
        stack.push(at.clone());
        for next in g.edges.get(at).into_iter().flatten() {
            if let Some(c) = visit(g, next, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(at.clone());
        None
    }
    let mut done = BTreeSet::new();
    g.edges.keys().find_map(|m| visit(g, m, &mut Vec::new(), &mut done))
}

fn show(path: &[String]) -> String {
    path.join("::")
}

#[test]
fn records_has_no_import_cycle() {
    let sources = sources();
    let g = graph(&sources);
    assert!(g.undeclared.is_empty(), "files no module declares: {:?}", g.undeclared);
    // The walk found the folders' files, and the parser their imports.
    let blocks: ModPath = ["records", "scan", "blocks"].map(String::from).to_vec();
    let scan = &blocks[..2];
    assert!(g.edges[&blocks].iter().any(|m| m.len() == 3 && m.starts_with(scan)), "blocks imports its sibling");
    let csv: ModPath = ["records", "csv"].map(String::from).to_vec();
    assert!(g.edges[&csv].contains(&blocks), "a format's face imports the block reader");
    if let Some(c) = cycle(&g) {
        panic!("an import cycle in records/: {}", c.iter().map(|m| show(m)).collect::<Vec<_>>().join(" → "));
    }
}

#[test]
fn records_imports_only_leaves_of_the_coordinator() {
    let mut violations = Vec::new();
    for (importer, module) in graph(&sources()).outside {
        let file = Path::new(SRC).join(format!("{module}.rs"));
        let leaf = std::fs::read_to_string(&file)
            .is_ok_and(|s| paths(&code(&s)).iter().all(|p| p[0] != "crate" && p[0] != "super"));
        if !leaf {
            violations.push(format!("{} imports crate::{module}, which is not a leaf file", show(&importer)));
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_check_sees_imports_and_cycles() {
    let module = |p: &str, s: &str| (p.split("::").map(String::from).collect::<ModPath>(), s.to_string());
    let sources = [
        module("r", "pub mod a;\npub mod f;\n#[cfg(test)]\nmod tests;\npub use a::X;"),
        module("r::a", "use super::f::{g::G, h};\n// use super::b;\n#[cfg(test)]\nmod t { use crate::r::f; }"),
        module("r::f", "pub mod g;\npub mod h;"),
        module("r::f::g", "use crate::cell_order::Place;\nfn f() { self::super::h::run() }"),
        module("r::f::h", "pub fn run() { crate::r::X }"),
        module("r::tests", "use super::a;"),
    ];
    let g = graph(&sources);
    let set = |ms: &[&str]| ms.iter().map(|m| m.split("::").map(String::from).collect()).collect::<BTreeSet<ModPath>>();
    assert_eq!(g.edges[&vec!["r".to_string(), "a".to_string()]], set(&["r::f::g", "r::f::h"]));
    assert_eq!(g.edges[&vec!["r".to_string(), "f".to_string(), "h".to_string()]], set(&["r"]));
    assert_eq!(g.outside, [(vec!["r".to_string(), "f".to_string(), "g".to_string()], "cell_order".to_string())]);
    assert!(!g.edges.contains_key(&vec!["r".to_string(), "tests".to_string()]), "test modules are left out");
    let c = cycle(&g).expect("r → r::a → r::f::h → r is a cycle");
    assert_eq!(c.first(), c.last());
    assert!(c.len() >= 3, "{c:?}");
    // Without the import of the face, no cycle.
    let mut acyclic = sources.to_vec();
    acyclic[4].1 = "pub fn run() {}".into();
    assert_eq!(cycle(&graph(&acyclic)), None);
}

/// One home per format: the variants of `AnyFormat` are named only where it dispatches, so no
/// other module of the coordinator matches on a format (each asks the `Format` trait).
#[test]
fn only_any_format_matches_on_a_format() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("records/any_format.rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                let code = source.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<String>();
                let named =
                    ["Jsonl", "Csv", "Msgpack", "Parquet"].iter().any(|v| code.contains(&format!("AnyFormat::{v}")));
                if named {
                    out.push(path.strip_prefix(SRC).unwrap().display().to_string());
                }
            }
        }
    }
    let mut matching = Vec::new();
    walk(Path::new(SRC), &mut matching);
    matching.retain(|f| f != "records/tests.rs"); // this test's own strings
    assert!(matching.is_empty(), "files naming a format's variant outside records/any_format.rs: {matching:?}");
    let face = std::fs::read_to_string(Path::new(SRC).join("records/any_format.rs")).unwrap();
    assert!(face.contains("AnyFormat::Parquet =>"), "the check reads the dispatch it guards");
}
