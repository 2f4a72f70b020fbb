//! [`ArgumentList`]: the game's arguments in submission order, in slots kept from game to game.
//!
//! A headless job plays thousands of games through one state, and an argument is added a dozen
//! times a game. `Vec::push` of a whole [`Argument`] builds it on the stack with narrow stores
//! (three u32s, three bytes) and then copies it with 16-byte loads, which cannot be forwarded
//! from those stores: the stall was a tenth of an episode's cycles. A restarted game keeps the
//! previous game's arguments as dead slots and overwrites a slot field by field, so nothing is
//! copied through the stack. Only the live arguments are seen: compared, cloned, printed and
//! serialized exactly as the `Vec` they replace.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::state::Argument;
use super::text::ArgText;
use super::vocab::{Phase, Side};

/// The arguments of a game: `slots[..len]` are live, the rest are a previous game's, kept to be
/// overwritten.
#[derive(Default)]
pub struct ArgumentList {
    slots: Vec<Argument>,
    len: usize,
}

impl ArgumentList {
    /// Forgets every argument, keeping the slots.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// How many arguments the slots hold without growing.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Appends an argument, into a dead slot when there is one.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn push(&mut self, id: u32, seq: u32, round: u32, phase: Phase, agent: u8, side: Side, text: &ArgText) {
        if let Some(slot) = self.slots.get_mut(self.len) {
            slot.id = id;
            slot.seq = seq;
            slot.round = round;
            slot.phase = phase;
            slot.agent = agent;
            slot.side = side;
            slot.text.clone_from(text);
        } else {
            self.slots.push(Argument { id, seq, round, phase, agent, side, text: text.clone() });
        }
        self.len += 1;
    }
}

impl Deref for ArgumentList {
    type Target = [Argument];

    fn deref(&self) -> &[Argument] {
        &self.slots[..self.len]
    }
}

impl Clone for ArgumentList {
    /// The live arguments only.
    fn clone(&self) -> ArgumentList {
        ArgumentList { slots: self.to_vec(), len: self.len }
    }
}

impl PartialEq for ArgumentList {
    fn eq(&self, other: &ArgumentList) -> bool {
        **self == **other
    }
}

impl Eq for ArgumentList {}

impl fmt::Debug for ArgumentList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for ArgumentList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ArgumentList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ArgumentList, D::Error> {
        let slots = Vec::<Argument>::deserialize(deserializer)?;
        Ok(ArgumentList { len: slots.len(), slots })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argument(id: u32, text: &str) -> Argument {
        let text = ArgText::new(text);
        Argument { id, seq: id, round: 1, phase: Phase::Phase1, agent: 2, side: Side::Minority, text }
    }

    fn push(list: &mut ArgumentList, a: &Argument) {
        list.push(a.id, a.seq, a.round, a.phase, a.agent, a.side, &a.text);
    }

    #[test]
    fn dead_slots_are_overwritten_and_never_seen() {
        let (a, b, c) = (argument(1, "one"), argument(2, "two"), argument(1, "three"));
        let mut list = ArgumentList::default();
        push(&mut list, &a);
        push(&mut list, &b);
        list.clear();
        assert!(list.is_empty() && list.capacity() >= 2);
        push(&mut list, &c);
        assert_eq!(&*list, &[c.clone()][..]);
        let fresh = ArgumentList { slots: vec![c.clone()], len: 1 };
        assert_eq!(list, fresh);
        assert_eq!(format!("{list:?}"), format!("{fresh:?}"));
        assert_eq!(list.clone().slots.len(), 1);
        let json = serde_json::to_string(&list).unwrap();
        assert_eq!(json, serde_json::to_string(&vec![c]).unwrap());
        assert_eq!(serde_json::from_str::<ArgumentList>(&json).unwrap(), list);
    }
}
