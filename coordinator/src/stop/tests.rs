//! The statistics of stopping sweeps: the quantile, the checkpoints, the `[stop]` table, the
//! folds, and simultaneous coverage on planted truths (with the naive control that fails).

use simfleet::aggregate::Moments;

use super::config::{ConfigError, RawStop};
use super::sim::{replicate, Planted, Truth};
use super::state::PairMoments;
use super::*;

#[derive(serde::Deserialize)]
struct File {
    stop: toml::Spanned<RawStop>,
}

/// The `[stop]` table of `text` (its lines), checked.
fn config(text: &str) -> Result<StopConfig, ConfigError> {
    let file: File = toml::from_str(&format!("[stop]\n{text}")).unwrap();
    let span = file.stop.span();
    file.stop.into_inner().check(span)
}

#[test]
fn the_normal_quantile_matches_the_tables_into_the_far_tail() {
    assert!((normal::two_sided(0.05) - 1.959964).abs() < 1e-6);
    assert!((normal::two_sided(0.01) - 2.575829).abs() < 1e-6);
    assert!((normal::two_sided(1e-5) - 4.417173).abs() < 1e-5);
    assert!((normal::two_sided(1e-8) - 5.730729).abs() < 1e-5);
    for p in [1e-9, 1e-4, 0.01, 0.3, 0.5, 0.8, 0.99, 1.0 - 1e-6] {
        let back = normal::cdf(normal::quantile(p));
        assert!((back - p).abs() <= 2e-7 * p.min(1.0 - p).max(1e-9) + 1e-12, "p {p}: cdf(quantile) = {back}");
    }
}

#[test]
fn checkpoints_grow_by_half_in_steps_of_32_and_end_at_the_cap() {
    assert_eq!(schedule::checkpoints(2048), [64, 96, 160, 256, 384, 576, 864, 1312, 2048]);
    assert_eq!(schedule::checkpoints(50), [50]);
    assert_eq!(schedule::checkpoints(64), [64]);
    // 96 is within a quarter of 100 below it: one look fewer.
    assert_eq!(schedule::checkpoints(100), [64, 100]);
    let c = schedule::checkpoints(20_000);
    assert_eq!(*c.last().unwrap(), 20_000);
    assert!(c[..c.len() - 1].iter().all(|n| n % 32 == 0));
    assert!(c.windows(2).all(|w| w[0] < w[1]));
    assert!((20_000 - c[c.len() - 2]) * 4 >= 20_000, "{c:?}");
    assert_eq!(c.len(), 14, "{c:?}");
}

#[test]
fn the_stop_table_is_checked_value_by_value() {
    let c =
        config("confidence = 0.9\nmetric = \"win\"\nhalf_width = 1\nbaseline = \"random\"\nmargin = 0.5\nbest = true")
            .unwrap();
    assert_eq!((c.confidence, c.metric, c.half_width, c.margin, c.best), (0.9, Metric::Win, Some(1.0), 0.5, true));
    assert_eq!(c.baseline.as_deref(), Some("random"));
    let defaults = config("best = true").unwrap();
    assert_eq!((defaults.confidence, defaults.metric, defaults.margin), (0.95, Metric::TeamReward, 0.0));
    for (text, field, says) in [
        ("confidence = 1\nbest = true", "stop.confidence", "between 0 and 1"),
        ("metric = \"reward\"\nbest = true", "stop.metric", "use \"team_reward\" or \"win\""),
        ("half_width = 0", "stop.half_width", "greater than 0"),
        ("baseline = \"r\"\nmargin = -1", "stop.margin", "0 or more"),
        ("half_width = 1\nmargin = 1", "stop.margin", "applies to `baseline` and `best`"),
        ("confidence = 0.9", "stop", "asks no question"),
        ("baseline = \"\"", "stop.baseline", "is empty"),
    ] {
        let e = config(text).unwrap_err();
        assert_eq!(e.field, field, "{text}");
        assert!(e.message.contains(says), "{text}: {}", e.message);
        assert!(e.span.is_some());
    }
}

/// A plan over `groups` planted groups of `sets` sets each, the first the baseline when asked.
fn plan(text: &str, cap: u64, groups: &[Planted], baseline: bool) -> StopPlan {
    let shapes = groups
        .iter()
        .enumerate()
        .map(|(g, p)| GroupShape {
            game: "synthetic".into(),
            scenario: format!("s{g}"),
            sets: (0..p.sets.len()).map(|i| format!("p{i}")).collect(),
            cells: (0..p.sets.len()).collect(),
            baseline: baseline.then_some(0),
        })
        .collect();
    StopPlan::new(config(text).unwrap(), cap, shapes)
}

fn t(mean: f64, sd: f64) -> Truth {
    Truth { mean, sd, skewed: false, binary: false }
}

fn win(p: f64) -> Truth {
    Truth { mean: p, sd: 0.0, skewed: false, binary: true }
}

/// Coverage, wrong decisions and mean episodes over `reps` replications.
fn rates(plan: &StopPlan, truths: &[Planted], reps: u64) -> (f64, f64, f64) {
    let (mut covered, mut wrong, mut episodes) = (0, 0, 0);
    for rep in 0..reps {
        let (tally, _) = replicate(plan, truths, 0x5eed_0000 + rep);
        covered += u64::from(tally.covered);
        wrong += u64::from(tally.wrong);
        episodes += tally.episodes;
    }
    let reps = reps as f64;
    (covered as f64 / reps, wrong as f64 / reps, episodes as f64 / reps)
}

/// Against a baseline with a margin of 0.5: a clear gain, an exact tie, a difference exactly at
/// the margin (no decision is right), one just inside it, a clear loss, and a skewed set.
fn comparisons() -> Vec<Planted> {
    let skewed = Truth { mean: 1.0, sd: 2.0, skewed: true, binary: false };
    vec![
        Planted { sets: vec![t(0.0, 2.0), t(3.0, 2.0), t(0.0, 2.0), t(0.5, 2.0), t(-0.25, 1.0)], rho: 0.5 },
        Planted { sets: vec![t(10.0, 3.0), t(8.5, 3.0), skewed, t(10.5, 1.0)], rho: 0.8 },
    ]
}

#[test]
fn comparisons_with_a_baseline_hold_at_every_look_and_the_naive_control_does_not() {
    let truths = comparisons();
    let text = "confidence = 0.95\nhalf_width = 0.25\nbaseline = \"p0\"\nmargin = 0.5";
    let plan = plan(text, 1024, &truths, true);
    let (coverage, wrong, _) = rates(&plan, &truths, 1000);
    assert!(coverage >= 0.95, "simultaneous coverage {coverage}");
    assert!(wrong <= 0.05, "wrong decisions {wrong}");
    // A fixed-size interval re-checked at every look: the error of one look, spent at each.
    let mut naive = plan.clone();
    naive.z = naive.split.z_fixed();
    let (naive_coverage, _, _) = rates(&naive, &truths, 500);
    assert!(naive_coverage < 0.93, "the naive control should visibly under-cover: {naive_coverage}");
    eprintln!("baseline: coverage {coverage:.3}, wrong {wrong:.3}, naive coverage {naive_coverage:.3}");
}

#[test]
fn a_best_race_holds_at_every_look_and_the_naive_control_does_not() {
    // An exact tie at the top, a close third, two clear losers.
    let truths = vec![
        Planted { sets: vec![t(1.0, 1.0), t(1.0, 1.0), t(0.8, 1.5), t(0.0, 1.0), t(-1.0, 2.0)], rho: 0.6 },
        Planted { sets: vec![t(5.0, 2.0), t(4.0, 2.0), t(5.2, 2.0)], rho: 0.3 },
    ];
    let plan = plan("best = true\nmargin = 0.3\nhalf_width = 0.4", 1024, &truths, false);
    let (coverage, wrong, _) = rates(&plan, &truths, 1000);
    assert!(coverage >= 0.95, "simultaneous coverage {coverage}");
    assert!(wrong <= 0.05, "wrong decisions {wrong}");
    let mut naive = plan.clone();
    naive.z = naive.split.z_fixed();
    let (naive_coverage, _, _) = rates(&naive, &truths, 500);
    assert!(naive_coverage < 0.93, "the naive control should visibly under-cover: {naive_coverage}");
    eprintln!("best: coverage {coverage:.3}, wrong {wrong:.3}, naive coverage {naive_coverage:.3}");
}

#[test]
fn win_shares_hold_at_every_look_even_when_rare() {
    // A rare win, where 64 seeds often see none, a tie at the top, and a middling set.
    let truths = vec![Planted { sets: vec![win(0.9), win(0.9), win(0.5), win(0.01)], rho: 0.5 }];
    let plan = plan("metric = \"win\"\nhalf_width = 0.05\nbest = true\nmargin = 0.05", 1024, &truths, false);
    let (coverage, wrong, _) = rates(&plan, &truths, 1000);
    assert!(coverage >= 0.95, "simultaneous coverage {coverage}");
    assert!(wrong <= 0.05, "wrong decisions {wrong}");
    eprintln!("win: coverage {coverage:.3}, wrong {wrong:.3}");
}

#[test]
fn uneven_differences_stop_early_and_save_against_the_fixed_design() {
    // bb_archetypes' shape: 15 scenarios of 7 sets against `random`, most tens of points apart
    // with a per-seed spread of about 16, a few close ones.
    let gaps = [25.0, -30.0, 40.0, 12.0, -55.0, 18.0];
    let close = [0.2, 2.5, -3.0];
    let truths: Vec<Planted> = (0..15)
        .map(|s| {
            let mut sets = vec![t(0.0, 12.0)];
            sets.extend(gaps.iter().enumerate().map(|(i, g)| {
                let g = if i == s % 6 && s < 3 { close[s] } else { g + s as f64 };
                t(g, 12.0)
            }));
            Planted { sets, rho: 0.0 }
        })
        .collect();
    let plan = plan("baseline = \"p0\"\nmargin = 1", 20_000, &truths, true);
    let (_, states) = replicate(&plan, &truths, 7);
    let s = savings::Savings::of(&plan, &states);
    eprintln!("bb-shaped: {s:?}, {:.1}x fewer than fixed, {:.1}x fewer than the cap", s.vs_fixed(), s.vs_cap());
    assert_eq!(s.cap, 105 * 20_000);
    assert!(s.vs_fixed() >= 5.0, "{s:?}");
    assert!(s.vs_cap() >= 20.0, "{s:?}");
}

#[test]
fn a_fold_is_logged_and_replays_to_the_same_record() {
    let truths = comparisons();
    let plan = plan("baseline = \"p0\"\nmargin = 0.5", 2048, &truths[..1], true);
    let mut state = GroupState::new(&plan, 0);
    let m = |count, mean: f64| Moments { count, mean, m2: count as f64 * 4.0, ..Moments::default() };
    let sets = vec![m(64, 0.0), m(64, 3.0), m(64, 0.0), m(64, 0.5), m(64, -0.25)];
    let pairs: Vec<PairMoments> = (1..5).map(|b| PairMoments { a: 0, b, moments: m(64, -sets[b].mean) }).collect();
    let record = state.fold(&plan, 0, &sets, &pairs).unwrap();
    // p1 is 3 above with a spread of 2 over 64 seeds: better at the first look.
    assert_eq!(record.decided.len(), 1, "{record:?}");
    assert_eq!((record.decided[0].0, record.decided[0].1.decision), (1, Decision::Better));
    assert_eq!(record.playing, [true, false, true, true, true]);
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<FoldRecord>(&json).unwrap(), record);
    let mut again = GroupState::new(&plan, 0);
    assert_eq!(again.fold(&plan, 0, &sets, &pairs).unwrap(), record, "the same inputs, the same record");
    // Looks come in order, with every playing set at the checkpoint's count.
    assert!(matches!(state.fold(&plan, 2, &sets, &pairs), Err(state::FoldError::OutOfOrder { .. })));
    let e = state.fold(&plan, 1, &sets, &pairs).unwrap_err();
    assert_eq!(e.to_string(), "group 0: policy set p0 counted 64 seeds, not the checkpoint's 96");
}

#[test]
fn a_replay_is_checked_against_the_decision_log() {
    let truths = comparisons();
    let plan = plan("baseline = \"p0\"\nmargin = 0.5", 1024, &truths, true);
    let folds = |seed: u64| {
        let mut rng = sim::Rng::new(seed);
        let mut records = Vec::new();
        for (g, planted) in truths.iter().enumerate() {
            records.extend(sim::play_logged(&plan, g, planted, &mut rng));
        }
        records
    };
    let mut log = log::StopLog::default();
    for f in folds(11) {
        assert_eq!(log.check_or_append(&f), Ok(true), "a new fold is logged");
    }
    let json = serde_json::to_string(&log).unwrap();
    let mut resumed: log::StopLog = serde_json::from_str(&json).unwrap();
    for f in folds(11) {
        assert_eq!(resumed.check_or_append(&f), Ok(false), "the same results replay to the logged folds");
    }
    // Other results (another build, another engine): the first fold that differs is refused.
    let e = folds(12).iter().find_map(|f| resumed.check_or_append(f).err()).expect("a mismatch");
    assert_eq!((e.group, e.checkpoint, e.seeds), (0, 0, 64));
    assert!(e.to_string().contains("do not give the logged decision"), "{e}");
}

/// Plays a stopping sweep's rounds one job at a time, handing the results back in job order,
/// or in reverse, as a fleet might.
fn play_rounds(sweep: &crate::sweep::Sweep, run: &mut block::Stopping) -> anyhow::Result<()> {
    play_rounds_in(sweep, run, false)
}

fn play_rounds_in(sweep: &crate::sweep::Sweep, run: &mut block::Stopping, reverse: bool) -> anyhow::Result<()> {
    let env = simfleet::RunEnv::default();
    loop {
        let mut jobs = run.round_jobs(sweep);
        if jobs.is_empty() {
            return Ok(());
        }
        if reverse {
            jobs.reverse();
        }
        for job in &jobs {
            run.accept_result(&simfleet::run_job(job, &env))?;
        }
        run.fold_round()?;
    }
}

#[test]
fn a_resumed_run_replays_its_results_against_the_logged_decisions() {
    let text = r#"
name = "resume"
seeds = { start = 0, count = 300 }
episodes_per_job = 32
collect = "summary"

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
coordinators = ["coordinator", "coordinator", "coordinator", "coordinator"]
random = ["random", "random", "random", "random"]

[stop]
baseline = "random"
margin = 1
"#;
    let sweep = crate::sweep::Sweep::parse(text, "resume.toml").unwrap();
    let mut first = block::Stopping::new(&sweep).unwrap();
    play_rounds(&sweep, &mut first).unwrap();
    assert!(!first.log.folds.is_empty());
    let decided = first.states[0].outcome(0, Question::Baseline).unwrap().decision;
    assert_eq!(decided, Decision::Better, "coordinators beat random by far");
    let mut again = block::Stopping::resume(&sweep, first.log.clone()).unwrap();
    play_rounds_in(&sweep, &mut again, true).unwrap();
    assert_eq!(again.log, first.log, "a replay in another order adds nothing and changes nothing");
    // A race still open at the cap ends there, capped (here the only look, below 64 seeds).
    let tie = text.replace("count = 300", "count = 40").replace("baseline = \"random\"\nmargin = 1", "best = true");
    let tie = crate::sweep::Sweep::parse(
        &tie.replace("\"random\", \"random\"", "\"coordinator\", \"coordinator\""),
        "tie.toml",
    )
    .unwrap();
    let mut capped = block::Stopping::new(&tie).unwrap();
    play_rounds(&tie, &mut capped).unwrap();
    assert_eq!(capped.plan.checkpoints, [40]);
    let best: Vec<_> = (0..2).map(|s| capped.states[0].outcome(s, Question::Best).unwrap().decision).collect();
    assert_eq!(best, [Decision::Capped, Decision::Capped], "two teams of the same policies tie on every seed");
    assert!(capped.states[0].done());
    // A checkpoint waits for every seed below it.
    let mut short = block::Stopping::new(&sweep).unwrap();
    let jobs = short.round_jobs(&sweep);
    short.accept_result(&simfleet::run_job(&jobs[1], &simfleet::RunEnv::default())).unwrap();
    let e = short.fold_round().unwrap_err();
    assert_eq!(e.to_string(), "job 0 of this block has no result: a checkpoint counts every seed below it");
    // A log written from other results: the replay refuses it at that fold.
    let mut tampered = first.log.clone();
    tampered.folds[0].digest ^= 1;
    let mut refused = block::Stopping::resume(&sweep, tampered).unwrap();
    let e = play_rounds(&sweep, &mut refused).unwrap_err();
    assert!(e.to_string().starts_with("group 0, checkpoint 0 (64 seeds): the results replayed"), "{e}");
}

#[test]
fn the_savings_line_says_more_or_fewer() {
    use super::report::more_or_fewer;
    assert_eq!(more_or_fewer(1.7), "1.7x more");
    assert_eq!(more_or_fewer(1296.0 / 3504.0), "2.7x fewer", "an alternative needing fewer episodes than played");
    assert_eq!(more_or_fewer(1.02), "as many");
    assert_eq!(more_or_fewer(0.98), "as many");
    assert_eq!(more_or_fewer(0.0), "none");
}
