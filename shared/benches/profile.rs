//! A fixed amount of work for profilers, without criterion's timing loop: plays `EPISODES`
//! consecutive seeds (from 0) of one game, scenario and team through `Game::play`, records
//! built, and optionally MessagePack-encodes each record, the way a result carries it.
//!
//! ```text
//! cargo bench -p simfleet --bench profile -- GAME SCENARIO POLICY SEATS EPISODES [encode]
//! cargo bench -p simfleet --bench profile -- job GAME SCENARIO POLICY SEATS JOBS [EPISODES_PER_JOB]
//! valgrind --tool=callgrind target/release/deps/profile-<hash> bucket_brigade default firefighter 4 20000
//! perf stat -e task-clock target/release/deps/profile-<hash> cogsguard arena \
//!     'pinky?miner=2&scout=1&aligner=2&scrambler=1' 8 20
//! ```
//!
//! Instruction counts (callgrind) are what BENCHMARKS.md compares before and after an engine
//! change: unlike wall-clock rates, they do not move when other builds share the machine. The
//! last line printed is a checksum of the records, so the work cannot be optimised away and a
//! change that alters a record shows up as a different sum.

use std::hint::black_box;
use std::time::Instant;

use simfleet::protocol::{decode, encode, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::seeding::fnv64;
use simfleet::{prepare_job, run_job, AnyGame, GameKind, RunEnv, Spec};

fn main() {
    // `cargo bench` appends `--bench`; anything starting with `--` is not ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if args.first().is_some_and(|a| a == "job") {
        return jobs(&args[1..]);
    }
    let [game, scenario, policy, seats, episodes, rest @ ..] = args.as_slice() else {
        eprintln!("usage: profile GAME SCENARIO POLICY SEATS EPISODES [encode]");
        eprintln!("       profile job GAME SCENARIO POLICY SEATS JOBS [EPISODES_PER_JOB]");
        std::process::exit(2);
    };
    let kind: GameKind = game.parse().expect("a game id");
    let seats: usize = seats.parse().expect("SEATS is a number");
    let episodes: u64 = episodes.parse().expect("EPISODES is a number");
    let encode_records = rest.first().is_some_and(|a| a == "encode");
    let scenario = Spec::parse(scenario).expect("a scenario spec");
    let team: Vec<Spec> = (0..seats).map(|_| Spec::parse(policy).expect("a policy spec")).collect();
    let mut game = AnyGame::prepare(kind, &scenario, &team, &RunEnv::default()).expect("a valid job");

    let started = Instant::now();
    let (mut length, mut checksum, mut bytes) = (0u64, 0u64, 0usize);
    for seed in 0..episodes {
        let ep = game.play(seed, false);
        length += u64::from(ep.record.length);
        checksum = checksum.wrapping_add(fnv64(ep.record.trajectory_hash.as_bytes()));
        if encode_records {
            bytes += black_box(encode(&ep.record)).len();
        }
        black_box(ep);
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{episodes} episodes, {length} steps, {bytes} bytes encoded in {seconds:.3} s: {:.0} episodes/s, {:.0} steps/s",
        episodes as f64 / seconds,
        length as f64 / seconds
    );
    println!("checksum {checksum:016x}");
}

/// `profile job …`: what a worker does per job, minus the network: decode the job's bytes,
/// prepare and play it with `run_job` (whose prepare is timed on its own too), encode the
/// result. Prints each part's share of the time, at the game's default job size unless given.
fn jobs(args: &[String]) {
    let [game, scenario, policy, seats, jobs, rest @ ..] = args else {
        eprintln!("usage: profile job GAME SCENARIO POLICY SEATS JOBS [EPISODES_PER_JOB]");
        std::process::exit(2);
    };
    let kind: GameKind = game.parse().expect("a game id");
    let seats: usize = seats.parse().expect("SEATS is a number");
    let jobs: u64 = jobs.parse().expect("JOBS is a number");
    let per_job = match rest.first() {
        Some(n) => n.parse().expect("EPISODES_PER_JOB is a number"),
        None => kind.default_episodes_per_job(&Spec::parse(scenario).expect("a scenario spec")),
    };
    let env = RunEnv::default();
    let (mut decode_s, mut prepare_s, mut run_s, mut encode_s, mut bytes) = (0.0, 0.0, 0.0, 0.0, 0usize);
    for index in 0..jobs {
        let job = Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "profile-000000000000".into(),
            index,
            game: game.clone(),
            scenario: scenario.clone(),
            policy_set: PolicySet { name: "team".into(), seats: vec![policy.clone(); seats] },
            seeds: SeedRange { start: index * per_job, count: per_job },
            replay: false,
            collect: Default::default(),
            paired: Vec::new(),
        };
        let wire = encode(&job);
        let t = Instant::now();
        let job: Job = decode(&wire).expect("a job decodes");
        decode_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        black_box(prepare_job(&job, &env).expect("a valid job"));
        prepare_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let result = run_job(&job, &env);
        run_s += t.elapsed().as_secs_f64();
        assert!(result.error.is_none(), "{:?}", result.error);
        let t = Instant::now();
        bytes += black_box(encode(&result)).len();
        encode_s += t.elapsed().as_secs_f64();
    }
    let total = decode_s + run_s + encode_s;
    let share = |x: f64| 100.0 * x / total;
    println!("{jobs} jobs of {per_job} episodes ({} bytes of results per job)", bytes / jobs.max(1) as usize);
    println!("per job: {:.1} µs in all", 1e6 * total / jobs as f64);
    println!("  decode the job    {:7.1} µs  {:5.2}%", 1e6 * decode_s / jobs as f64, share(decode_s));
    println!("  run_job           {:7.1} µs  {:5.2}%", 1e6 * run_s / jobs as f64, share(run_s));
    println!("    of which prepare{:7.1} µs  {:5.2}%", 1e6 * prepare_s / jobs as f64, share(prepare_s));
    println!("  encode the result {:7.1} µs  {:5.2}%", 1e6 * encode_s / jobs as f64, share(encode_s));
}
