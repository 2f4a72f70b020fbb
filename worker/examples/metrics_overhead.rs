//! What metrics recording costs the worker: episodes/s of the Bucket Brigade archetype sweep
//! (15 scenarios × 7 teams, jobs of 250 episodes) played with `run_job` on one thread, with and
//! without recording each job's metrics (`JobMetrics::job_played`, as the worker does) into the
//! real Prometheus recorder. Rounds alternate (and which side goes first), so both sides see the
//! same machine; medians.
//! The recorder's upkeep (folding the job-duration samples into bucket counts, which the worker
//! does every 5 s) runs inside the timed rounds with metrics; a render of the whole exposition,
//! as a scrape does, between rounds.
//!
//! `cargo run --release -p simfleet-worker --example metrics_overhead [SEEDS_PER_CELL] [ROUNDS]`

use std::collections::BTreeMap;
use std::time::Instant;

use simfleet::protocol::{Job, PolicySet, SeedRange};
use simfleet::{run_job, GameKind, RunEnv, PROTOCOL_VERSION};
use worker::job_metrics::JobMetrics;

const TEAMS: [(&str, [&str; 4]); 7] = [
    ("firefighters", ["firefighter"; 4]),
    ("free_riders", ["free_rider"; 4]),
    ("heroes", ["hero"; 4]),
    ("coordinators", ["coordinator"; 4]),
    ("liars", ["liar"; 4]),
    ("mixed", ["firefighter", "free_rider", "hero", "liar"]),
    ("random", ["random"; 4]),
];
const EPISODES_PER_JOB: u64 = 250;

fn jobs(seeds: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for scenario in GameKind::BucketBrigade.info().scenarios {
        for (name, seats) in TEAMS {
            let mut start = 0;
            while start < seeds {
                let count = EPISODES_PER_JOB.min(seeds - start);
                jobs.push(Job {
                    protocol_version: PROTOCOL_VERSION,
                    sweep: "overhead-000000000000".into(),
                    index: jobs.len() as u64,
                    game: "bucket_brigade".into(),
                    scenario: scenario.name.into(),
                    policy_set: PolicySet { name: name.into(), seats: seats.iter().map(|s| s.to_string()).collect() },
                    seeds: SeedRange { start, count },
                    replay: false,
                    collect: Default::default(),
                    paired: Vec::new(),
                });
                start += count;
            }
        }
    }
    jobs
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = args.next().map_or(2000, |a| a.parse().expect("SEEDS_PER_CELL is a number"));
    let rounds: usize = args.next().map_or(5, |a| a.parse().expect("ROUNDS is a number"));
    let handle = worker::telemetry::install(&BTreeMap::new()).expect("install the Prometheus recorder");
    let metrics = JobMetrics::new();
    let jobs = jobs(seeds);
    let episodes: u64 = jobs.iter().map(|j| j.seeds.count).sum();
    let env = RunEnv::default();
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Which side goes first alternates too, so neither always runs on a warmer cache.
        let order = if round % 2 == 0 { [false, true] } else { [true, false] };
        for record in order {
            let started = Instant::now();
            for (i, job) in jobs.iter().enumerate() {
                let result = run_job(job, &env);
                if record {
                    metrics.job_played(job, &result);
                    // The worker runs the recorder's upkeep every 5 s; counted here, more often
                    // than that (every 40 jobs, ~10,000 episodes).
                    if i % 40 == 39 {
                        handle.run_upkeep();
                    }
                }
                std::hint::black_box(result);
            }
            let rate = episodes as f64 / started.elapsed().as_secs_f64();
            if record {
                with.push(rate)
            } else {
                without.push(rate)
            }
            // A scrape, outside the timing.
            std::hint::black_box(worker::telemetry::render(&handle));
        }
    }
    let (a, b) = (median(without), median(with));
    println!("{} jobs, {episodes} episodes per round, {rounds} rounds, one thread", jobs.len());
    println!("without metrics: {a:.0} episodes/s (median)");
    println!("with metrics:    {b:.0} episodes/s (median)");
    println!("overhead:        {:.2}%", 100.0 * (a - b) / a);
}
