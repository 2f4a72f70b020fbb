//! [`ArgText`]: an argument's text, trimmed once, with its length and hash computed once.
//!
//! The headless engine's scripted policies hand the same pre-rendered texts to the rules over and
//! over. A template text is a `&'static str` (rendered once per process and side sizes), so an
//! argument is a plain copy: no allocation and no reference counting, whose atomic operations
//! were a measurable share of an episode. Texts from outside (the arena, models) share one
//! `Arc<str>`. Either way the character count (the 1..=500 rule, the operator's weights) and the
//! FNV-1a hash (the trajectory hash, §13) are computed once.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::seeding::fnv64;

/// The most Unicode scalar values an argument may hold after trimming (§1).
pub const MAX_ARGUMENT_CHARS: usize = 500;

/// An argument text, trimmed of surrounding whitespace (§1). Its length is checked by the rules,
/// not here, so an empty or over-long text can still be submitted and rejected with
/// `text_length`. Equality is by text.
#[derive(Clone, Debug)]
pub struct ArgText {
    text: Repr,
    chars: u32,
    fnv: u64,
}

/// Where the characters live.
#[derive(Clone, Debug)]
enum Repr {
    /// A template rendered once per process.
    Static(&'static str),
    /// Any other text.
    Shared(Arc<str>),
}

impl ArgText {
    /// Trims `raw` and precomputes its length and hash.
    pub fn new(raw: &str) -> ArgText {
        let text = raw.trim();
        ArgText::measure(Repr::Shared(Arc::from(text)), text)
    }

    /// Like [`ArgText::new`] for a text that lives for the whole process (templates).
    pub fn from_static(raw: &'static str) -> ArgText {
        let text = raw.trim();
        ArgText::measure(Repr::Static(text), text)
    }

    fn measure(repr: Repr, text: &str) -> ArgText {
        ArgText {
            chars: u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
            fnv: fnv64(text.as_bytes()),
            text: repr,
        }
    }

    /// The trimmed text.
    pub fn as_str(&self) -> &str {
        match &self.text {
            Repr::Static(s) => s,
            Repr::Shared(s) => s,
        }
    }

    /// Its length in Unicode scalar values.
    pub fn chars(&self) -> usize {
        self.chars as usize
    }

    /// Its length in UTF-8 bytes (hashed as a u32, §13).
    pub fn byte_len(&self) -> usize {
        self.as_str().len()
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

impl PartialEq for ArgText {
    fn eq(&self, other: &ArgText) -> bool {
        self.fnv == other.fnv && self.as_str() == other.as_str()
    }
}

impl Eq for ArgText {}

impl Serialize for ArgText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
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
        assert_eq!(ArgText::from_static(" héllo "), t);
        assert_eq!(t.byte_len(), ArgText::from_static("héllo").byte_len());
    }
}
