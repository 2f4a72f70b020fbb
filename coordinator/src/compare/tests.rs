use super::pairs::{compare, compare_file, Pairs};
use super::*;
use crate::records::Row;

/// splitmix64: a small, fixed generator for the synthetic replications.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Box–Muller.
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Replications whose interval covers `truth`, out of `reps`; and the mean width ratio.
fn coverage(reps: u32, truth: f64, mut pairs: impl FnMut() -> Vec<(f64, f64)>) -> (f64, f64) {
    let (mut covered, mut ratio) = (0u32, 0.0);
    for _ in 0..reps {
        let p = Paired::of(pairs());
        let (lo, hi) = p.interval();
        covered += u32::from(lo <= truth && truth <= hi);
        ratio += p.narrower();
    }
    (f64::from(covered) / f64::from(reps), ratio / f64::from(reps))
}

#[test]
fn paired_intervals_cover_a_planted_difference_at_the_nominal_rate() {
    // Each seed has an effect both teams share (sd 3: the fires every team meets), plus noise
    // of its own (sd 1); the second team is better by 0.7. 4,000 replications of 30 pairs: the
    // share of 95% intervals covering 0.7 has a standard error of 0.0034, so it must land in
    // 0.95 ± 0.012 (3.5 standard errors).
    let mut rng = Rng(20);
    let (cover, narrower) = coverage(4000, 0.7, || {
        (0..30)
            .map(|_| {
                let seed = 3.0 * rng.normal();
                (seed + rng.normal(), seed + 0.7 + rng.normal())
            })
            .collect()
    });
    assert!((cover - 0.95).abs() < 0.012, "coverage {cover}");
    // sd of a difference: √2 paired, √20 unpaired, so about √10 = 3.2 times narrower.
    assert!((2.8..3.6).contains(&narrower), "paired intervals {narrower}× narrower");

    // Win indicators (0/1) of two teams on a shared draw: the baseline wins when u < 0.40, the
    // other when u < 0.55, plus one coin of its own in ten: a true difference of
    // 0.9 × 0.55 + 0.1 × 0.5 − 0.40 = 0.145. 2,000 replications of 200 pairs; the t interval of
    // a mean of 0/1 differences is a large-sample one, so allow 0.95 ± 0.016 (3.3 s.e.).
    let mut rng = Rng(21);
    let (cover, narrower) = coverage(2000, 0.145, || {
        (0..200)
            .map(|_| {
                let u = rng.uniform();
                let other = if rng.uniform() < 0.1 { rng.uniform() < 0.5 } else { u < 0.55 };
                (f64::from(u8::from(u < 0.40)), f64::from(u8::from(other)))
            })
            .collect()
    });
    assert!((cover - 0.95).abs() < 0.016, "win-rate coverage {cover}");
    assert!(narrower > 1.5, "paired win-rate intervals {narrower}× narrower");
}

#[test]
fn without_shared_effects_pairing_gains_nothing_and_still_covers() {
    // Independent teams: the paired interval is about as wide as the unpaired one.
    let mut rng = Rng(22);
    let (cover, narrower) = coverage(3000, -0.5, || (0..40).map(|_| (rng.normal(), rng.normal() - 0.5)).collect());
    assert!((cover - 0.95).abs() < 0.014, "coverage {cover}");
    assert!((0.9..1.1).contains(&narrower), "{narrower}");
}

fn row(scenario: &str, policy_set: &str, seed: u64, reward: f64, outcome: &str) -> Row {
    Row {
        sweep: "cmp-000000000000".into(),
        job: 0,
        game: "bucket_brigade".into(),
        engine_version: "v1".into(),
        scenario: scenario.into(),
        policy_set: policy_set.into(),
        seed,
        outcome: outcome.into(),
        length: 10,
        truncated: false,
        team_reward: reward,
        agent_rewards: vec![],
        trajectory_hash: String::new(),
        stats: Default::default(),
    }
}

#[test]
fn pairs_only_shared_seeds_and_counts_the_rest() {
    let mut pairs = Pairs::default();
    for seed in 0..10 {
        pairs.add(&row("default", "random", seed, seed as f64, "failure")).unwrap();
    }
    for seed in 2..12 {
        let outcome = if seed % 2 == 0 { "success" } else { "failure" };
        pairs.add(&row("default", "heroes", seed, seed as f64 + 1.5, outcome)).unwrap();
    }
    pairs.add(&row("default", "heroes", 3, 99.0, "success")).unwrap(); // a repeat: the first is kept
    pairs.add(&row("hard", "heroes", 0, 1.0, "success")).unwrap(); // no baseline in `hard`
    let c = compare(&pairs, None).unwrap();
    assert_eq!(c.baseline, "random", "random is the default baseline");
    assert_eq!(c.rows.len(), 1);
    let r = &c.rows[0];
    assert_eq!((r.reward.n, r.left_out, pairs.duplicates), (8, 4, 1));
    assert_eq!(r.reward.mean, 1.5);
    assert_eq!((r.reward.half, r.reward.p), (0.0, 0.0), "the same difference on every seed");
    let win = r.win.unwrap();
    assert!((win.mean - 0.5).abs() < 1e-12, "seeds 2..10: four of eight even");
    assert_eq!(c.without_baseline, vec![("bucket_brigade".to_string(), "hard".to_string())]);
    let table = table::table(&c, None);
    assert!(table.contains("+1.50") && table.contains("+50.0 pp"), "{table}");
    assert!(table.contains("8 episode(s) had no partner") || table.contains("4 episode(s) had no partner"), "{table}");
    assert!(table.contains("bucket_brigade / hard: no random episodes"), "{table}");

    // Without `random`, the first policy set seen; an unknown name is refused with the choices.
    let mut other = Pairs::default();
    other.add(&row("default", "heroes", 0, 1.0, "x")).unwrap();
    other.add(&row("default", "liars", 0, 2.0, "x")).unwrap();
    assert_eq!(compare(&other, None).unwrap().baseline, "heroes");
    let err = compare(&other, Some("randm")).unwrap_err().to_string();
    assert!(err.contains("\"randm\"") && err.contains("heroes, liars"), "{err}");
}

#[test]
fn holm_runs_across_every_comparison_shown() {
    let mut pairs = Pairs::default();
    let mut rng = Rng(5);
    for scenario in ["default", "hard"] {
        for seed in 0..25 {
            let shared = 4.0 * rng.normal();
            pairs.add(&row(scenario, "random", seed, shared + rng.normal(), "failure")).unwrap();
            pairs.add(&row(scenario, "a", seed, shared + 0.8 + rng.normal(), "failure")).unwrap();
            pairs.add(&row(scenario, "b", seed, shared + 0.1 + rng.normal(), "failure")).unwrap();
        }
    }
    let c = compare(&pairs, Some("random")).unwrap();
    assert_eq!(c.rows.len(), 4);
    let p: Vec<f64> = c.rows.iter().map(|r| r.reward.p).collect();
    let expected = stats::holm(&p);
    for (r, e) in c.rows.iter().zip(expected) {
        assert_eq!(r.p_holm, e);
        assert!(r.p_holm >= r.reward.p);
    }
    let smallest = p.iter().copied().fold(f64::INFINITY, f64::min);
    let first = c.rows.iter().find(|r| r.reward.p == smallest).unwrap();
    assert!((first.p_holm - 4.0 * smallest).abs() < 1e-15, "the smallest p is multiplied by the family size");
}

const ARCHETYPES: &str = r#"
name = "cmp-archetypes"
seeds = { start = 0, count = 300 }

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard"]
[cells.policy_sets]
heroes = ["hero", "hero", "hero", "hero"]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
"#;

#[test]
fn pairing_narrows_the_archetype_intervals_in_every_format() {
    // The README's example, scaled to 300 seeds: firefighters against heroes on the same fires.
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("a.toml");
    std::fs::write(&sweep, ARCHETYPES).unwrap();
    let mut tables = Vec::new();
    for ext in ["parquet", "csv", "jsonl", "msgpack"] {
        let results = dir.path().join(format!("a.{ext}"));
        crate::embedded::play(&sweep, &results, Some(2), false, None).unwrap();
        let (_, c) = compare_file(&crate::records::Input::file(&results).unwrap(), Some("heroes")).unwrap();
        assert_eq!(c.rows.len(), 2);
        for r in &c.rows {
            assert_eq!((r.reward.n, r.left_out), (300, 0));
            assert!(r.reward.narrower() > 1.5, "{}: only {}× narrower", r.scenario, r.reward.narrower());
        }
        tables.push(table::table(&c, None));
    }
    assert!(tables.iter().all(|t| *t == tables[0]), "every format gives the same table:\n{}", tables.join("\n"));
}

#[test]
fn an_empty_file_says_pairing_needs_records() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("e.jsonl");
    std::fs::write(&empty, "").unwrap();
    let err = compare_file(&crate::records::Input::file(&empty).unwrap(), None).unwrap_err().to_string();
    assert!(err.contains("needs per-seed records"), "{err}");
}
