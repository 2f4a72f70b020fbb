//! Typed stats (`stats.rs`) serialize to the same bytes as the JSON object they stand for.

use crate::games::trolley::error::TrolleyError;
use crate::games::trolley::seats::SeatSet;
use crate::games::trolley::stats::{ByKind, PerAgent, RoundStat, TrolleyStats};
use crate::llm::{LlmBySeat, LlmStats};
use crate::protocol::encode;
use crate::stats::Stats;

use super::*;

/// MessagePack (serde's and the result encoder's) and JSON of the typed stats equal those of
/// the map they read as.
fn assert_same_bytes(stats: &Stats) {
    let typed = stats.as_typed().expect("typed stats");
    crate::stats::assert_numbers_like_map(typed);
    let map = stats.as_map().clone();
    let mut written = Vec::new();
    typed.write_msgpack(&mut written);
    assert_eq!(written, encode(&map), "MessagePack of {map:?}");
    assert_eq!(encode(stats), encode(&map), "MessagePack of {map:?}");
    assert_eq!(serde_json::to_string(stats).unwrap(), serde_json::to_string(&map).unwrap());
    let back: Stats = crate::protocol::decode(&encode(stats)).unwrap();
    assert!(back.as_typed().is_none(), "decoded stats are a map");
    assert_eq!(&back, stats);
}

#[test]
fn played_episodes_serialize_like_their_maps() {
    for (scenario, n) in [("balanced_5p", 5), ("trio_3p", 3), ("large_10p", 10), ("balanced_5p?max_rounds=2", 5)] {
        for policy in ["persuadable", "random", "utilitarian", "contrarian"] {
            let mut g = prepare(scenario, &team(policy, n)).unwrap();
            for seed in 0..50 {
                assert_same_bytes(&g.play(seed, false).record.stats);
            }
        }
    }
}

#[test]
fn every_field_kind_serializes_like_its_map() {
    let seats = |s: &[usize]| s.iter().copied().collect::<SeatSet>();
    let mut by_kind = [0; 19];
    by_kind[0] = 2;
    by_kind[7] = 1;
    let llm = LlmStats { calls: 3, prompt_tokens: 900, completion_tokens: 31, ..LlmStats::default() };
    let typed = TrolleyStats {
        rounds: vec![
            RoundStat {
                number: 1,
                operator: 2,
                majority: seats(&[0, 1, 3]),
                minority: seats(&[4]),
                decision: Some("save_minority"),
                fallback: true,
                args_majority: [3, 0, 1],
                args_minority: [1, 1, 0],
            },
            RoundStat {
                number: 300,
                operator: 15,
                majority: seats(&[]),
                minority: seats(&[14]),
                decision: None,
                fallback: false,
                args_majority: [0; 3],
                args_minority: [70_000, 0, 0],
            },
        ],
        save_majority_rate: Some(1.0 / 3.0),
        minority_saved: 1,
        rounds_as_operator: PerAgent::from_fn(16, |s| s as u32 * 1000),
        rounds_as_majority: PerAgent::from_fn(0, |_| 1),
        rounds_as_minority: PerAgent::from_fn(3, |_| 0),
        times_saved: PerAgent::from_fn(5, |s| s as u32),
        saved_in_minority: PerAgent::from_fn(5, |_| u32::MAX),
        invalid_actions: PerAgent::from_fn(5, |s| (s == 2) as u32),
        invalid_by_kind: ByKind(by_kind),
        llm: LlmBySeat(vec![(2, llm), (11, LlmStats::default())]),
    };
    let stats = Stats::typed(typed.clone());
    assert_same_bytes(&stats);
    assert_eq!(stats.as_map()["invalid_by_kind"].as_object().unwrap().len(), 2);
    assert!(stats.as_map()["invalid_by_kind"].get(TrolleyError::KINDS[7]).is_some());
    assert_eq!(stats.as_map()["llm"]["2"]["calls"], 3);
    // Not finite: `null` in the map, so not a number a summary counts (never played: no bytes to
    // compare, as the map cannot hold it).
    crate::stats::assert_numbers_like_map(&TrolleyStats { save_majority_rate: Some(f64::NAN), ..typed.clone() });
    let none = TrolleyStats { save_majority_rate: None, llm: LlmBySeat::default(), ..typed };
    assert_same_bytes(&Stats::typed(none));
}

#[test]
fn mutating_typed_stats_turns_them_into_a_map() {
    let mut g = prepare("balanced_5p", &team("persuadable", 5)).unwrap();
    let mut stats = g.play(3, false).record.stats;
    let before = stats.as_map().clone();
    stats.as_map_mut().remove("llm");
    assert!(stats.as_typed().is_none());
    assert_eq!(stats.as_map().len(), before.len() - 1);
}
