//! What a worker's play thread spends on a job beyond playing it, per game: the same jobs (one
//! row per game, scenario and team of `scripts/bench-overhead`, at the game's default episodes
//! per job) played three ways on one thread, in one process:
//!
//! * **play**: `simfleet::play_job` into a sink that drops each record: the engine, records built;
//! * **records**: what a play thread does with a records job: [`JobSink::play`] (each
//!   record written into the result as it is played and counted into the job's metrics), then
//!   the metrics recorded ([`JobMetrics::job_done`]);
//! * **summary**: what it does with a summary job, the same sink: each record counted into the
//!   aggregate and the metrics, the metrics recorded and the result encoded. At the
//!   records jobs' size, a hundredth of a summary job's default: per-job costs count a hundred
//!   times more than in the worker, so its overhead errs high.
//!
//! The three alternate within each round, in rotating order, so that all see the same machine;
//! medians of the rounds. The overhead is `1 − play / side`, in CPU time of the one thread. The
//! rest of a job's overhead, pulling, publishing and acknowledging, runs on the worker's runtime
//! threads and is measured there (`scripts/bench-overhead`, its "messaging" column). Nothing here
//! talks to a server, so the figures hold on a loaded machine too: they compare times taken a
//! fraction of a second apart.
//!
//! `cargo run --release -p simfleet-worker --example play_overhead [ROUNDS] [SECONDS_PER_SIDE] [ROW]`
//! (defaults 7 rounds, 1 s; ROW keeps the rows whose game or scenario contains it)

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use simfleet::protocol::{Collect, PolicySet, SeedRange};
use simfleet::runner::RecordSink;
use simfleet::{GameKind, Job, RunEnv, Spec, PROTOCOL_VERSION};
use worker::job_metrics::JobMetrics;
use worker::JobSink;

const PINKY: &str = "pinky?miner=2&scout=1&aligner=3&scrambler=2";

/// Game, scenario, team name, policy, seats: `scripts/bench-overhead`'s rows.
const ROWS: [(GameKind, &str, &str, &str, usize); 7] = [
    (GameKind::BucketBrigade, "default", "firefighters", "firefighter", 4),
    (GameKind::BucketBrigade, "default", "random", "random", 4),
    (GameKind::Deception, "classic_5p1i", "heuristic", "heuristic", 5),
    (GameKind::Deception, "crowded_8p2i", "heuristic", "heuristic", 8),
    (GameKind::Trolley, "balanced_5p", "persuadable", "persuadable", 5),
    (GameKind::Trolley, "trio_3p", "persuadable", "persuadable", 3),
    (GameKind::Cogsguard, "arena", "pinky", PINKY, 8),
];

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Play,
    Records,
    Summary,
}

const SIDES: [Side; 3] = [Side::Play, Side::Records, Side::Summary];

/// `count` jobs of a row, consecutive seeds.
fn jobs(row: &(GameKind, &str, &str, &str, usize), count: u64, collect: Collect) -> Vec<Job> {
    let (game, scenario, team, policy, seats) = *row;
    let per_job = game.default_episodes_per_job(&Spec::parse(scenario).expect("a scenario name"));
    (0..count)
        .map(|index| Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "overhead-000000000000".into(),
            index,
            game: game.as_str().into(),
            scenario: scenario.into(),
            policy_set: PolicySet { name: team.into(), seats: vec![policy.to_string(); seats] },
            seeds: SeedRange { start: index * per_job, count: per_job },
            replay: false,
            collect,
            paired: Vec::new(),
        })
        .collect()
}

/// Drops each record as it is played: the engine alone, records built.
struct Dropped;

impl RecordSink for Dropped {
    fn episode(&mut self, record: simfleet::EpisodeRecord, replay: Option<String>) {
        black_box((record, replay));
    }
}

/// Plays `jobs` as `side` does; the CPU time of this thread, in seconds.
fn run(side: Side, jobs: &[Job], env: &RunEnv, metrics: &JobMetrics) -> f64 {
    let started = cpu_time();
    for job in jobs {
        match side {
            Side::Play => {
                black_box(simfleet::play_job(job, env, &mut Dropped));
            }
            Side::Records | Side::Summary => {
                let (result, payload, tallies) = JobSink::play(job, env, metrics);
                metrics.job_done(job, &result, tallies);
                black_box(payload);
            }
        }
    }
    cpu_time() - started
}

/// This thread's CPU time so far, in seconds.
fn cpu_time() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(7, |a| a.parse().expect("ROUNDS is a number"));
    let seconds: f64 = args.next().map_or(1.0, |a| a.parse().expect("SECONDS_PER_SIDE is a number"));
    let only = args.next().unwrap_or_default();
    // The real recorder, as in the worker: recording the metrics is part of the play thread's work.
    let _handle = worker::telemetry::install(&BTreeMap::new()).expect("install the Prometheus recorder");
    let metrics = JobMetrics::new();
    let env = RunEnv::default();
    println!("{rounds} rounds of about {seconds} s of CPU per side; one thread; overhead = 1 - play / side");
    println!(
        "{:<15} {:<13} {:<12} {:>7} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "game", "scenario", "team", "per job", "jobs", "play s", "records s", "summary s", "records", "summary"
    );
    for row in ROWS.iter().filter(|r| r.0.as_str().contains(&only) || r.1.contains(&only)) {
        // As many jobs as take about `seconds` to play, from one job's time.
        let one = jobs(row, 1, Collect::Records);
        let started = Instant::now();
        run(Side::Play, &one, &env, &metrics);
        let count = ((seconds / started.elapsed().as_secs_f64().max(1e-6)) as u64).clamp(2, 100_000);
        let records = jobs(row, count, Collect::Records);
        let summary = jobs(row, count, Collect::Summary);
        let mut times: [Vec<f64>; 3] = Default::default();
        for round in 0..rounds {
            for k in 0..SIDES.len() {
                let side = SIDES[(round + k) % SIDES.len()];
                let batch = if side == Side::Summary { &summary } else { &records };
                times[side as usize].push(run(side, batch, &env, &metrics));
            }
        }
        let [play, rec, sum] = times.map(median);
        println!(
            "{:<15} {:<13} {:<12} {:>7} {:>5} {:>9.3} {:>9.3} {:>9.3} {:>8.2}% {:>8.2}%",
            row.0.as_str(),
            row.1,
            row.2,
            records[0].seeds.count,
            count,
            play,
            rec,
            sum,
            100.0 * (1.0 - play / rec),
            100.0 * (1.0 - play / sum),
        );
    }
}
