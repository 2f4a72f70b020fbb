//! Output a doc shows, matched against what a command printed.
//!
//! Lines compare after trimming trailing whitespace, and trailing empty lines do not count.
//! Two wildcards, as in trycmd: `[..]` inside a line matches any text (a timing, a hash), and a
//! line that is exactly `...` matches any number of lines, none included.

/// Whether `actual` matches the `expected` lines.
pub fn matches(expected: &[String], actual: &str) -> bool {
    let expected = normalise(expected.iter().map(String::as_str));
    let actual = normalise(actual.lines());
    lines_match(&expected, &actual)
}

fn normalise<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = lines.map(str::trim_end).collect();
    while out.last() == Some(&"") {
        out.pop();
    }
    out
}

fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((line, rest)) => {
            actual.split_first().is_some_and(|(first, tail)| line_matches(line, first) && lines_match(rest, tail))
        }
    }
}

/// Whether one line matches a pattern with `[..]` wildcards.
pub fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(String::from).collect()
    }

    #[test]
    fn wildcards_within_and_across_lines() {
        assert!(line_matches(
            "18000 episodes in [..] s ([..] episodes/s)",
            "18000 episodes in 1.8 s (10213 episodes/s)"
        ));
        assert!(!line_matches("18000 episodes in [..] s", "17999 episodes in 1.8 s"));
        assert!(line_matches("a[..]", "a"));
        assert!(!line_matches("a[..]b[..]b", "ab"));
        assert!(matches(&lines("head\n...\ntail"), "head\nx\ny\ntail\n"));
        assert!(matches(&lines("head\n...\ntail"), "head\ntail"));
        assert!(!matches(&lines("head\ntail"), "head\nx\ntail"));
        assert!(matches(&lines("a  \n\n"), "a\n"));
    }
}
