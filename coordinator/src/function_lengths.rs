//! Functions a person can read: no production function of the coordinator or the worker is
//! longer than [`MOST`] lines, read from the sources on disk (test files and `#[cfg(test)]`
//! modules left out). A function from its `fn` line to its closing brace at the same indent.
//! Test code only; `the_check_sees_a_long_function` shows it can fail.

use std::path::Path;

/// The most lines a production function may take.
const MOST: usize = 80;

/// Every production `.rs` file under `dir`, with its path.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && name != "tests" {
            sources(&path, out);
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// `file:line name (n lines)` of each function of `source` longer than `most` lines.
fn long_functions(file: &str, source: &str, most: usize) -> Vec<String> {
    let lines: Vec<&str> = source.lines().collect();
    let end = (0..lines.len())
        .find(|&i| lines[i].trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.contains("mod ")))
        .unwrap_or(lines.len());
    let mut found = Vec::new();
    for (i, line) in lines[..end].iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let after = ["pub(crate) ", "pub(super) ", "pub ", "async ", "const ", "unsafe "]
            .iter()
            .fold(code, |c, p| c.strip_prefix(p).unwrap_or(c));
        let after = after.strip_prefix("async ").unwrap_or(after);
        let Some(rest) = after.strip_prefix("fn ") else { continue };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let close = format!("{indent}}}");
        if let Some(j) = (i + 1..end).find(|&j| lines[j] == close) {
            if j - i + 1 > most {
                found.push(format!("{file}:{} {name} ({} lines)", i + 1, j - i + 1));
            }
        }
    }
    found
}

#[test]
fn no_production_function_is_over_80_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("../worker/src"), &mut files);
    assert!(files.len() > 100, "the walk found the sources of both crates: {}", files.len());
    let long: Vec<String> = files.iter().flat_map(|(f, s)| long_functions(f, s, MOST)).collect();
    assert!(long.is_empty(), "functions over {MOST} lines (split them along their steps):\n{}", long.join("\n"));
}

#[test]
fn the_check_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(5);
    let source = format!(
        "pub async fn long() {{\n{body}}}\n\nfn short() {{\n    x\n}}\n\n#[cfg(test)]\nmod tests {{\n    fn t() {{\n{body}    }}\n}}\n"
    );
    assert_eq!(long_functions("f.rs", &source, 6), vec!["f.rs:1 long (7 lines)".to_string()]);
    assert!(long_functions("f.rs", &source, 7).is_empty());
}
