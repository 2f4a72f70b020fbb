//! Which jobs of a sweep a stream holds, found by their `Nats-Msg-Id` headers.
//!
//! Jobs and their results carry the message id `<sweep>.<index>`, so a headers-only ordered
//! consumer over a sweep's result subject lists its answered jobs without moving any payload.
//! The jobs stream cannot be read that way (a work-queue stream refuses a consumer that overlaps
//! the workers'), so [`queued`] walks it with message gets by subject (`$JS.API.STREAM.MSG.GET`) instead. `submit`
//! uses both for the jobs its publish record leaves uncertain, and for `--republish`.

use std::collections::BTreeSet;
use std::time::Duration;

use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use async_nats::jetstream::stream::{RawMessageErrorKind, Stream};
use async_nats::jetstream::Message;
use async_nats::HeaderMap;
use futures::StreamExt;
use simfleet::names::parse_msg_id;

/// How long a scan waits for the next message before it gives up: the server answers at once
/// when it has messages, so a long silence means it is gone.
const NEXT_MESSAGE_TIMEOUT: Duration = Duration::from_secs(20);

/// The job index a message's `Nats-Msg-Id` names, if it is a message of `sweep`.
pub fn index_of(headers: Option<&HeaderMap>, sweep: &str) -> Option<u64> {
    let id = headers?.get(async_nats::header::NATS_MESSAGE_ID)?;
    match parse_msg_id(id.as_str()) {
        Some((s, index)) if s == sweep => Some(index),
        _ => None,
    }
}

/// Reads every message on `subject` of `stream` from the start, headers only when
/// `headers_only` (payloads too otherwise: `watch` and `results` read the records this way),
/// and calls `f` with each. Returns the number of messages read.
pub async fn for_each_header(
    stream: &Stream,
    subject: &str,
    headers_only: bool,
    mut f: impl FnMut(&Message),
) -> anyhow::Result<u64> {
    let mut consumer = stream
        .create_consumer(pull::OrderedConfig {
            filter_subject: subject.to_string(),
            headers_only,
            deliver_policy: DeliverPolicy::All,
            // Results are large (~150 KB for 1000 Bucket Brigade episodes): the ordered consumer
            // pulls `max_batch` messages at a time, so a small batch keeps memory flat.
            max_batch: if headers_only { 1000 } else { 32 },
            ..Default::default()
        })
        .await?;
    if consumer.info().await?.num_pending == 0 {
        return Ok(0);
    }
    let mut messages = consumer.messages().await?;
    let mut read = 0;
    loop {
        let msg = match tokio::time::timeout(NEXT_MESSAGE_TIMEOUT, messages.next()).await {
            Ok(Some(m)) => m?,
            Ok(None) => break,
            Err(_) => anyhow::bail!(
                "reading {subject} from {} stalled: no message for {NEXT_MESSAGE_TIMEOUT:?} (timed out)",
                stream.cached_info().config.name
            ),
        };
        read += 1;
        f(&msg);
        if msg.info().map_or(true, |i| i.pending == 0) {
            break;
        }
    }
    Ok(read)
}

/// The job indexes of `sweep` on `subject` of `stream`.
pub async fn indexes(stream: &Stream, subject: &str, sweep: &str) -> anyhow::Result<BTreeSet<u64>> {
    let mut found = BTreeSet::new();
    for_each_header(stream, subject, true, |msg| {
        if let Some(i) = index_of(msg.headers.as_ref(), sweep) {
            found.insert(i);
        }
    })
    .await?;
    Ok(found)
}

/// The job indexes of `sweep` still in the jobs stream (waiting, or delivered and not yet
/// acknowledged) among its messages on `filter` with a stream sequence above `after_seq`: one
/// message get per job, so a caller keeps `after_seq` as high as it can.
pub async fn queued(jobs: &Stream, filter: &str, sweep: &str, after_seq: u64) -> anyhow::Result<BTreeSet<u64>> {
    let mut found = BTreeSet::new();
    let mut seq = after_seq + 1;
    loop {
        match jobs.raw_message_builder().sequence(seq).next_by_subject(filter).send().await {
            Ok(msg) => {
                if let Some(i) = index_of(Some(&msg.headers), sweep) {
                    found.insert(i);
                }
                seq = msg.sequence + 1;
            }
            Err(e) if e.kind() == RawMessageErrorKind::NoMessageFound => return Ok(found),
            Err(e) => return Err(anyhow::Error::from(e).context(format!("reading the queued jobs of {sweep}"))),
        }
    }
}
