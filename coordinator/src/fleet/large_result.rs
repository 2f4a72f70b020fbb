//! Results that came in parts ([`simfleet::nats::result_parts`]): a result over the server's
//! `max_payload` arrives as part messages and then a head. [`Assembler`] holds the parts until
//! their head comes, and hands the reassembled result to the reader with every acknowledgement
//! it owes, so that a part is acknowledged only once the result it belongs to is written (a
//! reader killed before that reads the parts again). Parts of an attempt that never got its
//! head (a worker that died mid-publication, or whose head was a duplicate) are acknowledged as
//! soon as their job has its result.

use std::collections::HashMap;

use async_nats::jetstream::message::Acker;
use bytes::{Bytes, BytesMut};
use simfleet::names::parse_msg_id;
use simfleet::nats::result_parts::{Head, Part};

/// What a message of the results subject means for the reader; `A` acknowledges a message
/// (an [`Acker`] for `watch`, `()` for a reader that acknowledges nothing).
pub enum Arrival<A = Acker> {
    /// A whole result (a plain message, or a head with all its parts), and what acknowledges it.
    Result(Bytes, Vec<A>),
    /// Nothing to read: acknowledge these (parts of a job that already has its result).
    Ack(Vec<A>),
    /// Held until more arrives (a part), or left to come again (a head whose parts are not all
    /// here yet: it is redelivered after the consumer's ack wait).
    Held,
}

/// The parts read but not yet used, by job index and attempt.
pub struct Assembler<A = Acker> {
    held: HashMap<(u64, u64), Slots<A>>,
}

/// One attempt's parts so far, in order: each part's bytes and what acknowledges it.
type Slots<A> = Vec<Option<(Bytes, A)>>;

impl<A> Default for Assembler<A> {
    fn default() -> Self {
        Assembler { held: HashMap::new() }
    }
}

impl<A> Assembler<A> {
    /// Takes one message; `pending(index)` says whether the job still waits for its result.
    pub fn arrive(&mut self, message: &async_nats::Message, acker: A, pending: impl Fn(u64) -> bool) -> Arrival<A> {
        let headers = message.headers.as_ref();
        if let Some(part) = Part::of(headers) {
            if !pending(part.index) {
                return Arrival::Ack(vec![acker]);
            }
            let slots = self.held.entry((part.index, part.attempt)).or_default();
            slots.resize_with(part.n as usize, || None);
            // A redelivered part replaces its earlier delivery.
            slots[part.k as usize] = Some((message.payload.clone(), acker));
            return Arrival::Held;
        }
        let Some(head) = Head::of(headers) else {
            return Arrival::Result(message.payload.clone(), vec![acker]);
        };
        let index = message.headers.as_ref().and_then(|h| h.get(async_nats::header::NATS_MESSAGE_ID));
        let Some(index) = index.and_then(|id| parse_msg_id(id.as_str()).map(|(_, i)| i)) else {
            tracing::warn!("a result head without a job's message id; skipped");
            return Arrival::Ack(vec![acker]);
        };
        if !pending(index) {
            let mut ackers = self.forget(index);
            ackers.push(acker);
            return Arrival::Ack(ackers);
        }
        let complete = self
            .held
            .get(&(index, head.attempt))
            .is_some_and(|slots| slots.len() == head.n as usize && slots.iter().all(Option::is_some));
        if !complete {
            tracing::debug!(index, "a result head before all its parts; it comes again");
            return Arrival::Held;
        }
        let slots = self.held.remove(&(index, head.attempt)).unwrap_or_default();
        let mut payload = BytesMut::with_capacity(head.bytes as usize);
        let mut ackers = vec![acker];
        for (bytes, acker) in slots.into_iter().flatten() {
            payload.extend_from_slice(&bytes);
            ackers.push(acker);
        }
        if payload.len() as u64 != head.bytes {
            tracing::warn!(
                index,
                bytes = payload.len(),
                expected = head.bytes,
                "a result's parts do not add up; skipped"
            );
        }
        Arrival::Result(payload.freeze(), ackers)
    }

    /// Drops the parts held for job `index` (it has its result) and returns their ackers.
    pub fn forget(&mut self, index: u64) -> Vec<A> {
        let keys: Vec<(u64, u64)> = self.held.keys().filter(|(i, _)| *i == index).copied().collect();
        keys.into_iter()
            .flat_map(|k| self.held.remove(&k).unwrap_or_default())
            .flatten()
            .map(|(_, acker)| acker)
            .collect()
    }
}
