//! Links between the repository's documents: a relative link names a file or folder that exists.

use super::session::repo;

/// Every relative link of `text` (the document at `doc`) whose target does not exist.
pub fn broken(doc: &str, text: &str) -> Vec<String> {
    let base = repo().join(doc).parent().expect("a document is inside the repository").to_path_buf();
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for target in targets(line) {
            let path = target.split('#').next().unwrap_or("");
            let external = target.contains("://") || target.starts_with("mailto:");
            if external || path.is_empty() {
                continue;
            }
            if !base.join(path).exists() {
                out.push(format!("{doc}:{}: the link to {target} names no file of the repository", i + 1));
            }
        }
    }
    out
}

/// The targets of `[text](target)` links on one line.
fn targets(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                out.push(after[..end].trim());
                rest = &after[end..];
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_link_targets() {
        assert_eq!(targets("see [a](docs/x.md#y) and [b](https://e.x/)"), vec!["docs/x.md#y", "https://e.x/"]);
        assert!(broken("README.md", "[ok](docs/kubernetes.md) [x](http://a)").is_empty());
        assert_eq!(broken("README.md", "[gone](docs/nothing.md)").len(), 1);
    }
}
