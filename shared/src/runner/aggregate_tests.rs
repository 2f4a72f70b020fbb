//! Aggregates of real games' records: the whole equals the merge of its parts, typed stats
//! aggregate as their maps do, and a summary job played a record at a time is the aggregate of
//! its records.

use proptest::prelude::*;

use super::*;
use crate::aggregate::{AggregateError, CellAggregate, CellBuilder, Moments};
use crate::protocol::{PolicySet, SeedRange, PROTOCOL_VERSION};

/// The oracle of a summary job: its records played and kept, then aggregated after the fact
/// (what the worker did before summaries were played a record at a time).
fn summarize(mut result: JobResult) -> JobResult {
    if result.error.is_some() {
        return result;
    }
    let game: GameKind = result.game.parse().expect("a played job's game");
    result.summary = Some(Box::new(CellAggregate::of_records(&game.info().buckets, &result.records)));
    result.records = Vec::new();
    result.replays = None;
    result
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn moments_close(a: &Moments, b: &Moments) -> bool {
    a.count == b.count
        && close(a.mean, b.mean)
        && close(a.m2, b.m2)
        && (a.min, a.min_seed, a.max, a.max_seed) == (b.min, b.min_seed, b.max, b.max_seed)
}

fn aggregates_close(a: &CellAggregate, b: &CellAggregate) -> bool {
    a.episodes == b.episodes
        && a.outcomes == b.outcomes
        && a.truncated == b.truncated
        && moments_close(&a.team_reward, &b.team_reward)
        && moments_close(&a.length, &b.length)
        && a.agent_rewards.len() == b.agent_rewards.len()
        && a.agent_rewards.iter().zip(&b.agent_rewards).all(|(x, y)| moments_close(x, y))
        && a.stats.keys().eq(b.stats.keys())
        && a.stats.values().zip(b.stats.values()).all(|(x, y)| moments_close(x, y))
        && a.histograms == b.histograms
        && (a.llm_episodes, a.llm_tokens) == (b.llm_episodes, b.llm_tokens)
}

fn job(game: GameKind, scenario: &str, seats: &[&str], start: u64, count: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "agg-000000000000".into(),
        index: 0,
        game: game.as_str().into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: "team".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
        seeds: SeedRange { start, count },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

fn played(game: GameKind, scenario: &str, seats: &[&str], start: u64, count: u64) -> JobResult {
    let r = run_job(&job(game, scenario, seats, start, count), &RunEnv::default());
    assert!(r.error.is_none(), "{:?}", r.error);
    r
}

#[test]
fn a_cell_aggregate_counts_every_figure_of_its_records() {
    let r = played(GameKind::BucketBrigade, "default", &["random"; 4], 0, 200);
    let a = CellAggregate::of_records(&GameKind::BucketBrigade.info().buckets, &r.records);
    assert_eq!(a.episodes, 200);
    assert_eq!(a.outcomes.iter().map(|o| o.episodes).sum::<u64>(), 200);
    assert_eq!(a.truncated, r.records.iter().filter(|x| x.truncated).count() as u64);
    assert_eq!(a.agent_rewards.len(), 4);
    assert_eq!(a.histograms.team_reward.total(), 200);
    assert_eq!(a.histograms.agent_reward.total(), 800);
    let best = r.records.iter().find(|x| x.seed == a.team_reward.max_seed).unwrap();
    assert_eq!(best.team_reward, a.team_reward.max);
    assert!(r.records.iter().all(|x| x.team_reward <= a.team_reward.max && x.team_reward >= a.team_reward.min));
    assert!(!a.stats.is_empty(), "bucket brigade has numeric stats");
    let sum: f64 = r.records.iter().map(|x| x.team_reward).sum();
    assert!(close(a.team_reward.sum(), sum) || (a.team_reward.sum() - sum).abs() < 1e-9);
}

#[test]
fn a_summary_result_carries_the_aggregate_and_round_trips() {
    let r = played(GameKind::Trolley, "balanced_5p", &["utilitarian"; 5], 10, 30);
    let expected = CellAggregate::of_records(&GameKind::Trolley.info().buckets, &r.records);
    let s = summarize(r);
    assert!(s.records.is_empty());
    assert_eq!(s.episodes(), 30);
    assert_eq!(s.summary.as_deref(), Some(&expected));
    let back: JobResult = crate::protocol::decode(&s.encode()).unwrap();
    assert_eq!(back, s);
    assert_eq!(s.encode(), rmp_serde::to_vec_named(&s).unwrap());
}

#[test]
fn merging_with_mismatched_buckets_is_an_error() {
    let mut a = CellAggregate::new(&GameKind::BucketBrigade.info().buckets);
    let b = CellAggregate::new(&GameKind::Deception.info().buckets);
    assert_eq!(a.merge(&b), Err(AggregateError::Buckets));
    let mut empty = CellAggregate::default();
    empty.merge(&b).unwrap();
    assert_eq!(empty.histograms, b.histograms, "a default aggregate takes the buckets it is given");
}

/// One job of each game, played once per proptest run.
fn records(game: GameKind) -> &'static [crate::protocol::EpisodeRecord] {
    use std::sync::OnceLock;
    static CACHE: OnceLock<Vec<(GameKind, Vec<crate::protocol::EpisodeRecord>)>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        vec![
            (GameKind::BucketBrigade, played(GameKind::BucketBrigade, "default", &["random"; 4], 0, 120).records),
            (GameKind::Deception, played(GameKind::Deception, "classic_5p1i", &["heuristic"; 5], 0, 120).records),
            (GameKind::Trolley, played(GameKind::Trolley, "balanced_5p", &["utilitarian"; 5], 0, 120).records),
            (GameKind::Cogsguard, played(GameKind::Cogsguard, "arena", &["random"; 8], 0, 4).records),
        ]
    });
    &all.iter().find(|(g, _)| *g == game).expect("every game is played").1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merged_splits_equal_the_whole(game in 0..4usize, cuts in proptest::collection::vec(0.0..1.0f64, 0..6)) {
        let game = GameKind::ALL[game];
        let recs = records(game);
        let whole = CellAggregate::of_records(&game.info().buckets, recs);
        let mut at: Vec<usize> = cuts.iter().map(|c| (c * recs.len() as f64) as usize).collect();
        at.push(0);
        at.push(recs.len());
        at.sort_unstable();
        let mut merged = CellAggregate::new(&game.info().buckets);
        for w in at.windows(2) {
            merged.merge(&CellAggregate::of_records(&game.info().buckets, &recs[w[0]..w[1]])).unwrap();
        }
        prop_assert!(aggregates_close(&merged, &whole), "{merged:?}\n{whole:?}");
    }
}

/// Cells of every game with typed stats; deception's optional stats (no vote: no
/// `vote_accuracy`) included.
const TYPED_STATS_CELLS: [(GameKind, &str, &[&str]); 4] = [
    (GameKind::BucketBrigade, "default", &["random"; 4]),
    (GameKind::Deception, "classic_5p1i", &["heuristic"; 5]),
    (GameKind::Deception, "classic_5p1i?max_ticks=2", &["random"; 5]),
    (GameKind::Trolley, "trio_3p", &["persuadable"; 3]),
];

#[test]
fn typed_stats_aggregate_as_their_maps_do() {
    // Typed stats are aggregated from their fields (`Stats::for_each_number`), maps (every
    // decoded record) from their values: the same aggregate, exactly.
    for (game, scenario, seats) in TYPED_STATS_CELLS {
        let result = played(game, scenario, seats, 0, 300);
        assert!(result.records.iter().all(|r| r.stats.as_typed().is_some()), "{game:?} has typed stats");
        let maps: Vec<_> = result
            .records
            .iter()
            .map(|r| crate::protocol::EpisodeRecord {
                stats: crate::stats::Stats::from(r.stats.clone().into_map()),
                ..r.clone()
            })
            .collect();
        let (typed, mapped) = (
            CellAggregate::of_records(&game.info().buckets, &result.records),
            CellAggregate::of_records(&game.info().buckets, &maps),
        );
        assert!(!typed.stats.is_empty(), "{game:?} counts stats");
        assert_eq!(typed, mapped, "{game:?} {scenario}");
    }
}

#[test]
fn a_builder_counts_as_add_does_to_the_bit() {
    let by_add = |game: GameKind, records: &[crate::protocol::EpisodeRecord]| {
        let mut a = CellAggregate::new(&game.info().buckets);
        records.iter().for_each(|r| a.add(r));
        a
    };
    let by_builder = |game: GameKind, records: &[crate::protocol::EpisodeRecord]| {
        let mut b = CellBuilder::new(&game.info().buckets);
        records.iter().for_each(|r| b.add(r));
        b.finish()
    };
    let same = |a: &CellAggregate, b: &CellAggregate, what: &str| {
        assert_eq!(crate::protocol::encode(a), crate::protocol::encode(b), "{what}");
    };
    // Every game.
    let cogsguard = (GameKind::Cogsguard, "arena", &["noop"; 8] as &[&str]);
    for (game, scenario, seats) in TYPED_STATS_CELLS.into_iter().chain([cogsguard]) {
        let records = played(game, scenario, seats, 0, if game == GameKind::Cogsguard { 3 } else { 300 }).records;
        same(&by_add(game, &records), &by_builder(game, &records), scenario);
    }
    // Stats that come and go and change places, as maps may.
    let base = played(GameKind::BucketBrigade, "default", &["random"; 4], 0, 5).records;
    let orders: [&[(&str, f64)]; 5] = [
        &[("a", 1.0), ("b", 2.0), ("c", 3.0)],
        &[("b", 5.0), ("c", 6.0)],
        &[("c", -1.0), ("a", 2.5)],
        &[("d", 4.0), ("a", 1.0), ("b", f64::NAN)],
        &[("a", 7.0), ("b", 8.0), ("c", 9.0), ("d", 0.5)],
    ];
    let records: Vec<_> = base
        .iter()
        .zip(orders)
        .map(|(r, stats)| {
            let map: crate::stats::StatsMap =
                stats.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
            crate::protocol::EpisodeRecord { stats: crate::stats::Stats::from(map), ..r.clone() }
        })
        .collect();
    let (a, b) = (by_add(GameKind::BucketBrigade, &records), by_builder(GameKind::BucketBrigade, &records));
    assert_eq!(a.stats.keys().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    same(&a, &b, "maps");
}

#[test]
fn a_summary_job_played_a_record_at_a_time_is_summarize_of_run_job() {
    let pinky = "pinky?miner=2&scout=1&aligner=3&scrambler=2";
    let cells: [(GameKind, &str, &[&str], u64); 6] = [
        (GameKind::BucketBrigade, "default", &["firefighter"; 4], 200),
        (GameKind::Deception, "classic_5p1i", &["heuristic"; 5], 200),
        (GameKind::Trolley, "trio_3p", &["persuadable"; 3], 200),
        (GameKind::Cogsguard, "arena", &[pinky; 8], 2),
        // Fails before playing: the same error result.
        (GameKind::Trolley, "trio_3p?max_rounds=0", &["persuadable"; 3], 5),
        (GameKind::BucketBrigade, "no_such_scenario", &["random"; 4], 5),
    ];
    for (game, scenario, seats, count) in cells {
        for replay in [false, true] {
            let job = Job { replay, ..job(game, scenario, seats, 0, count) };
            let env = RunEnv::default();
            let mut whole = summarize(run_job(&job, &env));
            assert_eq!(whole.error.is_some(), count == 5, "{game:?} {scenario}: the error cases fail");
            let mut seen = Vec::new();
            let mut streamed = run_summary_job(&job, &env, &mut |_, r| seen.push(r.seed));
            whole.elapsed_seconds = 0.0;
            streamed.elapsed_seconds = 0.0;
            assert_eq!(streamed, whole, "{game:?} {scenario} replay={replay}");
            assert_eq!(streamed.encode(), whole.encode());
            if whole.error.is_none() {
                assert_eq!(seen, job.seeds.iter().collect::<Vec<_>>(), "each record shown once, in order");
                assert_eq!(streamed.episodes(), count);
            }
        }
    }
}
