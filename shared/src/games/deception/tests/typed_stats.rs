//! Typed stats (`stats.rs`) serialize to the same bytes as the JSON object they stand for.

use crate::games::deception::agent::AgentId;
use crate::games::deception::stats::{AgentName, ByKind, DeceptionStats, Ejection, Names};
use crate::games::Game;
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
    let back: Stats = crate::protocol::decode(&written).unwrap();
    assert!(back.as_typed().is_none(), "decoded stats are a map");
    assert_eq!(&back, stats);
}

#[test]
fn played_episodes_serialize_like_their_maps() {
    for (scenario, n) in [("classic_5p1i", 5), ("crowded_8p2i", 8), ("classic_5p1i?max_ticks=2", 5)] {
        for policy in ["heuristic", "random", "random?propose=0.5&abstain=0.5"] {
            let mut g = prepare(scenario, &all(policy, n)).unwrap();
            for seed in 0..100 {
                assert_same_bytes(&g.play(seed, false).record.stats);
            }
        }
    }
}

#[test]
fn every_field_kind_serializes_like_its_map() {
    let mut by_kind = [0; 12];
    by_kind[0] = 3;
    by_kind[11] = u64::MAX;
    let typed = DeceptionStats {
        reason: "timeout",
        roles: Names::from_fn(10, |s| if s % 3 == 0 { "imposter" } else { "crewmate" }),
        ejections: vec![
            Ejection { tick: 0, agent: AgentName(AgentId::seat(9)), role: "crewmate", votes: 70_000 },
            Ejection { tick: u32::MAX, agent: AgentName(AgentId::UNKNOWN), role: "imposter", votes: 0 },
            Ejection { tick: 1, agent: AgentName(AgentId::seat(0)), role: "crewmate", votes: 128 },
            Ejection { tick: 2, agent: AgentName(AgentId::seat(10)), role: "imposter", votes: 1 },
            Ejection { tick: 3, agent: AgentName(AgentId(u32::MAX - 1)), role: "imposter", votes: 65_536 },
        ],
        crewmates_ejected: 1,
        imposters_ejected: 1 << 40,
        no_ejection_ticks: 0,
        vote_accuracy: None,
        imposter_survival: Some(1.0 / 3.0),
        discussion_turns: 300,
        votes_proposed: 2,
        invalid_actions: vec![0, 5, u64::MAX],
        invalid_by_kind: ByKind(by_kind),
        llm: LlmBySeat(vec![
            (2, LlmStats { decisions: 3, prompt_tokens: 1_200, completion_tokens: 45, ..LlmStats::default() }),
            (11, LlmStats { completion_tokens: 7, ..LlmStats::default() }),
        ]),
    };
    assert_same_bytes(&Stats::typed(typed.clone()));
    assert_same_bytes(&Stats::typed(DeceptionStats {
        vote_accuracy: Some(1.0),
        imposter_survival: None,
        ..typed.clone()
    }));
    // Not finite: `null` in the map, so not a number a summary counts (never played: no bytes to
    // compare, as the map cannot hold it).
    for v in [f64::NAN, f64::INFINITY] {
        let odd = DeceptionStats { vote_accuracy: Some(v), imposter_survival: Some(-v), ..typed.clone() };
        crate::stats::assert_numbers_like_map(&odd);
    }
}
