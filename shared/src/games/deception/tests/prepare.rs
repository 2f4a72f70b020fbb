//! §2 and §10: scenario strings, named scenarios and policy specs, and their `invalid_job`s.

use std::sync::Arc;

use super::*;
use crate::games::deception::scenario::{EjectRule, InvalidActionFallback, TiePolicy, TimeoutWinner};
use crate::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};
use crate::protocol::JobErrorKind;

fn err(scenario: &str, team: &[&str]) -> (String, String) {
    let e = prepare(scenario, team).unwrap_err();
    assert_eq!(e.kind, JobErrorKind::InvalidJob, "{e}");
    (e.field.clone().unwrap_or_default(), e.value.clone().unwrap_or_default())
}

#[test]
fn named_scenarios_match_the_table() {
    let row = |s: &str| {
        let c = cfg(s);
        (
            c.num_agents,
            c.num_imposters,
            c.max_ticks,
            c.discussion_rounds_per_tick,
            c.eject_rule,
            c.tie_policy,
            c.timeout_winner,
            c.allow_abstain,
        )
    };
    use EjectRule::*;
    use TiePolicy::*;
    assert_eq!(row("classic_5p1i"), (5, 1, 20, 2, Plurality, NoEject, TimeoutWinner::Imposters, true));
    assert_eq!(row("quick_4p1i"), (4, 1, 6, 1, Plurality, NoEject, TimeoutWinner::Imposters, true));
    assert_eq!(row("crowded_8p2i"), (8, 2, 20, 2, Plurality, NoEject, TimeoutWinner::Imposters, true));
    assert_eq!(row("strict_majority_7p2i"), (7, 2, 20, 2, AbsoluteMajority, NoEject, TimeoutWinner::Imposters, true));
    assert_eq!(row("tiebreak_6p1i"), (6, 1, 12, 2, Plurality, Random, TimeoutWinner::None, false));
    assert_eq!(Deception::INFO.scenarios[0].name, "classic_5p1i", "the first is the default");
    for e in Deception::INFO.scenarios {
        assert!(ScenarioConfig::named(e.name).is_some());
        validate_scenario(&ScenarioConfig::named(e.name).unwrap()).unwrap();
    }
    let c = cfg("classic_5p1i?max_ticks=8&tie_policy=random&invalid_action_fallback=random&allow_abstain=false");
    assert_eq!(
        (c.max_ticks, c.tie_policy, c.invalid_action_fallback, c.allow_abstain),
        (8, Random, InvalidActionFallback::Random, false)
    );
    assert_eq!(c.name, "classic_5p1i");
}

#[test]
fn scenario_errors_name_the_field_and_value() {
    let five = all("random", 5);
    assert_eq!(err("nope", &five), ("scenario".into(), "nope".into()));
    assert_eq!(err("classic_5p1i?colour=red", &five), ("scenario.colour".into(), "red".into()));
    assert_eq!(err("classic_5p1i?num_agents=11", &five), ("scenario.num_agents".into(), "11".into()));
    assert_eq!(err("classic_5p1i?num_agents=3", &five), ("scenario.num_agents".into(), "3".into()));
    assert_eq!(err("classic_5p1i?num_agents=-1", &five), ("scenario.num_agents".into(), "-1".into()));
    assert_eq!(err("classic_5p1i?num_imposters=0", &five), ("scenario.num_imposters".into(), "0".into()));
    // 2M < N: 2 imposters of 4 are not strictly outnumbered; the default M fails for N = 4? No: 2·1 < 4.
    assert_eq!(err("quick_4p1i?num_imposters=2", &all("random", 4)), ("scenario.num_imposters".into(), "2".into()));
    // The inherited M is checked against an overridden N, and named with its resolved value.
    assert_eq!(err("crowded_8p2i?num_agents=4", &all("random", 4)), ("scenario.num_imposters".into(), "2".into()));
    assert_eq!(err("classic_5p1i?max_ticks=0", &five), ("scenario.max_ticks".into(), "0".into()));
    assert_eq!(err("classic_5p1i?max_ticks=201", &five), ("scenario.max_ticks".into(), "201".into()));
    assert_eq!(err("classic_5p1i?max_ticks=2.5", &five), ("scenario.max_ticks".into(), "2.5".into()));
    assert_eq!(err("classic_5p1i?discussion_rounds_per_tick=11", &five).0, "scenario.discussion_rounds_per_tick");
    assert_eq!(err("classic_5p1i?eject_rule=majority", &five).0, "scenario.eject_rule");
    assert_eq!(err("classic_5p1i?tie_policy=coin", &five).0, "scenario.tie_policy");
    assert_eq!(err("classic_5p1i?timeout_winner=crewmates", &five).0, "scenario.timeout_winner");
    assert_eq!(err("classic_5p1i?allow_abstain=yes", &five).0, "scenario.allow_abstain");
    assert_eq!(err("classic_5p1i?invalid_action_fallback=skip", &five).0, "scenario.invalid_action_fallback");
    // The first failure in table order wins, whatever order the string is written in.
    assert_eq!(err("classic_5p1i?allow_abstain=maybe&max_ticks=0", &five).0, "scenario.max_ticks");
    // A repeated field (as a Spec built directly; the grammar already refuses it in strings).
    let spec = Spec {
        name: "classic_5p1i".into(),
        arg: None,
        params: vec![("max_ticks".into(), "3".into()), ("max_ticks".into(), "4".into())],
    };
    let e = Deception::prepare(&spec, &[], &RunEnv::default()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("scenario.max_ticks"));
    // The team must have num_agents seats.
    assert_eq!(err("classic_5p1i", &all("random", 4)), ("policy_set".into(), "4".into()));
}

#[test]
fn policy_errors_name_the_seat_and_parameter() {
    let team = |bad: &str| {
        let mut t = all("heuristic", 5);
        t[2] = bad;
        err("classic_5p1i", &t)
    };
    assert_eq!(team("greedy"), ("policy_set[2]".into(), "greedy".into()));
    assert_eq!(team("random?propose=2"), ("policy_set[2].propose".into(), "2".into()));
    assert_eq!(team("random?abstain=x"), ("policy_set[2].abstain".into(), "x".into()));
    assert_eq!(team("random?aggression=0.5"), ("policy_set[2].aggression".into(), "0.5".into()));
    assert_eq!(team("heuristic?aggression=1.5"), ("policy_set[2].aggression".into(), "1.5".into()));
    assert_eq!(
        team("heuristic?suspicion_from_accusation=0"),
        ("policy_set[2].suspicion_from_accusation".into(), "0".into())
    );
    assert_eq!(team("heuristic:3").0, "policy_set[2]");
    // llm: required parameters, ranges, the fallback, and the transport.
    assert_eq!(team("llm?endpoint=http://x/v1").0, "policy_set[2].model");
    assert_eq!(team("llm?model=m").0, "policy_set[2].endpoint");
    assert_eq!(team("llm?model=m&endpoint=http://x/v1&max_retries=6").0, "policy_set[2].max_retries");
    assert_eq!(team("llm?model=m&endpoint=http://x/v1&temperature=2.5").0, "policy_set[2].temperature");
    assert_eq!(team("llm?model=m&endpoint=http://x/v1&timeout_s=0").0, "policy_set[2].timeout_s");
    assert_eq!(team("llm?model=m&endpoint=http://x/v1&fallback=llm").0, "policy_set[2].fallback");
    assert_eq!(
        team("llm?model=m&endpoint=http://x/v1&fallback=heuristic%3Faggression%3D9").0,
        "policy_set[2].fallback"
    );
    assert_eq!(
        team("llm?model=m&endpoint=http://x/v1"),
        ("policy_set[2]".into(), "llm?model=m".into()),
        "no transport"
    );
    // With a transport the same seat prepares, with a %-escaped scripted fallback.
    struct Never;
    impl ChatTransport for Never {
        fn complete(&self, _: &ChatRequest) -> Result<ChatResponse, TransportError> {
            Err(TransportError::Timeout)
        }
    }
    let env = RunEnv { chat: Some(Arc::new(Never)), worker: String::new(), agents: None };
    let mut t: Vec<Spec> = all("heuristic", 5).iter().map(|s| Spec::parse(s).unwrap()).collect();
    t[2] = Spec::parse("llm?model=m&endpoint=http://x/v1&fallback=heuristic%3Faggression%3D0.7").unwrap();
    Deception::prepare(&Spec::parse("classic_5p1i").unwrap(), &t, &env).unwrap();
}

#[test]
fn info_lists_what_the_spec_names() {
    let i = &Deception::INFO;
    assert_eq!(i.rules_version, "deception-rules-1");
    assert_eq!(i.win_outcome, Some("crewmates"));
    assert_eq!(i.outcomes, ["crewmates", "imposters", "none"]);
    assert_eq!(i.policies.iter().map(|p| p.name).collect::<Vec<_>>(), ["random", "heuristic", "llm"]);
    assert_eq!(i.buckets.length, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0, 50.0, 100.0, 200.0]);
    assert_eq!(i.buckets.team_reward, [-1.0, 0.0, 1.0]);
    assert_eq!(i.buckets.agent_reward, [-1.0, 0.0, 1.0]);
    assert_eq!(Deception::default_episodes_per_job(&Spec::parse("classic_5p1i").unwrap()), 2000);
}
