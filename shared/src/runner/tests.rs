//! The play loop's sinks give the results of the paths they replaced, byte for byte.

use super::*;
use crate::protocol::{PolicySet, ResultWriter, SeedRange, PROTOCOL_VERSION};

fn job_of(game: &str) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "stream-000000000000".into(),
        index: 3,
        game: game.into(),
        scenario: "default".into(),
        policy_set: PolicySet { name: "team".into(), seats: vec!["random".into(); 4] },
        seeds: SeedRange { start: 40, count: 1 },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

#[test]
fn a_result_written_while_its_job_plays_is_the_encoded_result() {
    let pinky = "pinky?miner=2&scout=1&aligner=3&scrambler=2";
    let cells: [(&str, &str, &[&str], u64); 6] = [
        ("bucket_brigade", "default", &["firefighter"; 4], 300),
        ("bucket_brigade", "default", &["random"; 4], 1),
        ("deception", "classic_5p1i", &["heuristic"; 5], 200),
        ("trolley", "trio_3p", &["persuadable"; 3], 200),
        ("cogsguard", "arena", &[pinky; 8], 2),
        ("trolley", "balanced_5p", &["utilitarian"; 5], 0),
    ];
    let env = RunEnv::default();
    for (game, scenario, seats, count) in cells {
        let job = Job {
            scenario: scenario.into(),
            policy_set: PolicySet { name: "team".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
            seeds: SeedRange { start: 40, count },
            ..job_of(game)
        };
        let whole = run_job(&job, &env);
        let mut head = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(&job));
        head.engine_version = whole.engine_version.clone();
        let mut writer = ResultWriter::new(head, count as usize);
        let streamed = play_job(&job, &env, &mut writer);
        assert!(streamed.error.is_none() && whole.error.is_none(), "{game} {scenario}");
        let elapsed = 0.125 + count as f64;
        let bytes = writer.finish(elapsed).expect("every announced record");
        assert_eq!(bytes, JobResult { elapsed_seconds: elapsed, ..whole }.encode(), "{game} {scenario}");
    }
    // Fewer records than announced: no result.
    let one = run_job(&Job { seeds: SeedRange { start: 0, count: 1 }, ..job_of("bucket_brigade") }, &env);
    let mut writer = ResultWriter::new(JobResult::empty("w", "s".into(), 0, None), 2);
    writer.record(&one.records[0]);
    assert!(writer.finish(1.0).is_none());
}

#[test]
fn a_result_with_replays_written_while_its_job_plays_is_the_encoded_result() {
    let env = RunEnv::default();
    for game in ["bucket_brigade", "deception"] {
        let seats = if game == "deception" { vec!["heuristic".to_string(); 4] } else { vec!["hero".to_string(); 4] };
        let scenario = if game == "deception" { "quick_4p1i" } else { "default" };
        let job = Job {
            replay: true,
            scenario: scenario.into(),
            policy_set: PolicySet { name: "team".into(), seats },
            seeds: SeedRange { start: 7, count: 5 },
            ..job_of(game)
        };
        let whole = run_job(&job, &env);
        assert_eq!(whole.replays.as_ref().map(Vec::len), Some(5), "{game}");
        let mut head = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(&job));
        head.engine_version = whole.engine_version.clone();
        head.replays = Some(Vec::new());
        let mut writer = ResultWriter::new(head, 5);
        assert!(play_job(&job, &env, &mut writer).error.is_none());
        let bytes = writer.finish(2.5).expect("every announced record");
        assert_eq!(bytes, JobResult { elapsed_seconds: 2.5, ..whole }.encode(), "{game}");
    }
}

#[test]
fn a_summary_job_is_the_aggregate_of_the_records_job() {
    let env = RunEnv::default();
    let job = Job {
        policy_set: PolicySet { name: "team".into(), seats: vec!["firefighter".into(); 4] },
        seeds: SeedRange { start: 3, count: 120 },
        ..job_of("bucket_brigade")
    };
    let records = run_job(&job, &env);
    let summary = run_job(&Job { collect: Collect::Summary, ..job.clone() }, &env);
    let want = crate::aggregate::CellAggregate::of_records(&GameKind::BucketBrigade.info().buckets, &records.records);
    assert_eq!(summary.summary.as_deref(), Some(&want));
    assert!(summary.records.is_empty() && summary.replays.is_none());
    // A job that cannot be played fails the same way in both modes.
    let bad = Job { scenario: "default?num_agents=99".into(), ..job };
    let (r, s) = (run_job(&bad, &env), run_job(&Job { collect: Collect::Summary, ..bad.clone() }, &env));
    assert_eq!(r.error, s.error);
    assert!(r.error.is_some() && s.summary.is_none());
}

/// A summary job with paired sets, for every game: each set's aggregate is that of the job of
/// that set alone, and each difference is the moments of the per-seed differences of the sets'
/// records (the records of records jobs), counted in seed order: the same bits.
#[test]
fn a_paired_summary_job_is_its_sets_summaries_and_their_records_differences() {
    use crate::aggregate::{differences, SeedValue};
    let pinky = "pinky?miner=2&scout=1&aligner=3&scrambler=2";
    let groups: [(&str, &str, &[&[&str]], u64); 4] = [
        ("bucket_brigade", "default", &[&["firefighter"; 4], &["random"; 4], &["hero"; 4]], 60),
        ("deception", "classic_5p1i", &[&["heuristic"; 5], &["random"; 5]], 40),
        ("trolley", "trio_3p", &[&["persuadable"; 3], &["utilitarian"; 3], &["contrarian"; 3]], 40),
        ("cogsguard", "arena", &[&[pinky; 8], &["random"; 8]], 2),
    ];
    let env = RunEnv::default();
    for (game, scenario, sets, count) in groups {
        let sets: Vec<PolicySet> = sets
            .iter()
            .enumerate()
            .map(|(i, seats)| PolicySet {
                name: format!("set{i}"),
                seats: seats.iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        let job = Job {
            protocol_version: 2,
            scenario: scenario.into(),
            policy_set: sets[0].clone(),
            paired: sets[1..].to_vec(),
            seeds: SeedRange { start: 11, count },
            collect: Collect::Summary,
            ..job_of(game)
        };
        let mut shown = vec![0u64; sets.len()];
        let paired = run_summary_job(&job, &env, &mut |k, _| shown[k] += 1);
        assert!(paired.error.is_none(), "{game}: {:?}", paired.error);
        assert_eq!(shown, vec![count; sets.len()], "{game}: each set's records shown once");
        assert_eq!(paired.episodes(), count * sets.len() as u64);
        let kind: GameKind = game.parse().unwrap();
        let win = kind.info().win_outcome;
        let mut values = Vec::new();
        for (k, set) in sets.iter().enumerate() {
            let one = Job { policy_set: set.clone(), paired: Vec::new(), protocol_version: 1, ..job.clone() };
            let alone = run_job(&one, &env);
            let got = if k == 0 {
                paired.summary.as_deref()
            } else {
                paired.paired.as_ref().map(|p| &p.cells[k - 1].summary)
            };
            assert_eq!(got, alone.summary.as_deref(), "{game} set {k}: the aggregate of the set alone");
            let records = run_job(&Job { collect: Collect::Records, ..one }, &env).records;
            values.push(
                records
                    .iter()
                    .map(|r| SeedValue {
                        seed: r.seed,
                        team_reward: r.team_reward,
                        win: Some(r.outcome.as_str()) == win,
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let p = paired.paired.as_deref().expect("the paired part");
        assert_eq!(p.differences, differences(&values, win.is_some()), "{game}: the records' differences");
        assert_eq!(p.differences.len(), sets.len() * (sets.len() - 1) / 2);
        assert_eq!(
            p.cells.iter().map(|c| c.policy_set.as_str()).collect::<Vec<_>>(),
            ["set1", "set2"][..sets.len() - 1]
        );
        // The wire: round-trips, and the hand-written encoder writes what serde writes.
        assert_eq!(paired.encode(), rmp_serde::to_vec_named(&paired).unwrap(), "{game}");
        assert_eq!(crate::protocol::decode::<JobResult>(&paired.encode()).unwrap(), paired);
        assert_eq!(paired.protocol_version, 2, "answered in the job's version");
    }
}

#[test]
fn a_paired_job_fails_naming_the_set_that_failed() {
    let env = RunEnv::default();
    let job = Job {
        protocol_version: 2,
        policy_set: PolicySet { name: "ok".into(), seats: vec!["hero".into(); 4] },
        paired: vec![PolicySet { name: "short".into(), seats: vec!["hero".into(); 3] }],
        seeds: SeedRange { start: 0, count: 5 },
        collect: Collect::Summary,
        ..job_of("bucket_brigade")
    };
    let r = run_summary_job(&job, &env, &mut |_, _| {});
    let e = r.error.expect("a set of three seats on a four-seat scenario fails");
    assert!(e.message.starts_with("policy set \"short\": "), "{e}");
    assert!(r.summary.is_none() && r.paired.is_none());
    // A version-1 worker refuses a paired job rather than play its first set only.
    assert_eq!(crate::protocol::check_version(job.required_version()), Ok(()));
    assert_eq!(job.required_version(), 2);
    assert_eq!(Job { paired: Vec::new(), ..job }.required_version(), 1);
}
