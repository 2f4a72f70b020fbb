//! Free text of actions (§1): trimmed once when built, with its length and hash cached.
//!
//! A discussion turn stores its text in the public history, hashes it into the trajectory and
//! validates its length. Doing that per turn from a `String` would allocate and re-scan the
//! bytes every time; a [`Text`] is built once (policies pre-render their templates) and then
//! shared by reference count, so a turn costs no allocation and no formatting.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::seeding::fnv64;

/// The most Unicode scalar values a text field may hold after trimming.
pub const MAX_TEXT_CHARS: usize = 500;
/// The most characters of a private note.
pub const MAX_NOTE_CHARS: usize = 2000;

/// A trimmed text with its character count and FNV-1a 64 cached.
#[derive(Clone)]
pub struct Text {
    text: Repr,
    chars: u32,
    fnv: u64,
}

/// Static texts (the empty note every scripted action carries) cost no allocation at all;
/// everything else is shared by reference count.
#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Text {
    /// Trims `raw` of leading and trailing whitespace and caches what validation and the
    /// trajectory hash need.
    pub fn new(raw: &str) -> Text {
        let t = raw.trim();
        let text = if t.is_empty() { Repr::Static("") } else { Repr::Shared(Arc::from(t)) };
        Text { text, chars: t.chars().count().min(u32::MAX as usize) as u32, fnv: fnv64(t.as_bytes()) }
    }

    /// A text from a static string (trimmed; no allocation, and clones touch no reference count).
    pub fn from_static(raw: &'static str) -> Text {
        let t = raw.trim();
        Text { text: Repr::Static(t), chars: t.chars().count().min(u32::MAX as usize) as u32, fnv: fnv64(t.as_bytes()) }
    }

    /// The empty text (no allocation): the default note.
    pub const fn empty() -> Text {
        Text { text: Repr::Static(""), chars: 0, fnv: crate::seeding::Fnv64::OFFSET }
    }

    /// The trimmed text.
    pub fn as_str(&self) -> &str {
        match &self.text {
            Repr::Static(s) => s,
            Repr::Shared(s) => s,
        }
    }

    /// Unicode scalar values after trimming.
    pub fn chars(&self) -> usize {
        self.chars as usize
    }

    /// UTF-8 byte length after trimming (hashed as a u32).
    pub fn byte_len(&self) -> u32 {
        self.as_str().len() as u32
    }

    /// FNV-1a 64 of the trimmed UTF-8 bytes.
    pub fn fnv(&self) -> u64 {
        self.fnv
    }
}

impl Default for Text {
    fn default() -> Text {
        Text::empty()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(Text::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_counts_scalar_values() {
        let t = Text::new("  héllo \n");
        assert_eq!(t.as_str(), "héllo");
        assert_eq!(t.chars(), 5);
        assert_eq!(t.byte_len(), 6);
        assert_eq!(t.fnv(), fnv64("héllo".as_bytes()));
        assert_eq!(Text::new(" \t ").chars(), 0);
        assert_eq!(Text::new(" \t ").fnv(), Text::empty().fnv());
    }
}
