//! Publishing a result larger than the server's `max_payload`: its parts, then its head
//! ([`simfleet::nats::result_parts`]). Nothing is refused for its size: a job's paid model
//! calls and its episodes reach `watch` however many records they made.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use async_nats::header::{HeaderMap, NATS_MESSAGE_ID};
use async_nats::jetstream::publish::PublishAck;
use async_nats::jetstream::Context;
use bytes::Bytes;
use simfleet::names::result_subject;
use simfleet::nats::result_parts::{part_size, Head, Part, HEAD_HEADER, PART_HEADER};

/// Whether a payload of `len` bytes must go in parts on a server with `max_payload` (0: the
/// server did not say, so it goes whole as before).
pub(crate) fn needs_parts(len: usize, max_payload: usize) -> bool {
    max_payload > 0 && len > max_payload
}

/// A random attempt id: distinct across workers and across this worker's publications.
fn attempt() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish()
}

/// Publishes `payload` (result `index` of `sweep`) as parts of at most
/// [`part_size`]`(max_payload)` bytes, each confirmed by the stream, then its head; returns the
/// head's publish ack (`duplicate` when another worker's head for the job is already stored).
/// The head carries `head_id`, the message id a whole result would have (the job's own).
pub(crate) async fn publish(
    js: &Context,
    sweep: &str,
    index: u64,
    head_id: &str,
    payload: Vec<u8>,
    max_payload: usize,
) -> Result<PublishAck, async_nats::Error> {
    let subject = result_subject(sweep);
    let payload = Bytes::from(payload);
    let size = part_size(max_payload);
    let n = payload.len().div_ceil(size) as u32;
    let attempt = attempt();
    // Published one after another but confirmed together: the stream keeps them in order.
    let mut acks = Vec::with_capacity(n as usize);
    for k in 0..n {
        let part = Part { index, attempt, k, n };
        let mut headers = HeaderMap::new();
        headers.insert(NATS_MESSAGE_ID, part.msg_id(sweep).as_str());
        headers.insert(PART_HEADER, part.header().as_str());
        let start = k as usize * size;
        let slice = payload.slice(start..(start + size).min(payload.len()));
        acks.push(js.publish_with_headers(subject.clone(), headers, slice).await?);
    }
    for ack in acks {
        ack.await?;
    }
    let head = Head { attempt, n, bytes: payload.len() as u64 };
    let mut headers = HeaderMap::new();
    headers.insert(NATS_MESSAGE_ID, head_id);
    headers.insert(HEAD_HEADER, head.header().as_str());
    tracing::info!(sweep, index, bytes = payload.len(), parts = n, "publishing a result in parts");
    Ok(js.publish_with_headers(subject, headers, Bytes::new()).await?.await?)
}
