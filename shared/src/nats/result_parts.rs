//! Results larger than the server's `max_payload`, sent in parts (docs/protocol.md, "Results
//! in parts").
//!
//! A worker whose encoded result does not fit one message publishes it as `n` part messages on
//! the sweep's result subject, then a small *head* message that stands for the result:
//!
//! - part `k` of `n`: header `Simfleet-Part: <index>/<attempt>/<k>/<n>`, message id
//!   `<sweep>.part.<index>.<attempt>.<k>`, payload the `k`-th slice of the encoded result;
//! - the head: the result's own message id `<sweep>.<index>` (so the stream's deduplication of a
//!   job answered twice works as for a whole result) and header
//!   `Simfleet-Parts: <attempt>/<n>/<bytes>`, with an empty payload.
//!
//! `attempt` is random per publication: two workers answering the same job (a redelivery)
//! write distinct parts, and a head names the parts that belong to it. Parts come before their
//! head in the stream, so a reader that meets a head already holds its parts; parts of an
//! attempt whose head never came (the worker died, or its head was a duplicate) are never used.
//! A part message id does not parse as a job's ([`crate::names::parse_msg_id`] finds no
//! index), so stream scans that list answered jobs count only heads and whole results.

use async_nats::HeaderMap;

/// The header of a part message.
pub const PART_HEADER: &str = "Simfleet-Part";
/// The header of a head message.
pub const HEAD_HEADER: &str = "Simfleet-Parts";
/// What a part leaves of `max_payload` for its headers and subject.
pub const HEADER_ROOM: usize = 4096;

/// One part of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The job index.
    pub index: u64,
    /// The publication the part belongs to.
    pub attempt: u64,
    /// Which part, from 0.
    pub k: u32,
    /// How many parts.
    pub n: u32,
}

/// The head of a result sent in parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The publication whose parts make the result.
    pub attempt: u64,
    /// How many parts.
    pub n: u32,
    /// The encoded result's length.
    pub bytes: u64,
}

impl Part {
    /// The part's message id.
    pub fn msg_id(&self, sweep: &str) -> String {
        format!("{sweep}.part.{}.{:016x}.{}", self.index, self.attempt, self.k)
    }

    /// The header value.
    pub fn header(&self) -> String {
        format!("{}/{:016x}/{}/{}", self.index, self.attempt, self.k, self.n)
    }

    /// The part a message's headers describe, if it is one.
    pub fn of(headers: Option<&HeaderMap>) -> Option<Part> {
        let v = headers?.get(PART_HEADER)?.as_str();
        let mut f = v.split('/');
        let part = Part {
            index: f.next()?.parse().ok()?,
            attempt: u64::from_str_radix(f.next()?, 16).ok()?,
            k: f.next()?.parse().ok()?,
            n: f.next()?.parse().ok()?,
        };
        (f.next().is_none() && part.k < part.n).then_some(part)
    }
}

impl Head {
    /// The header value.
    pub fn header(&self) -> String {
        format!("{:016x}/{}/{}", self.attempt, self.n, self.bytes)
    }

    /// The head a message's headers describe, if it is one.
    pub fn of(headers: Option<&HeaderMap>) -> Option<Head> {
        let v = headers?.get(HEAD_HEADER)?.as_str();
        let mut f = v.split('/');
        let head = Head {
            attempt: u64::from_str_radix(f.next()?, 16).ok()?,
            n: f.next()?.parse().ok()?,
            bytes: f.next()?.parse().ok()?,
        };
        f.next().is_none().then_some(head)
    }
}

/// The size of each part of a result for a server with `max_payload`: what is left after
/// [`HEADER_ROOM`], at least 1 KiB.
pub fn part_size(max_payload: usize) -> usize {
    max_payload.saturating_sub(HEADER_ROOM).max(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_back_and_part_ids_are_no_job_ids() {
        let part = Part { index: 7, attempt: 0xdead_beef, k: 2, n: 3 };
        let mut h = HeaderMap::new();
        h.insert(PART_HEADER, part.header().as_str());
        assert_eq!(Part::of(Some(&h)), Some(part));
        assert_eq!(Head::of(Some(&h)), None);
        assert_eq!(crate::names::parse_msg_id(&part.msg_id("sw")), None);
        let head = Head { attempt: 1, n: 3, bytes: 3_000_000 };
        let mut h = HeaderMap::new();
        h.insert(HEAD_HEADER, head.header().as_str());
        assert_eq!(Head::of(Some(&h)), Some(head));
        let mut bad = HeaderMap::new();
        bad.insert(PART_HEADER, "7/1/3/3");
        assert_eq!(Part::of(Some(&bad)), None, "k must be below n");
        assert_eq!(part_size(1 << 20), (1 << 20) - HEADER_ROOM);
    }
}
