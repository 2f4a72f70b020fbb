//! Throughput of the bucket_brigade engine, single thread: nights/s and episodes/s of the
//! `default` scenario with four `random` agents and with four `firefighter` (heuristic) agents.
//!
//! `cargo bench -p simfleet --bench bucket_brigade`. Every iteration plays the same 200 seeds
//! through `Game::play` (record included, no replay), so the element counts are exact: nights
//! are counted once up front. `engine` rows play the same seeds without building records.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simfleet::games::bucket_brigade::BucketBrigade;
use simfleet::Game;

const SEEDS: u64 = 200;

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("bucket_brigade/default");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    for (label, policy) in [("random", "random"), ("firefighter", "firefighter")] {
        let mut game = BucketBrigade::from_strs("default", &[policy; 4]).expect("a valid job");
        let nights: u64 = (0..SEEDS).map(|s| u64::from(game.play(s, false).record.length)).sum();

        group.throughput(Throughput::Elements(nights));
        group.bench_function(format!("{label}/nights"), |b| {
            b.iter(|| {
                for s in 0..SEEDS {
                    black_box(game.play(black_box(s), false));
                }
            })
        });
        group.throughput(Throughput::Elements(SEEDS));
        group.bench_function(format!("{label}/episodes"), |b| {
            b.iter(|| {
                for s in 0..SEEDS {
                    black_box(game.play(black_box(s), false));
                }
            })
        });
        group.throughput(Throughput::Elements(nights));
        group.bench_function(format!("{label}/engine_nights"), |b| {
            b.iter(|| {
                for s in 0..SEEDS {
                    black_box(game.play_town(black_box(s)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
