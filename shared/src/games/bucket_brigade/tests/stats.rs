//! Typed stats (`stats.rs`) serialize to the same bytes as the JSON object they stand for, and
//! the result encoder's hand-written MessagePack equals serde's.

use crate::games::bucket_brigade::record::STAT_KEYS;
use crate::protocol::encode;
use crate::stats::Stats;
use crate::Game;

use super::*;

/// MessagePack (serde's and the hand-written one) and JSON of the typed stats equal those of
/// the map they read as.
fn assert_same_bytes(stats: &Stats) {
    let typed = stats.as_typed().expect("typed stats");
    crate::stats::assert_numbers_like_map(typed);
    let map = stats.as_map().clone();
    assert_eq!(map.keys().map(String::as_str).collect::<Vec<_>>(), STAT_KEYS);
    let mut by_hand = Vec::new();
    typed.write_msgpack(&mut by_hand);
    assert_eq!(by_hand, encode(&map), "MessagePack of {map:?}");
    assert_eq!(encode(stats), encode(&map), "MessagePack of {map:?}");
    assert_eq!(serde_json::to_string(stats).unwrap(), serde_json::to_string(&map).unwrap());
    let back: Stats = crate::protocol::decode(&by_hand).unwrap();
    assert!(back.as_typed().is_none(), "decoded stats are a map");
    assert_eq!(&back, stats);
}

#[test]
fn played_episodes_serialize_like_their_maps() {
    let teams: [(&str, &[&str]); 5] = [
        ("default", &["random"; 4]),
        ("default", &["firefighter"; 4]),
        ("default?num_agents=10&min_nights=30", &["liar"; 10]),
        ("default?num_agents=6", &["free_rider", "hero", "coordinator", "liar", "random", "firefighter"]),
        ("default?num_agents=5&min_nights=2", &["hero"; 5]),
    ];
    for (sc, team) in teams {
        let mut g = game(sc, team);
        for seed in 0..200 {
            assert_same_bytes(&g.play(seed, false).record.stats);
        }
    }
}

#[test]
fn extreme_counts_serialize_like_their_maps() {
    use crate::games::bucket_brigade::stats::{BucketBrigadeStats, Counts};
    for n in [0, 1, 4, 10] {
        let stats = Stats::typed(BucketBrigadeStats {
            termination_reason: "max_nights",
            houses_saved: 10,
            houses_ruined: 0,
            agent_work_nights: Counts::new(&[0, 127, 128, 255, 256, 65_535, 65_536, u32::MAX, 7, 1][..n]),
            agent_lies: Counts::new(&vec![u32::MAX; n]),
        });
        assert_same_bytes(&stats);
    }
}
