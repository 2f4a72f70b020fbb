//! What writing typed stats by hand saves over their serde derive, inside the result encoding
//! a worker does per job (`JobResult::encode`, which writes each record's stats through
//! `TypedStats::write_msgpack`).
//!
//! `cargo bench -p simfleet --bench stats_encode`. Per game with typed stats, one job's records
//! (200 seeds): `result` encodes the whole result; `stats/hand` writes only the records' stats
//! with the games' hand writers; `stats/derive` writes the same bytes through the stats'
//! `Serialize` (the derive, reached through `erased_serde` as any serializer of a record
//! reaches it). (derive − hand) / result is what the derive would add to a result's encoding.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simfleet::protocol::{Job, JobResult, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::runner::run_job;
use simfleet::RunEnv;

const SEEDS: u64 = 200;

fn result(game: &str, scenario: &str, policy: &str, n: usize) -> JobResult {
    let job = Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "bench-000000000000".into(),
        index: 0,
        game: game.into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: policy.into(), seats: vec![policy.into(); n] },
        seeds: SeedRange { start: 0, count: SEEDS },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    };
    let result = run_job(&job, &RunEnv::default());
    assert!(result.error.is_none(), "{:?}", result.error);
    result
}

fn encoding(c: &mut Criterion) {
    for (game, scenario, policy, n) in [
        ("bucket_brigade", "default", "random", 4),
        ("deception", "classic_5p1i", "heuristic", 5),
        ("trolley", "balanced_5p", "persuadable", 5),
    ] {
        let result = result(game, scenario, policy, n);
        let mut group = c.benchmark_group(format!("stats_encode/{game}"));
        group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        group.throughput(Throughput::Elements(SEEDS));
        group.bench_function("result", |b| b.iter(|| black_box(result.encode())));
        let mut out = Vec::with_capacity(1 << 20);
        group.bench_function("stats/hand", |b| {
            b.iter(|| {
                out.clear();
                for r in &result.records {
                    r.stats.write_msgpack(&mut out);
                }
                black_box(out.len())
            })
        });
        let (mut hand, mut derive) = (Vec::new(), Vec::new());
        for r in &result.records {
            r.stats.write_msgpack(&mut hand);
            rmp_serde::encode::write_named(&mut derive, &r.stats).expect("stats encode");
        }
        assert_eq!(hand, derive, "{game}: the derive writes the hand writer's bytes");
        group.bench_function("stats/derive", |b| {
            b.iter(|| {
                out.clear();
                for r in &result.records {
                    rmp_serde::encode::write_named(&mut out, &r.stats).expect("stats encode");
                }
                black_box(out.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, encoding);
criterion_main!(benches);
