//! CogsGuard throughput in agent-steps per second per core (spec §15): whole episodes with
//! `noop` seats (the engine alone; target ≥ 2,000,000) and with Pinky seats (target ≥ 300,000),
//! on the `arena` and `machina` scenarios. Run: `cargo bench -p simfleet --bench cogsguard`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simfleet::games::cogsguard::Cogsguard;
use simfleet::games::Game;
use simfleet::spec::Spec;
use simfleet::RunEnv;

const PINKY: &str = "pinky?miner=2&scout=1&aligner=2&scrambler=1";

fn prepared(scenario: &str, seat: &str) -> Cogsguard {
    let team: Vec<Spec> = (0..8).map(|_| Spec::parse(seat).expect("policy parses")).collect();
    Cogsguard::prepare(&Spec::parse(scenario).expect("scenario parses"), &team, &RunEnv::default()).expect("valid job")
}

fn episodes(c: &mut Criterion) {
    let mut group = c.benchmark_group("cogsguard_episode");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(10);
    for (scenario, ticks) in [("arena", 1000u64), ("machina", 10_000)] {
        for (name, seat) in [("noop", "noop"), ("pinky", PINKY)] {
            let mut game = prepared(scenario, seat);
            group.throughput(Throughput::Elements(8 * ticks));
            let mut seed = 0;
            group.bench_function(BenchmarkId::new(name, scenario), |b| {
                b.iter(|| {
                    seed += 1;
                    game.play(seed % 16, false)
                })
            });
        }
    }
    group.finish();
}

fn engine_step(c: &mut Criterion) {
    // Ticks only (no map generation): noop seats on a machina map, 1000 ticks per iteration.
    let mut group = c.benchmark_group("cogsguard_step");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    let mut game = prepared("machina", "noop");
    group.throughput(Throughput::Elements(8 * 1000));
    game.begin(1, false);
    group.bench_function("noop_machina_1000_ticks", |b| {
        b.iter(|| {
            if game.world().t + 1000 > game.world().max_steps {
                game.begin(1, false);
            }
            for _ in 0..1000 {
                game.advance();
            }
        })
    });
    group.finish();
}

criterion_group!(benches, episodes, engine_step);
criterion_main!(benches);
