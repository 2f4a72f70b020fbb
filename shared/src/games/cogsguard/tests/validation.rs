//! Scenario and policy-spec validation (§2, §13.3): typed errors naming the field and value.

use crate::games::cogsguard::scenario::{metric_label, Scenario};
use crate::games::cogsguard::Cogsguard;
use crate::games::Game;
use crate::protocol::JobErrorKind;
use crate::spec::Spec;
use crate::RunEnv;

fn err(scenario: &str, team: &[&str]) -> (String, String, String) {
    let sc = Spec::parse(scenario).unwrap();
    let team: Vec<Spec> = team.iter().map(|s| Spec::parse(s).unwrap()).collect();
    let e = Cogsguard::prepare(&sc, &team, &RunEnv::default()).unwrap_err();
    assert_eq!(e.kind, JobErrorKind::InvalidJob);
    (e.field.unwrap_or_default(), e.value.unwrap_or_default(), e.message)
}

#[test]
fn bad_scenarios_name_the_field_and_value() {
    let n8 = ["noop"; 8];
    for (sc, field, value) in [
        ("dungeon", "scenario", "dungeon"),
        ("arena?colour=red", "scenario.colour", "red"),
        ("arena?num_agents=0", "scenario.num_agents", "0"),
        ("arena?num_agents=21", "scenario.num_agents", "21"),
        ("arena?max_steps=0", "scenario.max_steps", "0"),
        ("arena?max_steps=100001", "scenario.max_steps", "100001"),
        ("arena?clips=maybe", "scenario.clips", "maybe"),
        ("arena?coverage_permille=201", "scenario.coverage_permille", "201"),
        ("arena?rows=29", "scenario.rows", "29"),
        ("machina?cols=abc", "scenario.cols", "abc"),
        ("arena?map=tiny_3p", "scenario.map", "tiny_3p"),
        ("ascii", "scenario.map", ""),
        ("ascii?map=huge", "scenario.map", "huge"),
        ("ascii?map=tiny_3p&num_agents=3", "scenario.num_agents", "3"),
        ("ascii?map=tiny_3p&rows=40", "scenario.rows", "40"),
        ("ascii?map_text=%23%23/%23", "scenario.map_text", "##/#"),
    ] {
        let (f, v, _) = err(sc, &n8);
        assert_eq!((f.as_str(), v.as_str()), (field, value), "{sc}");
    }
}

#[test]
fn bad_policies_name_the_seat_and_param() {
    let mut team = vec!["noop"; 8];
    team[3] = "pinky?miner=2&hats=1";
    assert_eq!(err("arena", &team).0, "policy_set[3].hats");
    team[3] = "pinky?timeout=0";
    assert_eq!(err("arena", &team).0, "policy_set[3].timeout");
    team[3] = "pinky?review=-1";
    assert_eq!(err("arena", &team).0, "policy_set[3].review");
    team[3] = "random?x=1";
    assert_eq!(err("arena", &team).0, "policy_set[3].x");
    team[3] = "greedy";
    assert_eq!(err("arena", &team).0, "policy_set[3]");
    assert_eq!(err("arena", &["noop"; 7]).0, "policy_set");
    assert_eq!(err("ascii?map=tiny_3p", &["noop"; 8]).1, "8");
}

#[test]
fn overrides_beat_headers_which_beat_defaults() {
    let s = |t: &str| Scenario::parse(&Spec::parse(t).unwrap()).unwrap();
    assert_eq!(s("ascii?map=tiny_3p").max_steps, 300);
    assert_eq!(s("ascii?map=tiny_3p&max_steps=50").max_steps, 50);
    assert_eq!((s("arena").max_steps, s("machina").max_steps, s("arena").num_agents), (1000, 10_000, 8));
    assert!(!s("ascii?map_text=%3Bclips%3Doff/@").clips);
    assert!(s("ascii?map_text=%3Bclips%3Doff/@&clips=true").clips);
    let j = s("arena?num_agents=4").to_json();
    assert_eq!(j["name"], "arena");
    assert_eq!(j["num_agents"], 4);
    assert_eq!(j["rows"], 40);
}

#[test]
fn metric_labels_hash_map_text() {
    assert_eq!(metric_label("arena?max_steps=10"), "arena?max_steps=10");
    let fnv = format!("{:016x}", crate::seeding::fnv64(b"@"));
    assert_eq!(metric_label("ascii?map_text=@&max_steps=5"), format!("ascii?map_text#{}&max_steps=5", &fnv[..8]));
}

#[test]
fn info_lists_scenarios_policies_and_stats_in_spec_order() {
    let info = &Cogsguard::INFO;
    assert_eq!(info.scenarios[0].name, "arena");
    assert_eq!(info.policies.iter().map(|p| p.name).collect::<Vec<_>>(), ["noop", "random", "pinky"]);
    assert_eq!(info.stat_keys.first(), Some(&"num_junctions"));
    assert_eq!(info.stat_keys.last(), Some(&"mode_occupancy"));
    assert_eq!(info.win_outcome, Some("cogs_ahead"));
    assert_eq!(info.outcomes, ["cogs_ahead", "clips_ahead", "tie"]);
    let d = |s: &str| Cogsguard::default_episodes_per_job(&Spec::parse(s).unwrap());
    assert_eq!((d("arena"), d("machina"), d("ascii?map=tiny_3p")), (20, 2, 50));
}
