//! The pure laws of the aggregates: moments against the two-pass figures, histogram buckets
//! against the partition point, extremes independent of the merge order. (Aggregates of real
//! games' records are tested beside the runner, which plays them.)

use proptest::prelude::*;

use super::*;

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn moments_match_the_two_pass_figures() {
    let values = [3.0, -1.5, 7.25, 0.0, 7.25, -1.5, 2.0];
    let mut m = Moments::default();
    for (seed, v) in values.iter().enumerate() {
        m.add(*v, 100 - seed as u64);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let m2: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    assert!(close(m.mean, mean) && close(m.m2, m2), "{m:?}");
    // Ties go to the smaller seed: -1.5 at seeds 99 and 95, 7.25 at 98 and 96.
    assert_eq!((m.min, m.min_seed, m.max, m.max_seed), (-1.5, 95, 7.25, 96));
    assert!(close(m.ci95(), 1.96 * (m2 / (n - 1.0) / n).sqrt()));
    assert!(Moments::default().ci95().is_nan());
}

#[test]
fn histograms_count_like_the_workers_prometheus_buckets() {
    let mut h = Histogram::new(&[1.0, 2.5, 10.0]);
    for v in [0.5, 1.0, 1.5, 2.5, 3.0, 10.0, 11.0, -4.0] {
        h.record(v);
    }
    assert_eq!(h.counts, vec![3, 2, 2, 1]);
    assert_eq!(h.merge(&Histogram::new(&[1.0, 2.0, 10.0])), Err(AggregateError::Buckets));
    assert_eq!(h.total(), 8, "a refused merge changes nothing");
}

proptest! {
    #[test]
    fn a_bucket_is_the_partition_point_of_the_bounds(
        steps in proptest::collection::vec(0.001..100.0f64, 0..20),
        start in -50.0..50.0f64,
        value in prop_oneof![-200.0..2200.0f64, Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
        on_bound in proptest::option::of(0..20usize),
    ) {
        let bounds: Vec<f64> = steps.iter().scan(start, |b, s| { *b += s; Some(*b) }).collect();
        // Values equal to a bound go to that bound's bucket.
        let value = on_bound.and_then(|i| bounds.get(i).copied()).unwrap_or(value);
        prop_assert_eq!(bucket_of(&bounds, value), bounds.partition_point(|b| *b < value));
    }

    #[test]
    fn extremes_do_not_depend_on_the_merge_order(values in proptest::collection::vec(-3i32..3, 1..40)) {
        let parts: Vec<Moments> = values.iter().enumerate().map(|(seed, v)| {
            let mut m = Moments::default();
            m.add(f64::from(*v), seed as u64);
            m
        }).collect();
        let (mut forward, mut backward) = (Moments::default(), Moments::default());
        parts.iter().for_each(|p| forward.merge(p));
        parts.iter().rev().for_each(|p| backward.merge(p));
        prop_assert_eq!((forward.min, forward.min_seed, forward.max, forward.max_seed),
            (backward.min, backward.min_seed, backward.max, backward.max_seed));
        prop_assert!(close(forward.mean, backward.mean) || (forward.mean - backward.mean).abs() < 1e-12);
    }
}

fn seeds(rewards: &[f64], wins: &[bool]) -> Vec<SeedValue> {
    rewards.iter().zip(wins).zip(100..).map(|((r, w), seed)| SeedValue { seed, team_reward: *r, win: *w }).collect()
}

#[test]
fn differences_are_every_pair_in_order_with_the_two_pass_figures() {
    let sets = [
        seeds(&[1.0, 4.0, -2.0, 3.5], &[true, true, false, true]),
        seeds(&[0.5, 4.0, 1.0, 0.0], &[false, true, true, false]),
        seeds(&[2.0, 2.0, 2.0, 2.0], &[true, false, true, false]),
    ];
    let d = differences(&sets, true);
    assert_eq!(d.iter().map(|d| (d.a, d.b)).collect::<Vec<_>>(), [(0, 1), (0, 2), (1, 2)]);
    let x: Vec<f64> = (0..4).map(|i| sets[0][i].team_reward - sets[1][i].team_reward).collect();
    let mean = x.iter().sum::<f64>() / 4.0;
    let m2: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
    assert!(close(d[0].team_reward.mean, mean) && close(d[0].team_reward.m2, m2), "{:?}", d[0]);
    assert_eq!(
        (d[0].team_reward.min, d[0].team_reward.min_seed, d[0].team_reward.max, d[0].team_reward.max_seed),
        (-3.0, 102, 3.5, 103)
    );
    let wins = d[0].win.as_ref().expect("a game with a win outcome");
    assert_eq!((wins.count, wins.mean, wins.min, wins.max), (4, 0.25, -1.0, 1.0), "+1, 0, -1, +1");
    assert!(differences(&sets, false).iter().all(|d| d.win.is_none()), "no win outcome, no win differences");
    assert!(differences(&sets[..1], true).is_empty(), "one set pairs with nothing");
}

proptest! {
    #[test]
    fn differences_of_merged_splits_equal_the_whole(
        pairs in proptest::collection::vec((-50.0..50.0f64, -50.0..50.0f64, any::<bool>(), any::<bool>()), 1..60),
        cut in 0.0..1.0f64,
    ) {
        let a: Vec<SeedValue> = pairs.iter().zip(0..).map(|(p, seed)| SeedValue { seed, team_reward: p.0, win: p.2 }).collect();
        let b: Vec<SeedValue> = pairs.iter().zip(0..).map(|(p, seed)| SeedValue { seed, team_reward: p.1, win: p.3 }).collect();
        let at = (cut * a.len() as f64) as usize;
        let whole = differences(&[a.clone(), b.clone()], true);
        let first = differences(&[a[..at].to_vec(), b[..at].to_vec()], true);
        let second = differences(&[a[at..].to_vec(), b[at..].to_vec()], true);
        let mut merged = first[0].team_reward.clone();
        merged.merge(&second[0].team_reward);
        prop_assert_eq!((merged.min, merged.min_seed, merged.max, merged.max_seed),
            (whole[0].team_reward.min, whole[0].team_reward.min_seed, whole[0].team_reward.max, whole[0].team_reward.max_seed));
        prop_assert_eq!(merged.count, whole[0].team_reward.count);
        prop_assert!((merged.mean - whole[0].team_reward.mean).abs() < 1e-9);
        prop_assert!((merged.m2 - whole[0].team_reward.m2).abs() < 1e-6 * whole[0].team_reward.m2.max(1.0));
    }
}
