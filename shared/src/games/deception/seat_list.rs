//! [`SeatList`]: a list of at most [`MAX_AGENTS`] items stored inline.
//!
//! Votes, counts, speaking orders and legal targets never hold more than one entry per seat, so
//! they live in a fixed array instead of a `Vec`: building one on the hot path allocates nothing.
//! It serialises as a plain JSON array.

use std::fmt;
use std::ops::Deref;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::agent::MAX_AGENTS;

/// Up to [`MAX_AGENTS`] items, inline.
#[derive(Clone, Copy)]
pub struct SeatList<T: Copy + Default> {
    len: u8,
    items: [T; MAX_AGENTS],
}

impl<T: Copy + Default> SeatList<T> {
    /// An empty list.
    pub fn new() -> Self {
        SeatList { len: 0, items: [T::default(); MAX_AGENTS] }
    }

    /// Appends `item`. Pushing past [`MAX_AGENTS`] is a bug (scenarios have at most 10 seats).
    #[inline]
    pub fn push(&mut self, item: T) {
        assert!((self.len as usize) < MAX_AGENTS, "SeatList holds at most {MAX_AGENTS} items");
        self.items[self.len as usize] = item;
        self.len += 1;
    }

    /// The items whose flag is set, in order, with no branch per item: each item is written at
    /// the current end and the length grows by its flag. At most [`MAX_AGENTS`] items are read.
    #[inline]
    pub fn of_flagged(items: impl IntoIterator<Item = (T, bool)>) -> Self {
        let mut out = SeatList::new();
        let mut len = 0usize;
        for (x, keep) in items.into_iter().take(MAX_AGENTS) {
            // len ≤ the items read before this one < MAX_AGENTS.
            out.items[len] = x;
            len += usize::from(keep);
        }
        out.len = len as u8;
        out
    }

    /// Makes this list the items of `from` other than `item`, in order, item by item and with
    /// no branch per item. How the episode loop fills each actor's legal targets where the
    /// observation holds them: building a list elsewhere and copying it in (wide loads of
    /// memory just written by narrow stores) stalled on store forwarding.
    #[inline]
    pub fn copy_without(&mut self, from: &[T], item: T)
    where
        T: PartialEq,
    {
        let mut len = 0usize;
        for &x in from.iter().take(MAX_AGENTS) {
            // len ≤ the items read before this one < MAX_AGENTS.
            self.items[len] = x;
            len += usize::from(x != item);
        }
        self.len = len as u8;
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The items as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
    }

    /// The items as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..self.len as usize]
    }
}

impl<T: Copy + Default> Default for SeatList<T> {
    fn default() -> Self {
        SeatList::new()
    }
}

impl<T: Copy + Default> Deref for SeatList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for SeatList<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq> Eq for SeatList<T> {}

impl<T: Copy + Default + fmt::Debug> fmt::Debug for SeatList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + Default> FromIterator<T> for SeatList<T> {
    // Fills a local array with a local length and builds the list once at the end: pushing
    // into `self` stores the `u8` length back to memory on every item, which made collecting
    // (legal targets, ballots, speaking orders) a visible share of an episode.
    #[inline]
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items = [T::default(); MAX_AGENTS];
        let mut len = 0usize;
        for x in iter {
            assert!(len < MAX_AGENTS, "SeatList holds at most {MAX_AGENTS} items");
            items[len] = x;
            len += 1;
        }
        SeatList { len: len as u8, items }
    }
}

impl<T: Copy + Default + Serialize> Serialize for SeatList<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de, T: Copy + Default + Deserialize<'de>> Deserialize<'de> for SeatList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Copy + Default + Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = SeatList<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {MAX_AGENTS} items")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SeatList<T>, A::Error> {
                let mut l = SeatList::new();
                while let Some(x) = seq.next_element()? {
                    if l.len() == MAX_AGENTS {
                        return Err(serde::de::Error::invalid_length(MAX_AGENTS + 1, &self));
                    }
                    l.push(x);
                }
                Ok(l)
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}
