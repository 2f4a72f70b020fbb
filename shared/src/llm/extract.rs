//! Finding the JSON object in a model's answer: models wrap it in prose or code fences.

/// The first balanced `{…}` of `text`: brace matching that ignores braces inside JSON strings
/// (with `\\` escapes). If an opening brace never closes, the search moves on to the next one.
pub fn first_json_object(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        if let Some(end) = balanced_end(&bytes[start..]) {
            return Some(&text[start..start + end]);
        }
        from = start + 1;
    }
    None
}

/// The length of the balanced object at the start of `b` (which begins with `{`), if it closes.
fn balanced_end(b: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &c) in b.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_first_balanced_object() {
        let answer = "Sure! ```json\n{\"action\": \"pass\", \"parameters\": {}}\n``` and {\"x\": 1}";
        assert_eq!(first_json_object(answer), Some("{\"action\": \"pass\", \"parameters\": {}}"));
    }

    #[test]
    fn ignores_braces_inside_strings() {
        let answer = r#"{"action": "discuss", "parameters": {"message": "a } b { \" } c"}} tail"#;
        assert_eq!(first_json_object(answer), Some(&answer[..answer.len() - 5]));
    }

    #[test]
    fn skips_an_opening_brace_that_never_closes() {
        assert_eq!(first_json_object("{ oops {\"a\": 1}"), Some("{\"a\": 1}"));
        assert_eq!(first_json_object("no json here"), None);
        assert_eq!(first_json_object("{\"a\": \"}"), None);
    }
}
