//! §8 and §11: the episode loop's fallbacks, the record's fields and stats, and the replay.

use serde_json::Value;

use super::*;
use crate::games::deception::policies::SeatPolicy;
use crate::games::deception::record::STAT_KEYS;
use crate::games::Game;

#[test]
fn stats_keys_follow_the_spec_order() {
    let mut g = prepare("crowded_8p2i", &all("heuristic", 8)).unwrap();
    for seed in 0..20 {
        let r = g.play(seed, false).record;
        assert_eq!(r.stats.as_map().keys().map(String::as_str).collect::<Vec<_>>(), STAT_KEYS);
        assert_eq!(Deception::INFO.stat_keys, STAT_KEYS);
        let s = r.stats.as_map();
        let ejections = s["ejections"].as_array().unwrap();
        let (ce, ie, ne) = (
            s["crewmates_ejected"].as_u64().unwrap(),
            s["imposters_ejected"].as_u64().unwrap(),
            s["no_ejection_ticks"].as_u64().unwrap(),
        );
        assert_eq!(ce + ie, ejections.len() as u64);
        assert_eq!(ce + ie + ne, u64::from(r.length), "one vote per tick");
        assert_eq!(s["imposter_survival"].as_f64().unwrap(), (2 - ie) as f64 / 2.0);
        let roles: Vec<&str> = s["roles"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(roles.iter().filter(|r| **r == "imposter").count(), 2);
        for (seat, reward) in r.agent_rewards.iter().enumerate() {
            let sign = if roles[seat] == "crewmate" { 1.0 } else { -1.0 };
            assert_eq!(*reward, sign * r.team_reward);
        }
        let expected_team = match r.outcome.as_str() {
            "crewmates" => 1.0,
            "imposters" => -1.0,
            _ => 0.0,
        };
        assert_eq!(r.team_reward, expected_team);
        assert_eq!(r.truncated, s["reason"] == "timeout");
        assert_eq!(s["invalid_actions"], serde_json::json!([0, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(s["invalid_by_kind"], serde_json::json!({}));
        assert_eq!(s["llm"], serde_json::json!({}));
        let last = &ejections.last();
        if r.outcome == "crewmates" {
            assert_eq!(last.unwrap()["role"], "imposter");
        }
    }
}

#[test]
fn timeout_records_are_truncated() {
    let idle = all("random?propose=1&abstain=1", 4);
    for (scenario, outcome, team) in
        [("quick_4p1i?max_ticks=2", "imposters", -1.0), ("quick_4p1i?max_ticks=2&timeout_winner=none", "none", 0.0)]
    {
        let mut g = prepare(scenario, &idle).unwrap();
        let r = g.play(3, false).record;
        assert_eq!((r.outcome.as_str(), r.length, r.truncated, r.team_reward), (outcome, 2, true, team));
        let s = r.stats.as_map();
        assert_eq!(s["reason"], "timeout");
        assert_eq!(s["vote_accuracy"], Value::Null, "no crewmate voted");
        assert_eq!(
            (s["no_ejection_ticks"].as_u64(), s["votes_proposed"].as_u64(), s["discussion_turns"].as_u64()),
            (Some(2), Some(2), Some(2))
        );
        assert_eq!(s["imposter_survival"], 1.0);
        let roles = s["roles"].as_array().unwrap();
        for (seat, reward) in r.agent_rewards.iter().enumerate() {
            let expected = if roles[seat] == "imposter" { -team } else { team };
            assert_eq!(*reward, expected);
        }
    }
}

#[test]
fn vote_accuracy_counts_crewmate_votes_for_imposters() {
    let mut g = prepare("classic_5p1i", &all("random", 5)).unwrap();
    for seed in 0..30 {
        let r = g.play(seed, false).record;
        let st = g.last_state();
        let (mut cast, mut hits) = (0, 0);
        for v in &st.votes {
            for b in v.votes.iter() {
                if let (Role::Crewmate, Some(t)) = (st.agents[b.voter.index()].role, b.target) {
                    cast += 1;
                    hits += usize::from(st.agents[t.index()].role == Role::Imposter);
                }
            }
        }
        let expected = if cast == 0 { Value::Null } else { Value::from(hits as f64 / cast as f64) };
        assert_eq!(r.stats.as_map()["vote_accuracy"], expected, "seed {seed}");
    }
}

#[test]
fn invalid_actions_are_counted_and_replaced() {
    // Seat 0 always tries to vote for itself: wrong_phase in discussion, self_target in votes.
    let bad = ActionKind::Vote { target: id(0) };
    for (scenario, expect_vote) in [
        ("classic_5p1i", "abstain"),
        ("classic_5p1i?allow_abstain=false", "vote"),
        ("classic_5p1i?invalid_action_fallback=random", "any"),
    ] {
        let mut g = prepare(scenario, &all("heuristic", 5)).unwrap();
        g.set_seat(0, SeatPolicy::Puppet(bad.clone()));
        let ep = g.play(11, true);
        let s = ep.record.stats.as_map();
        let invalid = s["invalid_actions"].as_array().unwrap();
        let total = invalid[0].as_u64().unwrap();
        assert!(total > 0 && invalid[1..].iter().all(|v| v == 0), "{scenario}: {invalid:?}");
        let by_kind = s["invalid_by_kind"].as_object().unwrap();
        assert_eq!(by_kind.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), total);
        assert!(by_kind.keys().all(|k| k == "wrong_phase" || k == "self_target"));
        let replay: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
        let mut substitutes = 0;
        for step in replay["steps"].as_array().unwrap() {
            for a in step["actions"].as_array().unwrap() {
                if a["agent"] == "agent_0" {
                    assert_eq!(a["fallback"], true);
                    substitutes += 1;
                    let phase_voting = step["phase"] == "voting";
                    assert_eq!(a["violation"], if phase_voting { "self_target" } else { "wrong_phase" });
                    let name = a["action"].as_str().unwrap();
                    match (phase_voting, expect_vote) {
                        (false, "any") => {}
                        (false, _) => assert_eq!(name, "pass"),
                        (true, "any") => assert!(name == "vote" || name == "abstain"),
                        (true, want) => assert_eq!(name, want),
                    }
                } else {
                    assert_eq!((a["fallback"].as_bool(), a["violation"].is_null()), (Some(false), true));
                }
            }
        }
        assert_eq!(substitutes, total);
    }
}

#[test]
fn replay_has_the_common_fields_and_the_same_record() {
    let mut g =
        prepare("tiebreak_6p1i", &["heuristic", "random", "heuristic", "random", "heuristic", "random"]).unwrap();
    let plain = g.play(u64::MAX, false);
    assert!(plain.replay.is_none());
    let with = g.play(u64::MAX, true);
    assert_eq!(with.record, plain.record);
    let r: Value = serde_json::from_str(with.replay.as_deref().unwrap()).unwrap();
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["rules_version", "game", "seed", "scenario", "policies", "record", "roles", "steps", "llm_calls"]
    );
    assert_eq!((r["rules_version"].as_str(), r["game"].as_str()), (Some("deception-rules-1"), Some("deception")));
    assert_eq!(r["seed"], u64::MAX.to_string());
    assert_eq!(r["scenario"]["tie_policy"], "random");
    assert_eq!(r["scenario"]["allow_abstain"], false);
    assert_eq!(r["policies"][1], "random");
    assert_eq!(r["record"], serde_json::to_value(&plain.record).unwrap());
    assert_eq!(r["roles"].as_array().unwrap().len(), 6);
    let steps = r["steps"].as_array().unwrap();
    let last = steps.last().unwrap()["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "game_over");
    assert_eq!(last["winner"], plain.record.outcome.as_str());
    // Event numbers run over the whole episode.
    let seqs: Vec<u64> =
        steps.iter().flat_map(|s| s["events"].as_array().unwrap().iter().map(|e| e["seq"].as_u64().unwrap())).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
}
