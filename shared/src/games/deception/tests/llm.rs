//! §10.3 for deception: the answer mapping, re-prompts, the fallback after the cap and the
//! stats in the record; end to end over real HTTP when the `llm-http` feature is on.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::*;
use crate::games::deception::policies::llm::answer;
use crate::games::Game;
use crate::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};

/// Answers from a script (then `pass`-like garbage) and records each request.
struct Script {
    answers: Mutex<Vec<Result<String, TransportError>>>,
    seen: Mutex<Vec<ChatRequest>>,
}

impl Script {
    fn new(answers: &[Result<&str, TransportError>]) -> Arc<Script> {
        let mut a: Vec<_> = answers.iter().map(|r| r.clone().map(str::to_string)).collect();
        a.reverse();
        Arc::new(Script { answers: Mutex::new(a), seen: Mutex::default() })
    }
}

impl ChatTransport for Script {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        self.seen.lock().unwrap().push(request.clone());
        let next = self.answers.lock().unwrap().pop().unwrap_or(Err(TransportError::Status(503)));
        next.map(|content| ChatResponse { content, prompt_tokens: Some(7), completion_tokens: Some(2) })
    }
    fn sleep(&self, _: std::time::Duration) {}
}

fn prepare_with(scenario: &str, team: &[&str], chat: Arc<dyn ChatTransport>) -> Deception {
    let team: Vec<Spec> = team.iter().map(|t| Spec::parse(t).unwrap()).collect();
    let env = RunEnv { chat: Some(chat), worker: String::new(), agents: None };
    Deception::prepare(&Spec::parse(scenario).unwrap(), &team, &env).unwrap()
}

#[test]
fn answers_map_to_actions_or_corrective_rejections() {
    let s = game("classic_5p1i", &[4]);
    let obs = observation(&s, id(0)).unwrap();
    let ok = answer::parse(
        "Thinking... {\"action\": \"accuse\", \"parameters\": {\"target\": \"agent_3\"}, \"reasoning\": \"they said {odd} things\"} {\"action\": \"pass\"}",
        &obs,
    )
    .unwrap();
    assert_eq!(ok.kind, ActionKind::Accuse { target: id(3) });
    assert_eq!(ok.note.as_str(), "they said {odd} things");
    let long = format!("{{\"action\": \"pass\", \"reasoning\": \"{}\"}}", "r".repeat(3000));
    assert_eq!(answer::parse(&long, &obs).unwrap().note.chars(), 2000, "the note is cut to 2000 chars");
    let reason = |text: &str| answer::parse(text, &obs).unwrap_err().reason;
    assert_eq!(reason("I pass."), "no_json_object");
    assert_eq!(reason("{\"action\": pass}"), "invalid_json");
    assert_eq!(reason("{\"act\": \"pass\"}"), "bad_shape");
    assert_eq!(reason("{\"action\": \"kill\", \"parameters\": {}}"), "bad_action");
    assert_eq!(reason("{\"action\": \"accuse\", \"parameters\": {}}"), "bad_action");
    assert_eq!(reason("{\"action\": \"vote\", \"parameters\": {\"target\": \"bob\"}}"), "wrong_phase");
    assert_eq!(reason("{\"action\": \"accuse\", \"parameters\": {\"target\": \"bob\"}}"), "unknown_target");
    assert_eq!(reason("{\"action\": \"accuse\", \"parameters\": {\"target\": \"agent_0\"}}"), "self_target");
    assert_eq!(reason("{\"action\": \"discuss\", \"parameters\": {\"message\": \"  \"}}"), "empty_text");
    let rejection =
        answer::parse("{\"action\": \"vote\", \"parameters\": {\"target\": \"agent_1\"}}", &obs).unwrap_err();
    assert!(
        rejection.corrective.contains("wrong_phase") && rejection.corrective.contains("Legal actions now"),
        "{}",
        rejection.corrective
    );
}

#[test]
fn the_prompt_shows_only_what_the_observation_shows() {
    let mut s = game("classic_5p1i", &[4]);
    turn(&mut s, ActionKind::Discuss { message: "hello there".into() });
    let obs = observation(&s, id(1)).unwrap();
    let m = crate::games::deception::policies::llm::prompt::messages(&obs, 60);
    assert_eq!((m[0].role.as_str(), m[1].role.as_str()), ("system", "user"));
    assert!(m[0].content.contains("You are agent_1") && m[0].content.contains("Your role: crewmate"));
    assert!(!m[1].content.contains("imposter\"") && !m[1].content.contains("agent_4: ejected"));
    assert!(
        m[1].content.contains("hello there")
            && m[1].content.contains("Legal targets: agent_0, agent_2, agent_3, agent_4")
    );
    assert!(m[1].content.contains("Example in voting"));
    // History beyond the limit is counted, not shown.
    let m = crate::games::deception::policies::llm::prompt::messages(&obs, 0);
    assert!(m[1].content.contains("hello there"), "the current tick is always shown");
}

#[test]
fn reprompts_then_falls_back_and_counts_it() {
    // max_retries = 1: two attempts per decision.
    let script = Script::new(&[
        Ok("{\"action\": \"vote\", \"parameters\": {\"target\": \"agent_1\"}}"), // wrong phase
        Ok("{\"action\": \"discuss\", \"parameters\": {\"message\": \"I trust agent_2\"}}"),
        Err(TransportError::Status(500)),
        Ok("not json"),
    ]);
    let team = ["llm?model=m&endpoint=http://stub/v1&max_retries=1", "heuristic", "heuristic", "heuristic"];
    let mut g = prepare_with("quick_4p1i?max_ticks=1", &team, script.clone());
    let ep = g.play(5, true);
    let llm = &ep.record.stats.as_map()["llm"]["0"];
    let keys: Vec<&str> = llm.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, crate::llm::stats::LLM_STAT_FIELDS);
    assert_eq!(llm["decisions"], 2);
    assert_eq!(llm["calls"], 4);
    assert_eq!(llm["invalid_outputs"], 2);
    assert_eq!(llm["transport_errors"], 1);
    assert_eq!(llm["fallbacks"], 1);
    assert_eq!(llm["prompt_tokens"], 21);
    assert_eq!(
        ep.record.stats.as_map()["invalid_actions"][0],
        0,
        "the llm's own rejections are not engine invalid actions"
    );
    // The corrective turn: the rejected answer, then a user message naming the violation.
    let seen = script.seen.lock().unwrap();
    let second = &seen[1].messages;
    assert_eq!(second.len(), 4);
    assert_eq!(second[2].role, "assistant");
    assert!(second[3].content.contains("wrong_phase"));
    let replay: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
    let parses: Vec<&str> =
        replay["llm_calls"].as_array().unwrap().iter().map(|c| c["parse"].as_str().unwrap()).collect();
    assert_eq!(parses, ["wrong_phase", "accepted", "transport_error", "no_json_object"]);
    assert_eq!(replay["llm_calls"][0]["prompt_version"], "deception-prompt-1");
    // A call's fields, in the replay's order: the seat, the tick, then the call.
    let keys: Vec<&str> = replay["llm_calls"][0].as_object().unwrap().keys().map(String::as_str).collect();
    let call_keys = ["attempt", "messages", "raw", "error", "parse", "latency_ms", "backoff_ms"];
    assert_eq!(keys, [&["seat", "tick", "decision", "prompt_version"][..], &call_keys].concat());
}

#[test]
fn failing_llm_seats_play_exactly_like_their_fallback() {
    // The fallback decides with the seat's own stream, so an llm seat that never answers plays
    // the heuristic's episode, and the scripted seats use only their own streams.
    let script = Script::new(&[]);
    let team =
        ["heuristic", "heuristic", "llm?model=m&endpoint=http://stub/v1&max_retries=0", "heuristic", "heuristic"];
    let mut g = prepare_with("classic_5p1i", &team, script);
    let mut h = prepare("classic_5p1i", &all("heuristic", 5)).unwrap();
    for seed in 0..20 {
        let a = g.play(seed, false).record;
        let b = h.play(seed, false).record;
        assert_eq!(a.trajectory_hash, b.trajectory_hash, "seed {seed}");
        let llm = &a.stats.as_map()["llm"]["2"];
        assert_eq!(llm["decisions"], llm["fallbacks"]);
    }
}

#[cfg(feature = "llm-http")]
mod over_http {
    use std::time::Duration;

    use super::*;
    use crate::llm::http::HttpTransport;
    use crate::llm::test_server::{NoSleep, Reply, StubServer};

    #[test]
    fn end_to_end_against_a_local_server() {
        // Seat 0 speaks first in tick 1, then votes: two decisions, two attempts each.
        let server = StubServer::start(|n, _| match n {
            0 => Reply::Answer("{\"action\": discuss}".into()),
            1 => Reply::Answer("Sure: {\"action\": \"vote\", \"parameters\": {\"target\": \"agent_1\"}}".into()),
            2 => Reply::Raw(429, "{\"error\": \"rate limited\"}".into()),
            _ => Reply::Answer("{\"action\": \"abstain\", \"parameters\": {}, \"reasoning\": \"unsure\"}".into()),
        });
        std::env::set_var("SIMFLEET_DECEPTION_TEST_KEY", "k-123-secret");
        let transport = Arc::new(NoSleep::new(HttpTransport::new()));
        let spec = format!(
            "llm?model=tiny&endpoint={}&api_key_env=SIMFLEET_DECEPTION_TEST_KEY&max_retries=1&timeout_s=2",
            server.endpoint()
        );
        let team = [spec.as_str(), "heuristic", "heuristic", "heuristic"];
        let mut g = prepare_with("quick_4p1i?max_ticks=1", &team, transport.clone());
        let ep = g.play(2, true);
        let llm = &ep.record.stats.as_map()["llm"]["0"];
        assert_eq!((llm["decisions"].as_u64(), llm["calls"].as_u64()), (Some(2), Some(4)));
        assert_eq!((llm["invalid_outputs"].as_u64(), llm["transport_errors"].as_u64()), (Some(2), Some(1)));
        assert_eq!(
            (llm["fallbacks"].as_u64(), llm["prompt_tokens"].as_u64(), llm["completion_tokens"].as_u64()),
            (Some(1), Some(300), Some(60))
        );
        assert_eq!(*transport.slept.lock().unwrap(), [Duration::from_secs(1)], "the 429 waited out, no attempt used");
        assert_eq!(llm["rate_limited"].as_u64(), Some(1));
        let seen = server.seen();
        assert!(seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer k-123-secret")));
        assert_eq!(seen[0].body["model"], "tiny");
        assert!(seen[1].body["messages"][3]["content"].as_str().unwrap().contains("does not parse"));
        let replay = ep.replay.unwrap();
        assert!(!replay.contains("k-123-secret"), "the key is never recorded");
        let r: Value = serde_json::from_str(&replay).unwrap();
        let vote = r["steps"].as_array().unwrap().iter().find(|s| s["phase"] == "voting").unwrap();
        assert_eq!(vote["actions"][0]["action"], "abstain");
        assert_eq!(vote["actions"][0]["note"], "unsure");
    }

    #[test]
    fn timeouts_and_server_errors_fall_back() {
        let server = StubServer::start(|n, _| match n % 2 {
            0 => Reply::Hang(Duration::from_millis(1000)),
            _ => Reply::Raw(500, "boom".into()),
        });
        let transport = Arc::new(NoSleep::new(HttpTransport::new()));
        let spec = format!("llm?model=tiny&endpoint={}&max_retries=1&timeout_s=0.2&fallback=random", server.endpoint());
        let team = [spec.as_str(), "heuristic", "heuristic", "heuristic"];
        let mut g = prepare_with("quick_4p1i?max_ticks=1", &team, transport.clone());
        let r = g.play(4, false).record;
        let llm = &r.stats.as_map()["llm"]["0"];
        assert_eq!(llm["decisions"], llm["fallbacks"]);
        assert_eq!(llm["transport_errors"], llm["calls"]);
        assert_eq!(llm["calls"].as_u64().unwrap(), 2 * llm["decisions"].as_u64().unwrap());
        // The 500 is each decision's last attempt: no wait; the timeout never waits.
        assert!(transport.slept.lock().unwrap().is_empty());
    }
}
