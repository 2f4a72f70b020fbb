//! Whole episodes: records, the statistical targets, replays, buffers (determinism is in
//! `determinism`).

use serde_json::Value;

use super::*;
use crate::games::trolley::record::{OUTCOMES, STAT_KEYS};
use crate::seeding::{fnv64, Fnv64};

#[test]
fn records_have_the_spec_fields_and_stats_in_order() {
    let mut g = prepare("balanced_5p", &team("persuadable", 5)).unwrap();
    let ep = g.play(7, false);
    let r = &ep.record;
    assert_eq!(r.stats.as_map().keys().map(String::as_str).collect::<Vec<_>>(), STAT_KEYS);
    assert_eq!((r.length, r.truncated, r.seed), (5, false, 7));
    assert!(OUTCOMES.contains(&r.outcome.as_str()));
    assert_eq!(r.team_reward, r.agent_rewards.iter().sum::<f64>());
    assert_eq!(r.trajectory_hash.len(), 16);
    let rounds = r.stats.as_map()["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5);
    let first = &rounds[0];
    for key in ["number", "operator", "majority", "minority", "decision", "fallback", "args_majority", "args_minority"]
    {
        assert!(first.get(key).is_some(), "{key}");
    }
    assert_eq!(first["args_majority"].as_array().unwrap().len(), 3);
    assert_eq!(r.stats.as_map()["rounds_as_operator"], serde_json::json!([1, 1, 1, 1, 1]));
    assert_eq!(r.stats.as_map()["invalid_actions"], serde_json::json!([0, 0, 0, 0, 0]));
    assert_eq!(r.stats.as_map()["invalid_by_kind"], serde_json::json!({}));
    assert_eq!(r.stats.as_map()["llm"], serde_json::json!({}));
    let saved = r.stats.as_map()["times_saved"].as_array().unwrap();
    assert!(saved.iter().zip(&r.agent_rewards).all(|(a, b)| a.as_f64() == Some(*b)));
    let minority_saved = r.stats.as_map()["minority_saved"].as_u64().unwrap();
    let rate = r.stats.as_map()["save_majority_rate"].as_f64().unwrap();
    assert_eq!(rate, (5 - minority_saved) as f64 / 5.0);
}

#[test]
fn trajectory_hash_covers_roles_and_actions_as_listed() {
    // Everyone skips (skip = 1), contrarian operators see equal weights and save the minority.
    let mut g = prepare("trio_3p", &team("contrarian?skip=1", 3)).unwrap();
    let ep = g.play(11, false);
    let s = g.state();
    let mut h = Fnv64::new();
    for r in s.rounds() {
        h.u32(r.number);
        h.u8(r.operator);
        h.u8(r.minority.len() as u8);
        r.minority.iter().for_each(|x| h.u8(x as u8));
        for phase in 1..=3u8 {
            for seat in r.sides().iter() {
                h.u8(phase);
                h.u8(seat as u8);
                h.u8(1);
            }
        }
        h.u8(4);
        h.u8(r.operator);
        h.u8(3);
    }
    assert_eq!(ep.record.trajectory_hash, h.hex());
    assert_eq!(ep.record.outcome, "minority_favoured");
    assert_eq!(ep.record.stats.as_map()["minority_saved"], 3);
}

#[test]
fn argument_texts_are_hashed_by_length_and_fnv() {
    let mut g = prepare("trio_3p", &team("utilitarian?skip=0", 3)).unwrap();
    let ep = g.play(2, false);
    let s = g.state();
    let mut h = Fnv64::new();
    for (i, r) in s.rounds().iter().enumerate() {
        h.u32(r.number);
        h.u8(r.operator);
        h.u8(1);
        h.u8(r.minority.iter().next().unwrap() as u8);
        for a in s.round_arguments(i) {
            h.u8(a.phase.hash_code());
            h.u8(a.agent);
            h.u8(0);
            h.u32(a.text.as_str().len() as u32);
            h.u64(fnv64(a.text.as_str().as_bytes()));
        }
        h.u8(4);
        h.u8(r.operator);
        h.u8(2);
    }
    assert_eq!(ep.record.trajectory_hash, h.hex());
    assert_eq!(ep.record.outcome, "majority_favoured");
}

#[test]
fn utilitarian_everywhere_saves_the_majority_over_10000_episodes() {
    let mut g = prepare("balanced_5p", &team("utilitarian", 5)).unwrap();
    for seed in 0..10_000 {
        let r = g.play_record(seed, false).0;
        assert_eq!(r.stats.as_map()["save_majority_rate"], 1.0);
        assert_eq!(r.stats.as_map()["rounds_as_majority"], r.stats.as_map()["times_saved"]);
        assert_eq!(r.team_reward, 15.0);
    }
}

#[test]
fn random_operators_save_the_majority_half_the_time() {
    let mut g = prepare("balanced_5p", &team("random", 5)).unwrap();
    let (mut maj, mut rounds) = (0u64, 0u64);
    for seed in 0..10_000 {
        let r = g.play_record(seed, false).0;
        rounds += u64::from(r.length);
        maj += u64::from(r.length) - r.stats.as_map()["minority_saved"].as_u64().unwrap();
    }
    let rate = maj as f64 / rounds as f64;
    assert!((rate - 0.5).abs() <= 0.01, "rate {rate}");
}

#[test]
fn truncated_games_are_flagged() {
    let mut g = prepare("balanced_6p?max_rounds=4", &team("persuadable", 6)).unwrap();
    let r = g.play(1, false).record;
    assert_eq!((r.length, r.truncated), (4, true));
}

#[test]
fn playing_does_not_grow_buffers() {
    // skip = 0: every episode has the most arguments a balanced_5p game can have.
    let mut g = prepare("balanced_5p", &team("persuadable?skip=0", 5)).unwrap();
    g.play_record(0, false);
    let warm = g.capacities();
    for seed in 1..200 {
        g.play_record(seed, false);
        assert_eq!(g.capacities(), warm, "seed {seed}");
    }
}

#[test]
fn actions_and_arguments_stay_a_few_words() {
    // Both are moved several times a step; a text is a 16-byte handle so that they stay small
    // (with the text inline they were 48 and 64 bytes, and the loop ran about 7% slower).
    assert_eq!(std::mem::size_of::<ArgText>(), 16);
    assert!(std::mem::size_of::<TrolleyAction>() <= 16);
    assert!(std::mem::size_of::<Argument>() <= 32);
}

#[test]
fn replay_has_the_common_fields_and_every_round() {
    let mut g = prepare("balanced_5p?default_decision=save_minority", &team("persuadable", 5)).unwrap();
    let ep = g.play(5, true);
    let replay: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
    assert_eq!(replay["rules_version"], "trolley-rules-1");
    assert_eq!(replay["game"], "trolley");
    assert_eq!(replay["seed"], "5");
    assert_eq!(
        replay["scenario"],
        serde_json::json!({"name": "balanced_5p", "num_agents": 5, "minority_size": "balanced", "max_rounds": 20, "default_decision": "save_minority"})
    );
    assert_eq!(replay["policies"], serde_json::json!(vec!["persuadable"; 5]));
    assert_eq!(replay["record"], serde_json::to_value(&ep.record).unwrap());
    let rounds = replay["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5);
    for r in rounds {
        let actions = r["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 3 * 4 + 1);
        let last = actions.last().unwrap();
        assert_eq!(last["action"], "decide");
        assert_eq!(last["fallback"], false);
        assert!(last["reasoning"].as_str().unwrap().starts_with("persuadable"));
        let events: Vec<_> = r["events"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(events[0], "round_started");
        assert!(events.contains(&"round_resolved"));
    }
    let setup: Vec<_> = replay["events"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(setup.first(), Some(&"game_created"));
    assert_eq!(setup.last(), Some(&"game_started"));
    let last_events = rounds[4]["events"].as_array().unwrap();
    assert_eq!(last_events.last().unwrap()["type"], "game_completed");
}

#[test]
fn prepare_validates_scenarios_in_table_order() {
    let err = |s: &str, n: usize| {
        let e = prepare(s, &team("random", n)).unwrap_err();
        (e.field.unwrap_or_default(), e.value.unwrap_or_default())
    };
    assert_eq!(err("nope", 5), ("scenario".into(), "nope".into()));
    assert_eq!(err("balanced_5p?players=4", 5), ("scenario.players".into(), "4".into()));
    assert_eq!(err("balanced_5p?num_agents=17", 17), ("scenario.num_agents".into(), "17".into()));
    assert_eq!(err("balanced_5p?num_agents=2", 2), ("scenario.num_agents".into(), "2".into()));
    // num_agents is checked before minority_size.
    assert_eq!(err("balanced_5p?minority_size=2&num_agents=x", 5), ("scenario.num_agents".into(), "x".into()));
    assert_eq!(err("balanced_5p?minority_size=2", 5), ("scenario.minority_size".into(), "2".into()));
    assert_eq!(err("trio_3p?minority_size=0", 3), ("scenario.minority_size".into(), "0".into()));
    assert_eq!(err("balanced_5p?max_rounds=0", 5), ("scenario.max_rounds".into(), "0".into()));
    assert_eq!(
        err("balanced_5p?default_decision=save_all", 5),
        ("scenario.default_decision".into(), "save_all".into())
    );
    assert_eq!(err("balanced_5p", 4), ("scenario.num_agents".into(), "5".into()));
    assert_eq!(err("balanced_5p?max_rounds=0&default_decision=x", 5).0, "scenario.max_rounds");
    let ok = |s: &str, n: usize| prepare(s, &team("random", n)).unwrap().scenario().clone();
    let c = ok("classic_7p_5v1", 7);
    assert_eq!((c.num_agents, c.minority(), c.max_rounds), (7, 1, 28));
    let c = ok("classic_7p_5v1?num_agents=9", 9);
    assert_eq!((c.minority(), c.max_rounds), (1, 36));
    assert_eq!(ok("large_10p", 10).minority(), 4);
    assert_eq!(ok("balanced_6p?minority_size=1", 6).minority(), 1);
    assert_eq!(ok("trio_3p?minority_size=1", 3).minority(), 1);
    assert_eq!(ok("balanced_5p?num_agents=12&minority_size=balanced", 12).minority(), 5);
}

#[test]
fn info_lists_the_spec_names() {
    let info = &Trolley::INFO;
    assert_eq!(info.scenarios[0].name, "balanced_5p");
    assert_eq!(info.scenarios.len(), 5);
    assert_eq!(info.outcomes, &["majority_favoured", "minority_favoured", "even"]);
    assert_eq!(info.win_outcome, None);
    assert_eq!(info.stat_keys, &STAT_KEYS);
    assert_eq!(info.buckets.length.last(), Some(&64.0));
    let per_job = |s: &str| Trolley::default_episodes_per_job(&Spec::parse(s).unwrap());
    assert_eq!((per_job("balanced_5p"), per_job("large_10p"), per_job("trio_3p")), (1000, 250, 2777));
    assert_eq!(per_job("nonsense"), 1000);
    for e in info.scenarios {
        let n = Scenario::from_spec(&Spec::parse(e.name).unwrap()).unwrap().num_agents;
        assert!(prepare(e.name, &team("random", usize::from(n))).is_ok());
    }
}
