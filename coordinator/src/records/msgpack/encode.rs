//! A row as MessagePack, written field by field.

use crate::records::row::RowRef;

/// Appends `row` as the named-field MessagePack map `rmp_serde` writes for a [`RowRef`] (its
/// fields in declaration order), field by field: a row is ~390 bytes, and going through a
/// serializer, with typed stats behind `erased_serde`, cost about a tenth of `coordinator run`'s
/// time. `tests::encode_msgpack_is_rmp_serdes` compares the bytes.
pub(super) fn write_msgpack(row: &RowRef<'_>, out: &mut Vec<u8>) {
    use simfleet::msgpack as mp;
    let RowRef {
        sweep,
        job,
        game,
        engine_version,
        scenario,
        policy_set,
        seed,
        outcome,
        length,
        truncated,
        team_reward,
        agent_rewards,
        trajectory_hash,
        stats,
    } = *row;
    mp::map_len(out, 14);
    mp::str(out, "sweep");
    mp::str(out, sweep);
    mp::str(out, "job");
    mp::uint(out, job);
    mp::str(out, "game");
    mp::str(out, game);
    mp::str(out, "engine_version");
    mp::str(out, engine_version);
    mp::str(out, "scenario");
    mp::str(out, scenario);
    mp::str(out, "policy_set");
    mp::str(out, policy_set);
    mp::str(out, "seed");
    mp::uint(out, seed);
    mp::str(out, "outcome");
    mp::str(out, outcome);
    mp::str(out, "length");
    mp::uint(out, u64::from(length));
    mp::str(out, "truncated");
    mp::bool(out, truncated);
    mp::str(out, "team_reward");
    mp::f64(out, team_reward);
    mp::str(out, "agent_rewards");
    mp::array_len(out, agent_rewards.len());
    for &r in agent_rewards {
        mp::f64(out, r);
    }
    mp::str(out, "trajectory_hash");
    mp::str(out, trajectory_hash);
    mp::str(out, "stats");
    stats.write_msgpack(out);
}

#[cfg(test)]
mod tests {
    use crate::records::encoder::tests::result;
    use crate::records::row::RowRef;

    #[test]
    fn encode_msgpack_is_rmp_serdes() {
        let results = [
            result("bucket_brigade", "default", &["hero", "liar", "random", "firefighter"], 0),
            result("deception", "quick_4p1i", &["heuristic"; 4], 40),
            result("cogsguard", "arena", &["pinky"; 8], 80),
            result("trolley", "balanced_5p", &["persuadable"; 5], 120),
        ];
        let mut typed = 0;
        for r in &results {
            for rec in &r.records {
                typed += usize::from(rec.stats.as_typed().is_some());
                // The record as it is (typed stats where the game types them), and as a map.
                let as_map = simfleet::protocol::Stats::from(rec.stats.as_map().clone());
                for stats in [&rec.stats, &as_map] {
                    let row = RowRef { stats, ..RowRef::new(r, rec) };
                    let mut want = Vec::new();
                    let mut ser = rmp_serde::Serializer::new(&mut want).with_struct_map();
                    serde::Serialize::serialize(&row, &mut ser).unwrap();
                    let mut got = Vec::new();
                    super::write_msgpack(&row, &mut got);
                    assert_eq!(got, want, "{} seed {}", r.game, rec.seed);
                }
            }
        }
        assert!(typed >= 120, "the typed stats path is exercised ({typed} typed records)");
    }
}
