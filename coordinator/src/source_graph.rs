//! Reading the coordinator's own sources as a module graph, for the tests that enforce its
//! layering (`records/tests.rs` for `records/`, `layering.rs` for the whole crate): which
//! modules a file declares, its code without comments and test items, and the `crate::`,
//! `super::` and `self::` paths it names. Test code only.

/// A module's path: `["records", "scan", "blocks"]`.
pub(crate) type ModPath = Vec<String>;

/// The modules a source declares by `mod name;`, and whether under `#[cfg(test)]`.
pub(crate) fn declared(source: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut test = false;
    for line in source.lines().map(str::trim) {
        let item = ["pub(crate) ", "pub(super) ", "pub "].iter().fold(line, |l, p| l.strip_prefix(p).unwrap_or(l));
        if let Some(name) = item.strip_prefix("mod ").and_then(|n| n.strip_suffix(';')) {
            out.push((name.to_string(), test));
        }
        if !line.is_empty() {
            test = line == "#[cfg(test)]";
        }
    }
    out
}

/// The code of `source` without comment lines and without its `#[cfg(test)]` items (tests may
/// import anything).
pub(crate) fn code(source: &str) -> String {
    let mut code = source.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        let end = match (rest.find(';'), rest.find('{')) {
            (Some(semi), Some(brace)) if semi < brace => semi + 1,
            (Some(semi), None) => semi + 1,
            (_, Some(brace)) => {
                let mut depth = 0;
                brace
                    + rest[brace..]
                        .find(|c| {
                            depth += match c {
                                '{' => 1,
                                '}' => -1,
                                _ => 0,
                            };
                            depth == 0
                        })
                        // A brace in a test's string literal: the item runs to the end.
                        .unwrap_or(rest.len() - brace - 1)
                    + 1
            }
            (None, None) => rest.len(),
        };
        code.replace_range(at..at + end, "");
    }
    code
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of the use tree at the start of `s`: `a::{b, c::D}` gives `[a, b]` and `[a, c, D]`.
fn use_paths(s: &str) -> Vec<ModPath> {
    let mut prefix = ModPath::new();
    let mut s = s.trim_start();
    loop {
        if let Some(group) = s.strip_prefix('{') {
            let mut depth = 0;
            let mut items = Vec::new();
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.push(&group[start..i]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            let items = items.into_iter().filter(|i| !i.trim().is_empty());
            return items.flat_map(use_paths).map(|p| prefix.iter().cloned().chain(p).collect()).collect();
        }
        let ident: String = s.chars().take_while(|c| is_ident(*c)).collect();
        if ident.is_empty() {
            return vec![prefix];
        }
        s = s[ident.len()..].trim_start();
        prefix.push(ident);
        match s.strip_prefix("::") {
            Some(rest) => s = rest.trim_start(),
            None => return vec![prefix],
        }
    }
}

/// Every path in `code` that starts with `crate`, `super` or `self`, whole (`super::a::B`).
pub(crate) fn paths(code: &str) -> Vec<ModPath> {
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == ':') {
                continue; // inside a longer path, such as `super::super::`
            }
            out.extend(use_paths(&code[at..]));
        }
    }
    out
}
