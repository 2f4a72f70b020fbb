//! The field tables of docs/protocol.md (and the sweep entry of docs/topology.md) are the wire
//! format: each names exactly the fields a value serialises, and says "optional" of exactly the
//! fields a reader accepts missing.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use simfleet::aggregate::CellAggregate;
use simfleet::names::{SweepEntry, SweepStatus};
use simfleet::protocol::{
    Collect, EpisodeRecord, Job, JobEnvelope, JobError, JobErrorKind, JobResult, PolicySet, SeedRange, StatsMap,
};

use super::session::repo;

/// The first-column names of the first `| field |` table after `heading`, and those whose row
/// says "optional".
fn table(doc: &str, heading: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(repo().join(doc)).unwrap();
    let start = text.lines().position(|l| l.trim() == heading).unwrap_or_else(|| panic!("{doc} has no {heading:?}"));
    let mut lines = text.lines().skip(start + 1).skip_while(|l| !l.starts_with("| field |")).skip(2);
    let (mut all, mut optional) = (BTreeSet::new(), BTreeSet::new());
    for line in lines.by_ref().take_while(|l| l.starts_with('|')) {
        let first = line.trim_start_matches('|').split('|').next().unwrap_or("");
        for name in first.split('`').skip(1).step_by(2) {
            all.insert(name.to_string());
            if line.contains("optional") {
                optional.insert(name.to_string());
            }
        }
    }
    assert!(!all.is_empty(), "{doc}: no field table after {heading:?}");
    (all, optional)
}

/// The field names `value` serialises, and those a reader accepts missing.
fn fields<T: Serialize + DeserializeOwned>(value: &T) -> (BTreeSet<String>, BTreeSet<String>) {
    let Value::Object(map) = serde_json::to_value(value).unwrap() else { panic!("a struct") };
    let optional = map
        .keys()
        .filter(|k| {
            let mut without = map.clone();
            without.remove(*k);
            serde_json::from_value::<T>(Value::Object(without)).is_ok()
        })
        .cloned()
        .collect();
    (map.keys().cloned().collect(), optional)
}

fn check<T: Serialize + DeserializeOwned>(doc: &str, heading: &str, value: &T, wrong: &mut Vec<String>) {
    let (stated, stated_optional) = table(doc, heading);
    let (actual, actual_optional) = fields(value);
    if stated != actual {
        wrong.push(format!("{doc} {heading}: the table names {stated:?}, the type has {actual:?}"));
    }
    if stated_optional != actual_optional {
        wrong.push(format!(
            "{doc} {heading}: optional per the table {stated_optional:?}, per the type {actual_optional:?}"
        ));
    }
}

#[test]
fn protocol_tables_name_every_field_on_the_wire() {
    let job = Job {
        protocol_version: 1,
        sweep: "s-000000000000".into(),
        index: 3,
        game: "bucket_brigade".into(),
        scenario: "default".into(),
        policy_set: PolicySet { name: "p".into(), seats: vec!["hero".into(); 4] },
        seeds: SeedRange { start: 0, count: 2 },
        replay: false,
        collect: Collect::Summary,
        paired: Vec::new(),
    };
    let record = EpisodeRecord {
        seed: 0,
        outcome: "success".into(),
        length: 13,
        truncated: false,
        team_reward: 1.0,
        agent_rewards: vec![1.0; 4],
        trajectory_hash: "0123456789abcdef".into(),
        stats: StatsMap::new().into(),
    };
    let error = JobError::invalid("scenario.num_agents", 11, "must be within 4..=10");
    let result = JobResult {
        protocol_version: 1,
        sweep: job.sweep.clone(),
        index: 3,
        worker: "w".into(),
        engine_version: "0.1.0+bucket_brigade-rules-1".into(),
        game: job.game.clone(),
        scenario: job.scenario.clone(),
        policy_set: "p".into(),
        elapsed_seconds: 0.1,
        replays: None,
        records: vec![record.clone()],
        summary: Some(Box::new(CellAggregate::of_records(
            &simfleet::GameKind::BucketBrigade.info().buckets,
            [&record],
        ))),
        error: None,
        paired: None,
    };
    let entry = SweepEntry {
        id: job.sweep.clone(),
        name: "s".into(),
        status: SweepStatus::Submitted,
        priority: simfleet::names::Priority::High,
        share: 2,
        jobs_total: 1,
        episodes_total: 2,
        jobs_done: 0,
        jobs_failed: 0,
        episodes_played: Some(0),
        definition: String::new(),
        collect: Some(Collect::Summary),
        published: Some(simfleet::names::PublishRecord::default()),
        llm_max_calls: Some(500),
    };
    let envelope = JobEnvelope { protocol_version: 1, sweep: job.sweep.clone(), index: 3 };
    let mut wrong = Vec::new();
    check("docs/protocol.md", "## Job", &job, &mut wrong);
    check("docs/protocol.md", "### JobEnvelope", &envelope, &mut wrong);
    check("docs/protocol.md", "## JobResult", &result, &mut wrong);
    check("docs/protocol.md", "## EpisodeRecord", &record, &mut wrong);
    check("docs/protocol.md", "## JobError", &error, &mut wrong);
    check("docs/topology.md", "### The sweep entry", &entry, &mut wrong);
    let aggregate = result.summary.clone().expect("a summary");
    check("docs/protocol.md", "## CellAggregate", &aggregate, &mut wrong);
    check("docs/protocol.md", "### Moments", &aggregate.team_reward, &mut wrong);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_error_kinds_table_lists_every_kind() {
    let text = std::fs::read_to_string(repo().join("docs/protocol.md")).unwrap();
    let stated: BTreeSet<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("| kind | when |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('`').nth(1))
        .collect();
    let actual: BTreeSet<&str> = JobErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(stated, actual, "docs/protocol.md's table of error kinds");
}
