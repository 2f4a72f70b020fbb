//! Criterion bench of the trolley engine: headless episodes per second on one core (§13's
//! throughput figure; target ≥ 200 000 for N = 5 with scripted agents).
//!
//! `cargo bench -p simfleet --bench trolley`. Each iteration plays a batch of consecutive seeds
//! through `Game::play` (record included, no replay), so the reported element rate is
//! episodes per second.
//!
//! On a shared machine wall-clock rates understate one core; `TROLLEY_EPISODES=200000 perf stat
//! -e task-clock <bench binary>` plays that many `balanced_5p` / `persuadable` episodes without
//! criterion, so CPU time per episode can be read off directly.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion, Throughput};
use simfleet::games::trolley::Trolley;
use simfleet::games::Game;
use simfleet::{RunEnv, Spec};

const BATCH: u64 = 1_000;

fn prepare(scenario: &str, policy: &str, n: usize) -> Trolley {
    let scenario = Spec::parse(scenario).expect("scenario spec");
    let team: Vec<Spec> = (0..n).map(|_| Spec::parse(policy).expect("policy spec")).collect();
    Trolley::prepare(&scenario, &team, &RunEnv::default()).expect("valid job")
}

fn episodes(c: &mut Criterion) {
    let mut group = c.benchmark_group("trolley");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    group.throughput(Throughput::Elements(BATCH));
    for (scenario, policy, n) in [
        ("balanced_5p", "persuadable", 5),
        ("balanced_5p", "random", 5),
        ("trio_3p", "persuadable", 3),
        ("large_10p", "persuadable", 10),
    ] {
        let mut game = prepare(scenario, policy, n);
        let mut next = 0u64;
        group.bench_function(format!("{scenario}/{policy}"), |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    black_box(game.play(next, false));
                    next += 1;
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, episodes);

fn main() {
    if let Some(n) = std::env::var("TROLLEY_EPISODES").ok().and_then(|v| v.parse::<u64>().ok()) {
        let mut game = prepare("balanced_5p", "persuadable", 5);
        for seed in 0..n {
            black_box(game.play(seed, false));
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
