//! [`ArgText`]: an argument's text, trimmed once, with its length and hash computed once.
//!
//! The headless engine's scripted policies hand the same pre-rendered texts to the rules over and
//! over. An `ArgText` is a 16-byte handle to its text and figures: a template's live for the
//! whole process (rendered once per process and side sizes), so an argument is a plain pointer
//! copy with no allocation and no reference counting, whose atomic operations were a measurable
//! share of an episode; texts from outside (the arena, models) are shared through an `Arc`. The
//! handle keeps actions and stored arguments small, and they are moved several times a step. The
//! character count (the 1..=500 rule, the operator's weights) and the FNV-1a hash (the
//! trajectory hash, §13) are computed once; a template also carries its [`HashTail`], so the
//! trajectory hash takes its 12 text bytes in one step.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::hash::HashTail;
use crate::seeding::fnv64;

/// The most Unicode scalar values an argument may hold after trimming (§1).
pub const MAX_ARGUMENT_CHARS: usize = 500;

/// An argument text, trimmed of surrounding whitespace (§1). Its length is checked by the rules,
/// not here, so an empty or over-long text can still be submitted and rejected with
/// `text_length`. Equality is by text.
#[derive(Clone)]
pub struct ArgText(Repr);

/// Where the text and its figures live.
#[derive(Clone)]
enum Repr {
    /// A template, rendered once per process.
    Static(&'static Body),
    /// Any other text.
    Shared(Arc<Body>),
}

/// A trimmed text and what is computed from it once.
struct Body {
    text: Cow<'static, str>,
    chars: u32,
    fnv: u64,
    /// [`ArgText::weight`], computed with the rest.
    weight: f64,
    /// Templates only: the trajectory hash's table for this text (derived from it, so it takes
    /// no part in equality). Boxed: 2 KB that other texts should not carry.
    tail: Option<Box<HashTail>>,
}

impl Body {
    fn measure(text: Cow<'static, str>, tail: bool) -> Body {
        let chars = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
        Body {
            chars,
            fnv: fnv64(text.as_bytes()),
            weight: 0.5 + 0.5 * (chars.min(200) as f64) / 200.0,
            tail: tail.then(|| Box::new(HashTail::of_text(&text))),
            text,
        }
    }
}

impl ArgText {
    /// Trims `raw` and precomputes its length and hash.
    pub fn new(raw: &str) -> ArgText {
        ArgText(Repr::Shared(Arc::new(Body::measure(Cow::Owned(raw.trim().to_string()), false))))
    }

    /// Like [`ArgText::new`], borrowing a text that lives for the whole process.
    pub fn from_static(raw: &'static str) -> ArgText {
        ArgText(Repr::Shared(Arc::new(Body::measure(Cow::Borrowed(raw.trim()), false))))
    }

    /// A scripted template: like [`ArgText::from_static`], with the trajectory hash's
    /// [`HashTail`], and copied without reference counting. Its figures (2 KB with the table)
    /// are leaked like the text, so this is for the bounded set of templates rendered once per
    /// process.
    pub fn template(raw: &'static str) -> ArgText {
        ArgText(Repr::Static(Box::leak(Box::new(Body::measure(Cow::Borrowed(raw.trim()), true)))))
    }

    fn body(&self) -> &Body {
        match &self.0 {
            Repr::Static(b) => b,
            Repr::Shared(b) => b,
        }
    }

    /// The trimmed text.
    pub fn as_str(&self) -> &str {
        &self.body().text
    }

    /// Its length in Unicode scalar values.
    pub fn chars(&self) -> usize {
        self.body().chars as usize
    }

    /// Its length in UTF-8 bytes (hashed as a u32, §13).
    pub fn byte_len(&self) -> usize {
        self.as_str().len()
    }

    /// FNV-1a 64 of its UTF-8 bytes.
    pub fn fnv(&self) -> u64 {
        self.body().fnv
    }

    /// The trajectory hash's table for this text, for templates.
    pub fn hash_tail(&self) -> Option<&HashTail> {
        self.body().tail.as_deref()
    }

    /// Its persuasive weight for the operator policies (§10): 0.5 + 0.5·min(chars, 200)/200.
    pub fn weight(&self) -> f64 {
        self.body().weight
    }
}

impl PartialEq for ArgText {
    fn eq(&self, other: &ArgText) -> bool {
        self.fnv() == other.fnv() && self.as_str() == other.as_str()
    }
}

impl Eq for ArgText {}

impl fmt::Debug for ArgText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ArgText").field(&self.as_str()).finish()
    }
}

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
        assert_eq!(ArgText::template(" héllo "), t);
        assert!(ArgText::template("héllo").hash_tail().is_some() && t.hash_tail().is_none());
    }
}
