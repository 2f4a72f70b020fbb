//! [`ArgText`]: an argument's text, trimmed once, with its length and hash computed once.
//!
//! The headless engine's scripted policies hand the same pre-rendered texts to the rules over and
//! over; sharing them behind an `Arc` means an argument costs a reference-count increment, not an
//! allocation, and its character count (the 1..=500 rule, the operator's weights) and FNV-1a hash
//! (the trajectory hash, §13) are never recomputed.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::seeding::fnv64;

/// The most Unicode scalar values an argument may hold after trimming (§1).
pub const MAX_ARGUMENT_CHARS: usize = 500;

/// An argument text, trimmed of surrounding whitespace (§1). Its length is checked by the rules,
/// not here, so an empty or over-long text can still be submitted and rejected with
/// `text_length`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgText {
    text: Arc<str>,
    chars: u32,
    fnv: u64,
}

impl ArgText {
    /// Trims `raw` and precomputes its length and hash.
    pub fn new(raw: &str) -> ArgText {
        let text = raw.trim();
        ArgText {
            chars: u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
            fnv: fnv64(text.as_bytes()),
            text: Arc::from(text),
        }
    }

    /// The trimmed text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its length in Unicode scalar values.
    pub fn chars(&self) -> usize {
        self.chars as usize
    }

    /// Its length in UTF-8 bytes (hashed as a u32, §13).
    pub fn byte_len(&self) -> usize {
        self.text.len()
    }

    /// FNV-1a 64 of its UTF-8 bytes.
    pub fn fnv(&self) -> u64 {
        self.fnv
    }

    /// Its persuasive weight for the operator policies (§10): 0.5 + 0.5·min(chars, 200)/200.
    pub fn weight(&self) -> f64 {
        0.5 + 0.5 * (self.chars.min(200) as f64) / 200.0
    }
}

impl Serialize for ArgText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for ArgText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ArgText, D::Error> {
        let s = String::deserialize(deserializer)?;
        Ok(ArgText::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_counts_scalars_and_weighs() {
        let t = ArgText::new("  héllo\n");
        assert_eq!(t.as_str(), "héllo");
        assert_eq!((t.chars(), t.byte_len()), (5, 6));
        assert_eq!(t.fnv(), fnv64("héllo".as_bytes()));
        assert_eq!(ArgText::new(" \t ").chars(), 0);
        assert_eq!(ArgText::new(&"x".repeat(100)).weight(), 0.75);
        assert_eq!(ArgText::new(&"x".repeat(400)).weight(), 1.0);
        let back: ArgText = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(back, t);
    }
}
