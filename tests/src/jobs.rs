//! Building and publishing jobs the way the coordinator does, plus the malformed messages the
//! error tests need.

use std::sync::atomic::{AtomicU64, Ordering};

use async_nats::header::{HeaderMap, NATS_MESSAGE_ID};
use async_nats::jetstream::Context;
use simfleet::names::{job_subject, msg_id};
use simfleet::protocol::{self, PolicySet, SeedRange};
use simfleet::{Job, PROTOCOL_VERSION};

/// The game every end-to-end test plays (the first engine to land).
pub const GAME: &str = "bucket_brigade";

/// A sweep id unique within this test process and across runs: `<tag>-<12 hex>`.
pub fn unique_sweep(tag: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let mix = (u64::from(std::process::id()) << 32 | u64::from(nanos)) ^ (n << 56);
    format!("{tag}-{:012x}", mix & 0xffff_ffff_ffff)
}

/// Four seats of one policy.
pub fn team(policy: &str) -> Vec<String> {
    vec![policy.to_string(); 4]
}

/// A Bucket Brigade job of `episodes` seeds starting at `index * episodes`.
pub fn bb_job(sweep: &str, index: u64, scenario: &str, set: &str, seats: Vec<String>, episodes: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: sweep.to_string(),
        index,
        game: GAME.to_string(),
        scenario: scenario.to_string(),
        policy_set: PolicySet { name: set.to_string(), seats },
        seeds: SeedRange { start: index * episodes, count: episodes },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

/// A good job: four firefighters on `default`.
pub fn good_job(sweep: &str, index: u64, episodes: u64) -> Job {
    bb_job(sweep, index, "default", "firefighters", team("firefighter"), episodes)
}

/// Publishes `job` on `simfleet.jobs.<game>.<sweep>` with `Nats-Msg-Id = <sweep>.<index>` and
/// waits for the stream's ack.
pub async fn publish_job(js: &Context, job: &Job) {
    let id = msg_id(&job.sweep, job.index);
    publish_raw(js, &job_subject(&job.game, &job.sweep), protocol::encode(job), Some(&id)).await;
}

/// Publishes any bytes on a jobs subject, with a `Nats-Msg-Id` when given.
pub async fn publish_raw(js: &Context, subject: &str, payload: Vec<u8>, id: Option<&str>) {
    let mut headers = HeaderMap::new();
    if let Some(id) = id {
        headers.insert(NATS_MESSAGE_ID, id);
    }
    let ack = js.publish_with_headers(subject.to_string(), headers, payload.into()).await.expect("publish a job");
    ack.await.expect("the jobs stream acks the job");
}

/// A slow job: ten firefighters and at least 100 nights per episode, so a job can run for
/// seconds with a result of a few MB rather than tens.
pub fn slow_job(sweep: &str, index: u64, episodes: u64) -> Job {
    bb_job(sweep, index, "default?num_agents=10&min_nights=100", "slow", vec!["firefighter".to_string(); 10], episodes)
}

/// Episodes per job of `make` (e.g. [`slow_job`]) that make one job take about `target` on this
/// machine, measured with the same engine the worker runs, so shutdown tests can have jobs in
/// flight without guessing the machine's speed.
pub fn episodes_for(make: fn(&str, u64, u64) -> Job, target: std::time::Duration) -> u64 {
    let probe = make("calibrate-000000000000", 0, 200);
    let result = simfleet::run_job(&probe, &simfleet::RunEnv::default());
    assert_eq!(result.error, None, "the calibration job must play");
    let per_episode = (result.elapsed_seconds / 200.0).max(1e-7);
    ((target.as_secs_f64() / per_episode) as u64).clamp(10, 50_000_000)
}
