//! §10: the episode record and the replay JSON, exactly.

use serde_json::Value;

use super::*;
use crate::games::bucket_brigade::{record, replay};
use crate::games::Game;
use crate::protocol::EpisodeRecord;

/// The worked example of §6.3 as the policy loop would log it.
fn worked_example_logs(sc: &Scenario) -> (Town, Vec<NightLog>) {
    let mut t = Town::new(4, town("....B....."));
    let mut n1 = NightDraws::QUIET;
    n1.extinguish[4] = 0.7;
    n1.ignite[7] = 0.01;
    let mut n2 = NightDraws::QUIET;
    n2.extinguish[7] = 0.3;
    let nights = [
        (n1, modes("WWRR"), acts(&[(4, 'W'), (4, 'R'), (2, 'R'), (3, 'R')])),
        (n2, modes("RRRW"), acts(&[(0, 'R'), (1, 'R'), (7, 'W'), (7, 'W')])),
        (NightDraws::QUIET, modes("RRRR"), acts(&[(0, 'R'), (1, 'R'), (2, 'R'), (3, 'R')])),
    ];
    let mut logs = Vec::new();
    for (d, s, a) in nights {
        let report = t.step(sc, &d, &s, &a).unwrap();
        let mut log =
            NightLog { signals: [Mode::Rest; MAX_AGENTS], actions: [Action::new(0, Mode::Rest); MAX_AGENTS], report };
        log.signals[..4].copy_from_slice(&s);
        log.actions[..4].copy_from_slice(&a);
        logs.push(log);
    }
    (t, logs)
}

#[test]
fn worked_example_replay_is_exactly_the_spec_shape() {
    let sc = scenario("default?min_nights=2");
    let (t, logs) = worked_example_logs(&sc);
    let rec = record::build(7, &sc, &t);
    let policies: Vec<String> = ["hero", "liar", "random", "heuristic?work_tendency=0.9"].map(String::from).to_vec();
    let json = replay::render(7, &sc, &policies, t.initial(), &logs, &rec);
    let expected = concat!(
        r#"{"rules_version":"bucket_brigade-rules-1","game":"bucket_brigade","seed":"7","#,
        r#""scenario":{"name":"default","num_agents":4,"prob_fire_spreads_to_neighbor":0.25,"#,
        r#""prob_solo_agent_extinguishes_fire":0.5,"prob_house_catches_fire":0.02,"#,
        r#""team_reward_house_survives":100.0,"team_penalty_house_burns":100.0,"cost_to_work_one_night":0.5,"#,
        r#""min_nights":2,"reward_own_house_survives":20.0,"reward_other_house_survives":0.0,"#,
        r#""penalty_own_house_burns":40.0,"penalty_other_house_burns":0.0,"reward_rest":0.5,"#,
        r#""team_share_gamma":1.0,"alpha_own":1.0,"reward_model":"seed","spread_before_burnout":false},"#,
        r#""policies":["hero","liar","random","heuristic?work_tendency=0.9"],"#,
        r#""initial_houses":[0,0,0,0,1,0,0,0,0,0],"nights":["#,
        r#"{"night":1,"houses_before":[0,0,0,0,1,0,0,0,0,0],"signals":[1,1,0,0],"actions":[[4,1],[4,0],[2,0],[3,0]],"#,
        r#""lies":[false,true,false,false],"houses_after":[0,0,0,0,2,0,0,1,0,0],"rewards":[-0.5,0.5,0.5,-0.5]},"#,
        r#"{"night":2,"houses_before":[0,0,0,0,2,0,0,1,0,0],"signals":[0,0,0,1],"actions":[[0,0],[1,0],[7,1],[7,1]],"#,
        r#""lies":[false,false,true,false],"houses_after":[0,0,0,0,2,0,0,0,0,0],"rewards":[0.5,0.5,-0.5,0.5]},"#,
        r#"{"night":3,"houses_before":[0,0,0,0,2,0,0,0,0,0],"signals":[0,0,0,0],"actions":[[0,0],[1,0],[2,0],[3,0]],"#,
        r#""lies":[false,false,false,false],"houses_after":[0,0,0,0,2,0,0,0,0,0],"rewards":[80.5,140.5,120.5,120.5]}],"#,
        r#""record":{"seed":7,"outcome":"success","length":3,"truncated":false,"team_reward":78.5,"#,
        r#""agent_rewards":[80.5,141.5,120.5,120.5],"trajectory_hash":"HASH","#,
        r#""stats":{"termination_reason":"no_fires","houses_saved":9,"houses_ruined":1,"#,
        r#""agent_work_nights":[1,0,1,1],"agent_lies":[0,1,1,0]}}}"#,
    )
    .replace("HASH", &t.hash().hex());
    assert_eq!(json, expected);
}

#[test]
fn played_replays_carry_the_record_and_the_resolved_scenario() {
    let team = ["firefighter", "random", "liar", "heuristic:0.9,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "hero"];
    let mut g = game("hard?num_agents=5&reward_model=reference&spread_before_burnout=true", &team);
    for seed in [0, 1, u64::MAX] {
        let ep = g.play(seed, true);
        let plain = g.play(seed, false);
        assert_eq!(ep.record, plain.record, "a replay does not change the record");
        assert!(plain.replay.is_none());
        let v: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["rules_version", "game", "seed", "scenario", "policies", "initial_houses", "nights", "record"]
        );
        assert_eq!(v["seed"], Value::String(seed.to_string()));
        let sc: Vec<&str> = v["scenario"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(sc[0], "name");
        assert_eq!(&sc[1..], FIELDS);
        assert_eq!(v["scenario"]["name"], "hard");
        assert_eq!(v["scenario"]["num_agents"], 5);
        assert_eq!(v["scenario"]["reward_model"], "reference");
        assert_eq!(v["scenario"]["spread_before_burnout"], true);
        assert_eq!(v["scenario"]["prob_house_catches_fire"], 0.05);
        assert_eq!(v["policies"], serde_json::json!(team));
        let back: EpisodeRecord = serde_json::from_value(v["record"].clone()).unwrap();
        assert_eq!(back, ep.record);
        let nights = v["nights"].as_array().unwrap();
        assert_eq!(nights.len(), ep.record.length as usize);
        let keys: Vec<&str> = nights[0].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["night", "houses_before", "signals", "actions", "lies", "houses_after", "rewards"]);
    }
}

#[test]
fn record_fields_follow_the_spec() {
    let mut g = game("default", &["random"; 4]);
    let rec = g.play(42, false).record;
    let keys: Vec<&str> = rec.stats.as_map().keys().map(String::as_str).collect();
    assert_eq!(keys, STAT_KEYS);
    assert_eq!(BucketBrigade::INFO.stat_keys, STAT_KEYS);
    assert_eq!(rec.trajectory_hash.len(), 16);
    assert!(rec.trajectory_hash.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(outcome(7), "success");
    assert_eq!(outcome(6), "failure");
    assert_eq!(outcome(10), "success");
}

#[test]
fn game_info_lists_everything_coordinator_list_prints() {
    let info = &BucketBrigade::INFO;
    assert_eq!(info.rules_version, RULES_VERSION);
    assert_eq!(info.win_outcome, Some("success"));
    assert_eq!(info.outcomes, ["success", "failure"]);
    assert_eq!(info.scenarios.len(), 15);
    assert_eq!(info.scenarios[0].name, "default");
    for e in info.scenarios {
        assert!(Scenario::named(e.name).is_some(), "{}", e.name);
        assert!(!e.about.is_empty());
    }
    let names: Vec<&str> = info.policies.iter().map(|e| e.name).collect();
    assert_eq!(names, ["random", "heuristic", "archetype", "firefighter", "free_rider", "hero", "coordinator", "liar"]);
    assert_eq!(info.buckets.team_reward.len(), 16);
    assert_eq!(info.buckets.length, [11.0, 13.0, 14.0, 15.0, 16.0, 18.0, 21.0, 25.0, 30.0, 40.0, 60.0, 100.0]);
    assert_eq!(info.buckets.agent_reward.len(), 14);
    for b in [info.buckets.team_reward, info.buckets.length, info.buckets.agent_reward] {
        assert!(b.windows(2).all(|w| w[0] < w[1]), "buckets ascend");
    }
    assert_eq!(BucketBrigade::default_episodes_per_job(&crate::spec::Spec::parse("default").unwrap()), 1000);
}
