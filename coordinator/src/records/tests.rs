//! The layering of `records/` (see its module docs): each module imports only modules of a lower
//! layer, and nothing of the coordinator outside `records/`, so no import circle can form.

/// Each module of `records/`, its layer, and the sources of its files.
const MODULES: &[(&str, u8, &[&str])] = &[
    ("row", 0, &[include_str!("row.rs")]),
    ("error", 0, &[include_str!("error.rs")]),
    ("format", 1, &[include_str!("format.rs")]),
    ("cells", 3, &[include_str!("cells.rs")]),
    ("cell_decision", 4, &[include_str!("cell_decision.rs")]),
    ("encoder", 2, &[include_str!("encoder.rs")]),
    (
        "parquet",
        2,
        &[
            include_str!("parquet/mod.rs"),
            include_str!("parquet/schema.rs"),
            include_str!("parquet/columns.rs"),
            include_str!("parquet/writer.rs"),
            include_str!("parquet/reader.rs"),
        ],
    ),
    ("writer", 3, &[include_str!("writer.rs")]),
    ("reader", 3, &[include_str!("reader.rs")]),
    ("input", 4, &[include_str!("input.rs")]),
    ("resume", 4, &[include_str!("resume.rs")]),
    (
        "scan",
        5,
        &[
            include_str!("scan/mod.rs"),
            include_str!("scan/chunks.rs"),
            include_str!("scan/lines.rs"),
            include_str!("scan/msgpack.rs"),
            include_str!("scan/parquet.rs"),
        ],
    ),
];

/// The code of `source` without comments and without its `#[cfg(test)]` part (tests may use
/// anything).
fn code(source: &str) -> String {
    let source = source.split("#[cfg(test)]").next().unwrap_or_default();
    source.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The first path segment after each `prefix` in `code`: `prefix::a::B` and `prefix::{a, b::C}`
/// give `a` (and `b`).
fn segments_after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                out.extend(group.split(',').map(ident).filter(|s| !s.is_empty()));
            }
            None => out.push(ident(rest)),
        }
    }
    out
}

fn layer(module: &str) -> u8 {
    MODULES.iter().find(|(m, ..)| *m == module).unwrap_or_else(|| panic!("unknown module records::{module}")).1
}

#[test]
fn every_module_is_layered() {
    let declared: Vec<String> = include_str!("mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").and_then(|l| l.strip_suffix(';')).map(String::from))
        .collect();
    let listed: Vec<String> = MODULES.iter().map(|(m, ..)| m.to_string()).collect();
    assert_eq!(sorted(declared), sorted(listed), "records/mod.rs and MODULES list the same modules");
    let parquet_files = include_str!("parquet/mod.rs").lines().filter(|l| l.starts_with("pub mod ")).count();
    assert_eq!(parquet_files + 1, MODULES.iter().find(|(m, ..)| *m == "parquet").unwrap().2.len());
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn modules_import_only_lower_layers() {
    let mut violations = Vec::new();
    for (module, level, sources) in MODULES {
        for (i, source) in sources.iter().enumerate() {
            let code = code(source);
            let mut used = segments_after(&code, "crate::records::");
            // `super::` names a sibling in `records/` from its top-level files (and a folder's
            // `mod.rs`), and in `parquet/` and `scan/` from the files of that folder (the
            // folder's own inner structure).
            if sources.len() == 1 || i == 0 {
                used.extend(segments_after(&code, "super::"));
            }
            for other in used {
                if layer(&other) >= *level {
                    violations.push(format!("records::{module} (layer {level}) imports records::{other}"));
                }
            }
            for other in segments_after(&code, "crate::") {
                if other != "records" {
                    violations.push(format!("records::{module} imports crate::{other}, outside records/"));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_check_sees_imports() {
    let code = code("use super::{format::Format, row};\nuse crate::records::error::E;\n// use super::writer;\n");
    assert_eq!(segments_after(&code, "super::"), ["format", "row"]);
    assert_eq!(segments_after(&code, "crate::records::"), ["error"]);
}
