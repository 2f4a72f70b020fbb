//! What writing typed stats by hand saves over their serde derive, inside the result encoding
//! a worker does per job (`JobResult::encode`, which writes each record's stats through
//! `TypedStats::write_msgpack`).
//!
//! `cargo bench -p simfleet --bench stats_encode`. Per game with typed stats, one job's records
//! (200 seeds): `result` encodes the whole result; `stats/hand` writes only the records' stats
//! with the games' hand writers; `stats/derive` writes the same bytes through the stats'
//! `Serialize` (the derive, reached through `erased_serde` as any serializer of a record
//! reaches it). (derive − hand) / result is what the derive would add to a result's encoding.
//! For deception, whose stats types are public, `typed/hand` and `typed/derive` write the same
//! stats rebuilt as `DeceptionStats` values, so the derive runs monomorphic (`write_msgpack_of`),
//! as a serializer compiled for the type would.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use simfleet::games::deception::stats::{AgentName, ByKind, DeceptionStats, Ejection, Names};
use simfleet::games::deception::{AgentId, RuleViolation};
use simfleet::llm::LlmBySeat;
use simfleet::protocol::{Job, JobResult, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::runner::run_job;
use simfleet::stats::{write_msgpack_of, StatsMap, TypedStats};
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

/// A static copy of a stats string (the typed stats hold `&'static str`s).
fn leak(v: &Value) -> &'static str {
    Box::leak(v.as_str().expect("a string").to_string().into_boxed_str())
}

/// The typed deception stats a record's map reads as.
fn deception_stats(m: &StatsMap) -> DeceptionStats {
    let u = |k: &str| m[k].as_u64().expect("a count");
    let roles: Vec<&'static str> = m["roles"].as_array().expect("roles").iter().map(leak).collect();
    let mut by_kind = [0; RuleViolation::KINDS.len()];
    for (kind, n) in m["invalid_by_kind"].as_object().expect("by kind") {
        by_kind[RuleViolation::KINDS.iter().position(|k| k == kind).expect("a kind")] = n.as_u64().expect("a count");
    }
    DeceptionStats {
        reason: leak(&m["reason"]),
        roles: Names::from_fn(roles.len(), |i| roles[i]),
        ejections: (m["ejections"].as_array().expect("ejections").iter())
            .map(|e| Ejection {
                tick: e["tick"].as_u64().expect("tick") as u32,
                agent: AgentName(AgentId(
                    e["agent"].as_str().and_then(|a| a.strip_prefix("agent_")?.parse().ok()).expect("agent_<n>"),
                )),
                role: leak(&e["role"]),
                votes: e["votes"].as_u64().expect("votes") as u32,
            })
            .collect(),
        crewmates_ejected: u("crewmates_ejected"),
        imposters_ejected: u("imposters_ejected"),
        no_ejection_ticks: u("no_ejection_ticks"),
        vote_accuracy: m["vote_accuracy"].as_f64(),
        imposter_survival: m["imposter_survival"].as_f64(),
        discussion_turns: u("discussion_turns"),
        votes_proposed: u("votes_proposed"),
        invalid_actions: (m["invalid_actions"].as_array().expect("per seat").iter())
            .map(|v| v.as_u64().expect("a count"))
            .collect(),
        invalid_by_kind: ByKind(by_kind),
        llm: LlmBySeat::default(),
    }
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
        if game == "deception" {
            let typed: Vec<DeceptionStats> = result.records.iter().map(|r| deception_stats(r.stats.as_map())).collect();
            let (mut hand2, mut derive2) = (Vec::new(), Vec::new());
            for s in &typed {
                s.write_msgpack(&mut hand2);
                write_msgpack_of(s, &mut derive2);
            }
            assert_eq!((&hand2, &derive2), (&hand, &hand), "the rebuilt stats write the records' bytes");
            group.bench_function("typed/hand", |b| {
                b.iter(|| {
                    out.clear();
                    for s in &typed {
                        s.write_msgpack(&mut out);
                    }
                    black_box(out.len())
                })
            });
            group.bench_function("typed/derive", |b| {
                b.iter(|| {
                    out.clear();
                    for s in &typed {
                        write_msgpack_of(s, &mut out);
                    }
                    black_box(out.len())
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, encoding);
criterion_main!(benches);
