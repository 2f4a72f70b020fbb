use serde::Serialize;

use super::*;

fn sample_job() -> Job {
    Job {
        protocol_version: 1,
        sweep: "demo-0123456789ab".into(),
        index: 7,
        game: "bucket_brigade".into(),
        scenario: "default?num_agents=5".into(),
        policy_set: PolicySet { name: "mixed".into(), seats: vec!["hero".into(); 5] },
        seeds: SeedRange { start: 100, count: 250 },
        replay: false,
        collect: Collect::Records,
        paired: Vec::new(),
    }
}

fn sample_record() -> EpisodeRecord {
    let mut stats = StatsMap::new();
    stats.insert("termination_reason".into(), "no_fires".into());
    stats.insert("agent_lies".into(), serde_json::json!([0, 1, 2, 3]));
    stats.insert("vote_accuracy".into(), serde_json::Value::Null);
    stats.insert("mean".into(), serde_json::json!(0.25));
    EpisodeRecord {
        seed: u64::MAX - 3,
        outcome: "success".into(),
        length: 13,
        truncated: false,
        team_reward: -12.5,
        agent_rewards: vec![1.0, -0.5, 1e300, 0.1],
        trajectory_hash: "0123456789abcdef".into(),
        stats: stats.into(),
    }
}

#[test]
fn job_round_trips() {
    let job = sample_job();
    let back: Job = decode(&encode(&job)).unwrap();
    assert_eq!(back, job);
    let env: JobEnvelope = decode(&encode(&job)).unwrap();
    assert_eq!((env.protocol_version, env.sweep.as_str(), env.index), (1, "demo-0123456789ab", 7));
    // A job with paired sets is version 2 and round-trips with them.
    let paired = Job {
        protocol_version: 2,
        collect: Collect::Summary,
        paired: vec![PolicySet { name: "other".into(), seats: vec!["random".into(); 5] }],
        ..job
    };
    assert_eq!(paired.required_version(), 2);
    assert_eq!(decode::<Job>(&encode(&paired)).unwrap(), paired);
    assert_eq!(paired.policy_sets().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["mixed", "other"]);
}

#[test]
fn versions_one_and_two_are_spoken_and_a_result_answers_in_its_jobs() {
    assert_eq!((MIN_PROTOCOL_VERSION, PROTOCOL_VERSION), (1, 2));
    for v in [1, 2] {
        assert_eq!(check_version(v), Ok(()));
        let job = Job { protocol_version: v, ..sample_job() };
        assert_eq!(JobResult::empty("w", "s".into(), 0, Some(&job)).protocol_version, v);
    }
    for v in [0, 3] {
        let e = check_version(v).unwrap_err();
        assert_eq!((e.kind, e.value.as_deref()), (JobErrorKind::UnsupportedVersion, Some(v.to_string().as_str())));
        let job = Job { protocol_version: v, ..sample_job() };
        assert_eq!(JobResult::empty("w", "s".into(), 0, Some(&job)).protocol_version, PROTOCOL_VERSION);
    }
}

#[test]
fn result_round_trips_with_records_and_errors() {
    let mut res = JobResult {
        protocol_version: PROTOCOL_VERSION,
        sweep: "s-000000000000".into(),
        index: 1,
        worker: "w1".into(),
        engine_version: "0.1.0+bucket_brigade-rules-1".into(),
        game: "bucket_brigade".into(),
        scenario: "default".into(),
        policy_set: "p".into(),
        elapsed_seconds: 0.5,
        replays: Some(vec!["{}".into()]),
        records: vec![sample_record(), sample_record()],
        summary: None,
        error: None,
        paired: None,
    };
    let back: JobResult = decode(&res.encode()).unwrap();
    assert_eq!(back, res);
    res.records.clear();
    res.error = Some(JobError::invalid("scenario.num_agents", 11, "must be within 4..=10"));
    let back: JobResult = decode(&res.encode()).unwrap();
    assert_eq!(back, res);
    assert_eq!(back.error.unwrap().to_string(), "invalid scenario.num_agents = 11: must be within 4..=10");
}

/// Typed stats of no game: a struct with the shapes games use.
#[derive(Debug, Serialize)]
struct Figures {
    rounds: Vec<(u32, Option<&'static str>)>,
    rate: Option<f64>,
    by_seat: std::collections::BTreeMap<String, u32>,
}

impl crate::stats::TypedStats for Figures {
    fn to_map(&self) -> StatsMap {
        crate::stats::map_of(self)
    }

    fn write_msgpack(&self, out: &mut Vec<u8>) {
        crate::stats::write_msgpack_of(self, out);
    }
}

#[test]
fn a_result_encodes_field_by_field_to_the_derives_bytes() {
    let typed = Figures {
        rounds: vec![(1, Some("save_minority")), (2, None)],
        rate: Some(0.5),
        by_seat: [("2".to_string(), 7), ("10".to_string(), 0)].into(),
    };
    let mut with_typed = sample_record();
    with_typed.stats = Stats::typed(typed);
    let mut res = JobResult {
        protocol_version: PROTOCOL_VERSION,
        sweep: "s-000000000000".into(),
        index: u64::MAX,
        worker: "w1".into(),
        engine_version: "0.1.0+trolley-rules-1".into(),
        game: "trolley".into(),
        scenario: "balanced_5p".into(),
        policy_set: "p".into(),
        elapsed_seconds: 0.25,
        replays: Some(vec!["{}".into()]),
        records: vec![sample_record(), with_typed, sample_record()],
        summary: None,
        error: None,
        paired: None,
    };
    // `rmp_serde` on the derive (typed stats through `erased_serde`) is the reference.
    assert_eq!(res.encode(), rmp_serde::to_vec_named(&res).unwrap());
    let back: JobResult = decode(&res.encode()).unwrap();
    assert_eq!(back, res);
    res.records.clear();
    res.replays = None;
    res.error = Some(JobError::new(JobErrorKind::EnginePanic, "boom"));
    assert_eq!(res.encode(), rmp_serde::to_vec_named(&res).unwrap());
}

#[test]
fn records_mode_jobs_and_results_are_what_older_peers_read_and_write() {
    // A records job and a records result write no `collect` and no `summary` key: their
    // bytes are those of the protocol before summaries existed.
    let keys = |bytes: &[u8]| -> Vec<String> {
        let v: serde_json::Value = rmp_serde::from_slice(bytes).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    };
    let job = sample_job();
    assert!(!keys(&encode(&job)).contains(&"collect".to_string()));
    let mut result = JobResult::empty("w", job.sweep.clone(), 7, Some(&job));
    result.records = vec![sample_record()];
    assert_eq!(keys(&result.encode()).len(), 12, "the twelve fields of version 1");
    // And what an older coordinator sends, without those keys, reads as records mode.
    let mut old: serde_json::Map<String, serde_json::Value> =
        serde_json::from_value(serde_json::to_value(&job).unwrap()).unwrap();
    old.remove("collect");
    let back: Job = decode(&rmp_serde::to_vec_named(&old).unwrap()).unwrap();
    assert_eq!(back.collect, Collect::Records);
    let summary = Job { collect: Collect::Summary, ..job };
    assert_eq!(decode::<Job>(&encode(&summary)).unwrap().collect, Collect::Summary);
}

#[test]
fn record_encoding_is_stable() {
    // Same value, same bytes: the determinism contract is stated on encoded records.
    assert_eq!(encode(&sample_record()), encode(&sample_record()));
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for bytes in [&b""[..], b"\xff\xff", b"hello world", &[0x81, 0xa1, b'x', 0xc0]] {
        assert!(decode::<Job>(bytes).is_err());
    }
}

#[test]
fn error_kinds_are_snake_case_on_the_wire() {
    for kind in JobErrorKind::ALL {
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.as_str()));
    }
}

/// Typed stats with many top-level keys (a map16 header).
#[derive(Debug, Serialize)]
struct Wide(StatsMap);

impl crate::stats::TypedStats for Wide {
    fn to_map(&self) -> StatsMap {
        self.0.clone()
    }

    fn write_msgpack(&self, out: &mut Vec<u8>) {
        crate::stats::write_msgpack_of(&self.0, out);
    }
}

#[test]
fn added_stats_grow_a_map16_header_in_place() {
    let wide: StatsMap = (0..20).map(|i| (format!("s{i}"), serde_json::json!(i))).collect();
    let mut typed = Stats::typed(Wide(wide.clone()));
    let mut map = Stats::from(wide);
    typed.add("outside", serde_json::json!({"0": {"illegal": 1}}));
    map.add("outside", serde_json::json!({"0": {"illegal": 1}}));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    typed.write_msgpack(&mut a);
    map.write_msgpack(&mut b);
    assert_eq!(a[..3], [0xde, 0, 21]);
    assert_eq!(a, b);
}

#[test]
fn added_stats_keep_typed_stats_typed_and_write_the_maps_bytes() {
    const KEYS: [&str; 14] =
        ["outside", "modules", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13"];
    let figures = || Figures { rounds: vec![(1, None)], rate: Some(0.25), by_seat: [("0".to_string(), 3)].into() };
    // Three own keys: 13 added cross from a fixmap to a map16 header.
    for n in [1, 2, 12, 13, 14] {
        let mut typed = Stats::typed(figures());
        let mut map = Stats::from(typed.as_map().clone());
        for (i, key) in KEYS[..n].iter().enumerate() {
            let value = if i % 2 == 0 { serde_json::json!({"0": {"decisions": i}}) } else { serde_json::json!(i) };
            typed.add(key, value.clone());
            map.add(key, value);
        }
        typed.add("outside", serde_json::json!("again"));
        map.add("outside", serde_json::json!("again"));
        assert!(typed.as_typed().is_some(), "still typed");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        typed.write_msgpack(&mut a);
        map.write_msgpack(&mut b);
        assert_eq!(a, b, "{n} added");
        let numbers = |s: &Stats| {
            let mut v = Vec::new();
            s.for_each_number(|k, x| v.push((k.to_string(), x)));
            v
        };
        assert_eq!(numbers(&typed), numbers(&map), "{n} added");
        assert_eq!(typed.added("outside"), Some(&serde_json::json!("again")));
        assert_eq!(typed.added("rate"), None, "an own stat is not an added one");
        assert_eq!(serde_json::to_string(&typed).unwrap(), serde_json::to_string(&map).unwrap());
        assert_eq!(typed, map);
    }
}
