//! Reading what the workers answered: results on `simfleet.results.<sweep>`, jobs still queued.

use std::collections::BTreeMap;
use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy, PullConsumer};
use async_nats::jetstream::Context;
use futures::StreamExt;
use simfleet::names::{result_subject, JOBS_STREAM, RESULTS_STREAM};
use simfleet::nats::result_parts::{Head, Part};
use simfleet::JobResult;

use crate::wait::within;

/// Reads results of `sweep` until `count` distinct job indexes have one (a redelivered job may
/// be answered twice; the first answer is kept). A result sent in parts (over the server's
/// `max_payload`) is put together from its parts when its head comes. Fails after `timeout`.
pub async fn collect_results(js: &Context, sweep: &str, count: usize, timeout: Duration) -> BTreeMap<u64, JobResult> {
    let stream = js.get_stream(RESULTS_STREAM).await.expect("the results stream exists");
    let consumer = stream
        .create_consumer(pull::OrderedConfig { filter_subject: result_subject(sweep), ..Default::default() })
        .await
        .expect("an ordered consumer on the results");
    let mut messages = consumer.messages().await.expect("results messages");
    let mut results = BTreeMap::new();
    // Parts by (attempt, part number): a head names its attempt and how many parts it has.
    let mut parts: BTreeMap<(u64, u32), Vec<u8>> = BTreeMap::new();
    let what = format!("{count} results of sweep {sweep}");
    within(&what, timeout, async {
        while results.len() < count {
            match messages.next().await {
                Some(Ok(msg)) => {
                    if let Some(part) = Part::of(msg.headers.as_ref()) {
                        parts.insert((part.attempt, part.k), msg.payload.to_vec());
                        continue;
                    }
                    let payload = match Head::of(msg.headers.as_ref()) {
                        Some(head) => (0..head.n)
                            .flat_map(|k| parts.remove(&(head.attempt, k)).expect("every part before its head"))
                            .collect(),
                        None => msg.payload.to_vec(),
                    };
                    let r: JobResult = simfleet::protocol::decode(&payload).expect("a result decodes");
                    results.entry(r.index).or_insert(r);
                }
                Some(Err(e)) => eprintln!("results consumer: {e} (retrying)"),
                None => panic!("the results consumer ended"),
            }
        }
    })
    .await;
    results
}

/// How many results (duplicates included) the stream holds for `sweep`.
pub async fn result_messages(js: &Context, sweep: &str) -> u64 {
    let stream = js.get_stream(RESULTS_STREAM).await.expect("the results stream exists");
    let mut consumer: PullConsumer = stream
        .create_consumer(pull::Config {
            filter_subject: result_subject(sweep),
            ack_policy: AckPolicy::None,
            inactive_threshold: Duration::from_secs(10),
            ..Default::default()
        })
        .await
        .expect("an ephemeral consumer on the results");
    let pending = consumer.info().await.expect("consumer info").num_pending;
    let _ = stream.delete_consumer(&consumer.cached_info().name).await;
    pending
}

/// How many jobs are still in the work-queue stream (not acknowledged or terminated).
pub async fn jobs_in_stream(js: &Context) -> u64 {
    let mut stream = js.get_stream(JOBS_STREAM).await.expect("the jobs stream exists");
    stream.info().await.expect("jobs stream info").state.messages
}

/// The sweep of every result message in the results stream, in the order the stream took them
/// (the order the jobs finished), duplicates included. Headers only: no result is sent.
pub async fn result_order(js: &Context) -> Vec<String> {
    let mut stream = js.get_stream(RESULTS_STREAM).await.expect("the results stream exists");
    let count = stream.info().await.expect("results stream info").state.messages as usize;
    let consumer = stream
        .create_consumer(pull::OrderedConfig {
            filter_subject: simfleet::names::RESULTS_FILTER.to_string(),
            headers_only: true,
            ..Default::default()
        })
        .await
        .expect("an ordered consumer on the results");
    let mut messages = consumer.messages().await.expect("results messages");
    let mut order = Vec::with_capacity(count);
    within("every result's subject", Duration::from_secs(60), async {
        while order.len() < count {
            match messages.next().await {
                Some(Ok(msg)) => order.push(msg.subject.rsplit('.').next().unwrap_or_default().to_string()),
                Some(Err(e)) => eprintln!("results consumer: {e} (retrying)"),
                None => panic!("the results consumer ended"),
            }
        }
    })
    .await;
    order
}
