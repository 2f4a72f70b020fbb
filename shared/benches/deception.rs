//! Throughput of the deception engine: whole episodes of `heuristic` seats, record included
//! (the spec's figure: episodes per second per core, target ≥ 100 000 for `classic_5p1i`; and a
//! `crowded_8p2i` episode). `cargo bench -p simfleet --bench deception`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simfleet::games::deception::Deception;
use simfleet::{Game, RunEnv, Spec};

fn prepared(scenario: &str, n: usize) -> Deception {
    let team: Vec<Spec> = (0..n).map(|_| Spec::parse("heuristic").unwrap()).collect();
    Deception::prepare(&Spec::parse(scenario).unwrap(), &team, &RunEnv::default()).expect("a valid job")
}

fn episodes(c: &mut Criterion) {
    let mut group = c.benchmark_group("deception_episode");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(1));
    for (scenario, n) in [("classic_5p1i", 5), ("crowded_8p2i", 8)] {
        let mut game = prepared(scenario, n);
        let mut seed = 0u64;
        group.bench_function(format!("{scenario}/heuristic"), |b| {
            b.iter(|| {
                seed = seed.wrapping_add(1);
                black_box(game.play(black_box(seed), false))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, episodes);
criterion_main!(benches);
