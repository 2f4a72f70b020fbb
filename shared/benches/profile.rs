//! A fixed amount of work for profilers, without criterion's timing loop: plays `EPISODES`
//! consecutive seeds (from 0) of one game, scenario and team through `Game::play`, records
//! built, and optionally MessagePack-encodes each record, the way a result carries it.
//!
//! ```text
//! cargo bench -p simfleet --bench profile -- GAME SCENARIO POLICY SEATS EPISODES [encode]
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

use simfleet::protocol::encode;
use simfleet::seeding::fnv64;
use simfleet::{AnyGame, GameKind, RunEnv, Spec};

fn main() {
    // `cargo bench` appends `--bench`; anything starting with `--` is not ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let [game, scenario, policy, seats, episodes, rest @ ..] = args.as_slice() else {
        eprintln!("usage: profile GAME SCENARIO POLICY SEATS EPISODES [encode]");
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
