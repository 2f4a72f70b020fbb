//! The one grammar of policy and scenario strings: `NAME[:ARG][?k=v(&k=v)*]`.
//!
//! Keys are `[a-z_]+`; values (and the argument) are percent-decoded, and `%XX` is required for
//! `%`, `&`, `=`, `?`, `#`, `;`, space and newline; a key given twice is an error. Each game
//! gives meaning to its names, arguments and keys; this module only splits and decodes, and
//! offers typed getters that produce errors naming the offending part.

use std::fmt;

/// A parsed spec string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The name before `:` or `?`.
    pub name: String,
    /// The argument after `:`, percent-decoded.
    pub arg: Option<String>,
    /// `key=value` pairs in the order written, values percent-decoded.
    pub params: Vec<(String, String)>,
}

/// Why a spec string does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SpecError {
    /// The part of the string at fault (a key, the name, or the whole string).
    pub part: String,
    /// What is wrong, for a person.
    pub message: String,
}

fn err(part: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError { part: part.into(), message: message.into() }
}

fn is_forbidden(c: char) -> bool {
    matches!(c, '%' | '&' | '=' | '?' | '#' | ';' | ' ' | '\n' | '\r' | '\t')
}

/// Percent-decodes `raw`; bare reserved characters are rejected.
pub fn percent_decode(raw: &str, part: &str) -> Result<String, SpecError> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = raw.get(i + 1..i + 3).filter(|h| h.len() == 2);
            let v = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| {
                err(part, format!("bad percent escape in {part:?}: `%` must be followed by two hex digits"))
            })?;
            out.push(v);
            i += 3;
        } else {
            if is_forbidden(b as char) {
                return Err(err(part, format!("{part:?} holds a bare {:?}: write it as %{:02X}", b as char, b)));
            }
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| err(part, format!("{part:?} does not decode to UTF-8")))
}

/// Percent-encodes the reserved characters of the grammar (the inverse of [`percent_decode`]).
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if is_forbidden(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

impl Spec {
    /// Parses `NAME[:ARG][?k=v(&k=v)*]`.
    pub fn parse(s: &str) -> Result<Spec, SpecError> {
        let (head, query) = match s.split_once('?') {
            Some((h, q)) => (h, Some(q)),
            None => (s, None),
        };
        let (name, arg) = match head.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (head, None),
        };
        if name.is_empty() {
            return Err(err(s, format!("{s:?} has no name")));
        }
        if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-') {
            return Err(err(name, format!("name {name:?} may only hold a-z, 0-9, `_` and `-`")));
        }
        let arg = arg.map(|a| percent_decode(a, a)).transpose()?;
        let mut params: Vec<(String, String)> = Vec::new();
        if let Some(q) = query {
            if q.is_empty() {
                return Err(err(s, format!("{s:?} has an empty parameter list after `?`")));
            }
            for pair in q.split('&') {
                let (k, v) =
                    pair.split_once('=').ok_or_else(|| err(pair, format!("parameter {pair:?} is not key=value")))?;
                if k.is_empty() || !k.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    return Err(err(k, format!("parameter key {k:?} must match [a-z_]+")));
                }
                if params.iter().any(|(pk, _)| pk == k) {
                    return Err(err(k, format!("parameter {k:?} is given twice")));
                }
                params.push((k.to_string(), percent_decode(v, k)?));
            }
        }
        Ok(Spec { name: name.to_string(), arg, params })
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The first key not in `allowed`, if any: for "unknown parameter" errors.
    pub fn unknown_key<'a>(&'a self, allowed: &[&str]) -> Option<&'a (String, String)> {
        self.params.iter().find(|(k, _)| !allowed.contains(&k.as_str()))
    }
}

impl fmt::Display for Spec {
    /// The canonical form: name, `:arg`, then `?k=v&…` in the order given, values re-encoded.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(a) = &self.arg {
            write!(f, ":{}", percent_encode(a))?;
        }
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{}={}", if i == 0 { '?' } else { '&' }, k, percent_encode(v))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_part() {
        let s = Spec::parse("heuristic:0.1,0.2?work_tendency=0.9&name=a%20b").unwrap();
        assert_eq!(s.name, "heuristic");
        assert_eq!(s.arg.as_deref(), Some("0.1,0.2"));
        assert_eq!(s.get("work_tendency"), Some("0.9"));
        assert_eq!(s.get("name"), Some("a b"));
        assert_eq!(s.to_string(), "heuristic:0.1,0.2?work_tendency=0.9&name=a%20b");
    }

    #[test]
    fn llm_endpoint_keeps_its_colons_and_slashes() {
        let s = Spec::parse("llm?model=m&endpoint=http://localhost:8000/v1").unwrap();
        assert_eq!(s.get("endpoint"), Some("http://localhost:8000/v1"));
    }

    #[test]
    fn rejects_bad_strings() {
        for bad in ["", "?a=1", "x?", "x?a", "x?A=1", "x?a=1&a=2", "x?a=b c", "x?a=%zz", "X"] {
            assert!(Spec::parse(bad).is_err(), "{bad:?} should not parse");
        }
        let e = Spec::parse("x?a=1&a=2").unwrap_err();
        assert_eq!(e.part, "a");
    }
}
