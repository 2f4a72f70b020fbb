//! §11 for trolley: parameters, the missing transport, answers played, re-prompts, the
//! fallback after the cap and the `llm` stats in the record (against a stub transport); end to
//! end over real HTTP against the local test server when the `llm-http` feature is on. The
//! answer mapping and the prompts are tested in `answers.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::*;
use crate::games::trolley::policies::llm::LlmParams;
use crate::games::trolley::policies::{DebaterParams, OperatorRule};
use crate::llm::{ChatRequest, ChatResponse, ChatTransport, TransportError};
use crate::protocol::{JobError, JobErrorKind};

type Answerer = dyn Fn(usize, &ChatRequest) -> Result<String, TransportError> + Send + Sync;

/// Answers the n-th call (from 0) with `answer(n, request)`, reporting 7 prompt and 2
/// completion tokens per answer; records every request and every backoff wait.
struct Stub {
    answer: Box<Answerer>,
    seen: Mutex<Vec<ChatRequest>>,
    slept: Mutex<Vec<Duration>>,
}

impl Stub {
    fn new(
        answer: impl Fn(usize, &ChatRequest) -> Result<String, TransportError> + Send + Sync + 'static,
    ) -> Arc<Stub> {
        Arc::new(Stub { answer: Box::new(answer), seen: Mutex::default(), slept: Mutex::default() })
    }

    /// Answers from a list; calls beyond it get HTTP 503.
    fn script(answers: &[Result<&str, TransportError>]) -> Arc<Stub> {
        let answers: Vec<_> = answers.iter().map(|r| r.clone().map(str::to_string)).collect();
        Stub::new(move |n, _| answers.get(n).cloned().unwrap_or(Err(TransportError::Status(503))))
    }

    fn seen(&self) -> Vec<ChatRequest> {
        self.seen.lock().unwrap().clone()
    }
}

impl ChatTransport for Stub {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        let n = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(request.clone());
            seen.len() - 1
        };
        let content = (self.answer)(n, request)?;
        Ok(ChatResponse { content, prompt_tokens: Some(7), completion_tokens: Some(2) })
    }
    fn sleep(&self, delay: Duration) {
        self.slept.lock().unwrap().push(delay);
    }
}

const MODEL_TEXT: &str = "Operator, spare us: every one of us has a life worth living.";

/// A model that always answers legally: argues as a side agent, saves the minority as operator.
fn always_valid(_: usize, request: &ChatRequest) -> Result<String, TransportError> {
    let last = &request.messages.last().unwrap().content;
    Ok(if last.contains("Legal action now: decide") {
        r#"{"action": "decide", "parameters": {"decision": "save_minority"}, "reasoning": "spare the few"}"#.into()
    } else {
        format!(r#"Here: {{"action": "argue", "parameters": {{"text": "  {MODEL_TEXT} "}}, "reasoning": "plead"}}"#)
    })
}

fn prepare_with(scenario: &str, team: &[&str], chat: Arc<dyn ChatTransport>) -> Result<Trolley, JobError> {
    let team: Vec<Spec> = team.iter().map(|t| Spec::parse(t).unwrap()).collect();
    Trolley::prepare(
        &Spec::parse(scenario).unwrap(),
        &team,
        &RunEnv { chat: Some(chat), worker: String::new(), agents: None },
    )
}

/// A seat that is on the track (not the operator) in round 1 of `scenario` with `seed`: roles
/// depend only on the seed and N (§3), so a scripted run tells.
fn side_seat_in_round_1(scenario: &str, n: usize, seed: u64) -> usize {
    let mut g = prepare(scenario, &team("utilitarian", n)).unwrap();
    g.play(seed, false);
    (usize::from(g.state().rounds()[0].operator) + 1) % n
}

/// The replay's actions of `agent`, in the order applied.
fn seat_actions<'a>(replay: &'a Value, agent: &str) -> Vec<&'a Value> {
    let rounds = replay["rounds"].as_array().unwrap();
    rounds.iter().flat_map(|r| r["actions"].as_array().unwrap()).filter(|a| a["agent"] == agent).collect()
}

#[test]
fn parameters_have_the_spec_defaults_and_ranges() {
    let p = LlmParams::parse(0, &Spec::parse("llm?model=m&endpoint=http://h:1/v1").unwrap()).unwrap();
    let (c, fallback) = (&p.client, &p.fallback);
    assert_eq!(
        (c.model.as_str(), c.endpoint.as_str(), c.api_key_env.as_str()),
        ("m", "http://h:1/v1", "OPENAI_API_KEY")
    );
    assert_eq!((c.temperature, c.max_tokens, c.timeout, c.max_retries), (0.0, 300, Duration::from_secs(30), 2));
    assert_eq!(*fallback, DebaterParams::default());
    let spec = "llm?model=m&endpoint=https://h/v1&api_key_env=K&temperature=0.7&max_tokens=50&timeout_s=2.5\
                &max_retries=5&fallback=contrarian%3Fskip%3D1";
    let p = LlmParams::parse(0, &Spec::parse(spec).unwrap()).unwrap();
    let c = &p.client;
    assert_eq!((c.api_key_env.as_str(), c.temperature, c.max_tokens), ("K", 0.7, 50));
    assert_eq!((c.timeout, c.max_retries), (Duration::from_millis(2500), 5));
    assert_eq!((p.fallback.operator, p.fallback.skip), (OperatorRule::Contrarian, 1.0));
}

#[test]
fn bad_parameters_name_the_seat_parameter_and_value() {
    let chat = Stub::script(&[]);
    let err = |spec: &str| {
        let e = prepare_with("trio_3p", &["utilitarian", spec, "utilitarian"], chat.clone()).unwrap_err();
        assert_eq!(e.kind, JobErrorKind::InvalidJob, "{spec}");
        (e.field.unwrap_or_default(), e.value)
    };
    let named = |f: &str, v: &str| (format!("policy_set[1]{f}"), Some(v.to_string()));
    let base = "llm?model=m&endpoint=http://x/v1";
    assert_eq!(err("llm?endpoint=http://x/v1"), ("policy_set[1].model".into(), None));
    assert_eq!(err("llm?model=&endpoint=http://x/v1"), ("policy_set[1].model".into(), None));
    assert_eq!(err("llm?model=m"), ("policy_set[1].endpoint".into(), None));
    assert_eq!(err("llm?model=m&endpoint=ftp://x"), named(".endpoint", "ftp://x"));
    assert_eq!(err(&format!("{base}&api_key_env=")), named(".api_key_env", ""));
    assert_eq!(err(&format!("{base}&temperature=2.5")), named(".temperature", "2.5"));
    assert_eq!(err(&format!("{base}&temperature=hot")), named(".temperature", "hot"));
    assert_eq!(err(&format!("{base}&max_tokens=0")), named(".max_tokens", "0"));
    assert_eq!(err(&format!("{base}&timeout_s=0")), named(".timeout_s", "0"));
    assert_eq!(err(&format!("{base}&timeout_s=-1")), named(".timeout_s", "-1"));
    assert_eq!(err(&format!("{base}&max_retries=6")), named(".max_retries", "6"));
    assert_eq!(err(&format!("{base}&max_retries=1.5")), named(".max_retries", "1.5"));
    assert_eq!(err(&format!("{base}&fallback=llm")), named(".fallback", "llm"));
    assert_eq!(err(&format!("{base}&fallback=hero")), named(".fallback", "hero"));
    assert_eq!(err(&format!("{base}&fallback=persuadable%3Fbias%3D0.9")), named(".fallback", "persuadable?bias=0.9"));
    assert_eq!(err(&format!("{base}&history=60")), named(".history", "60"));
    assert_eq!(err("llm:3?model=m&endpoint=http://x/v1"), named("", "3"));
    assert!(chat.seen().is_empty(), "nothing is called while preparing");
}

#[test]
fn an_llm_seat_without_a_transport_is_an_invalid_job() {
    let e =
        prepare("trio_3p", &["utilitarian", "utilitarian", "llm?model=m1&endpoint=http://secret-host/v1"]).unwrap_err();
    assert_eq!(e.kind, JobErrorKind::InvalidJob);
    assert_eq!(e.field.as_deref(), Some("policy_set[2]"));
    assert_eq!(e.value.as_deref(), Some("llm?model=m1"), "the endpoint is not echoed");
    assert!(e.message.contains("chat transport"), "{e}");
}

#[test]
fn well_formed_answers_are_played() {
    let chat = Stub::new(always_valid);
    let spec = "llm?model=tiny&endpoint=http://stub/v1&api_key_env=SIMFLEET_TROLLEY_UNSET_KEY&temperature=0.7\
                &max_tokens=50&timeout_s=2.5";
    let mut g = prepare_with("trio_3p", &[spec, "utilitarian?skip=1", "utilitarian?skip=1"], chat.clone()).unwrap();
    let ep = g.play(9, true);
    let r = &ep.record;
    // Seat 0 is operator once (7 decisions: 2 side rounds × 3 phases + 1 decision), all answered.
    let llm = &r.stats.as_map()["llm"]["0"];
    let counts: Vec<u64> = ["decisions", "calls", "transport_errors", "invalid_outputs", "fallbacks"]
        .iter()
        .map(|k| llm[k].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [7, 7, 0, 0, 0]);
    assert_eq!((llm["prompt_tokens"].as_u64(), llm["completion_tokens"].as_u64()), (Some(49), Some(14)));
    assert_eq!(r.stats.as_map()["llm"].as_object().unwrap().len(), 1, "only llm seats have llm stats");
    assert_eq!(r.stats.as_map()["invalid_actions"], serde_json::json!([0, 0, 0]));
    for round in r.stats.as_map()["rounds"].as_array().unwrap() {
        let expected = if round["operator"] == 0 { "save_minority" } else { "save_majority" };
        assert_eq!(round["decision"], expected);
        let own = if round["majority"][0] == 0 { "args_majority" } else { "args_minority" };
        if round["operator"] != 0 {
            assert_eq!(round[own], serde_json::json!([1, 1, 1]), "seat 0 argued in every phase");
        }
    }
    let replay: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
    let mine = seat_actions(&replay, "agent_0");
    assert_eq!(mine.len(), 7);
    for a in &mine {
        assert_eq!(a["fallback"], false);
        match a["action"].as_str().unwrap() {
            "argue" => assert_eq!(
                (a["parameters"]["text"].as_str(), a["reasoning"].as_str()),
                (Some(MODEL_TEXT), Some("plead"))
            ),
            "decide" => assert_eq!(a["reasoning"], "spare the few"),
            other => panic!("unexpected {other}"),
        }
    }
    let calls = replay["llm_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 7);
    assert!(calls.iter().all(|c| c["parse"] == "accepted" && c["prompt_version"] == "trolley-prompt-1"));
    // A call's fields, in the replay's order: the seat, where the decision happened, then the call.
    let keys: Vec<&str> = calls[0].as_object().unwrap().keys().map(String::as_str).collect();
    let call_keys = ["attempt", "messages", "raw", "error", "parse", "latency_ms", "backoff_ms"];
    assert_eq!(keys, [&["seat", "round", "phase", "decision", "prompt_version"][..], &call_keys].concat());
    assert!(calls[0]["round"].is_u64() && calls[0]["phase"].is_string(), "{}", calls[0]);
    let seen = chat.seen();
    assert_eq!((seen[0].model.as_str(), seen[0].endpoint.as_str()), ("tiny", "http://stub/v1"));
    assert_eq!((seen[0].temperature, seen[0].max_tokens, seen[0].timeout), (0.7, 50, Duration::from_millis(2500)));
    assert_eq!(seen[0].api_key, None, "an unset key variable sends no key");
    assert!(seen[0].messages[0].content.contains("You are agent_0"));
    // The record is built again, identically, without a replay.
    // Played again without a replay: the same episode, and the counters start from zero.
    let again = g.play(9, false).record;
    assert_eq!((&again.trajectory_hash, &again.agent_rewards), (&r.trajectory_hash, &r.agent_rewards));
    assert_eq!(again.stats.as_map()["llm"]["0"]["calls"], 7);
}

#[test]
fn malformed_invalid_and_failed_calls_are_retried_then_fall_back() {
    // One round: the llm seat is on the track and decides three times, two attempts each.
    let seed = 5;
    let seat = side_seat_in_round_1("trio_3p?max_rounds=1", 3, seed);
    let chat = Stub::script(&[
        Ok("I would rather argue."),
        Ok(r#"{"action": "argue", "parameters": {"text": "Spare us, operator."}, "reasoning": "second try"}"#),
        Ok(r#"{"action": "decide", "parameters": {"decision": "save_minority"}}"#),
        Ok(r#"{"action": "argue", "parameters": {"text": "   "}}"#),
        Err(TransportError::Status(503)),
        Err(TransportError::Timeout),
    ]);
    let spec = "llm?model=m&endpoint=http://stub/v1&max_retries=1&fallback=persuadable%3Fskip%3D0";
    let mut team = vec!["persuadable"; 3];
    team[seat] = spec;
    let ep = prepare_with("trio_3p?max_rounds=1", &team, chat.clone()).unwrap().play(seed, true);
    let llm = &ep.record.stats.as_map()["llm"][seat.to_string()];
    let keys: Vec<&str> = llm.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, crate::llm::stats::LLM_STAT_FIELDS);
    let count = |k: &str| llm[k].as_u64().unwrap();
    assert_eq!([count("decisions"), count("calls"), count("transport_errors")], [3, 6, 2]);
    assert_eq!([count("invalid_outputs"), count("fallbacks")], [3, 2]);
    assert_eq!([count("prompt_tokens"), count("completion_tokens")], [28, 8]);
    assert!(count("latency_ms_max") <= count("latency_ms_total"));
    assert_eq!(
        ep.record.stats.as_map()["invalid_actions"],
        serde_json::json!([0, 0, 0]),
        "rejections are not engine fallbacks"
    );
    // Backoff after the 503 only; the timeout was the decision's last attempt.
    assert_eq!(*chat.slept.lock().unwrap(), [Duration::from_millis(500)]);
    // Corrective turns: the rejected answer, then a user message naming the problem.
    let seen = chat.seen();
    let roles = |i: usize| seen[i].messages.iter().map(|m| m.role.as_str()).collect::<Vec<_>>();
    assert_eq!(roles(1), ["system", "user", "assistant", "user"]);
    assert_eq!(seen[1].messages[2].content, "I would rather argue.");
    assert!(seen[1].messages[3].content.contains("no JSON object"));
    assert!(seen[3].messages[3].content.contains("wrong_role"), "{}", seen[3].messages[3].content);
    assert_eq!(seen[5].messages, seen[4].messages, "a transport failure resends the same conversation");
    let replay: Value = serde_json::from_str(ep.replay.as_deref().unwrap()).unwrap();
    let parses: Vec<&str> =
        replay["llm_calls"].as_array().unwrap().iter().map(|c| c["parse"].as_str().unwrap()).collect();
    assert_eq!(
        parses,
        ["no_json_object", "accepted", "wrong_role", "text_length", "transport_error", "transport_error"]
    );
    let mine = seat_actions(&replay, &format!("agent_{seat}"));
    assert_eq!(mine.len(), 3);
    assert_eq!(
        (mine[0]["parameters"]["text"].as_str(), mine[0]["reasoning"].as_str()),
        (Some("Spare us, operator."), Some("second try"))
    );
    for a in &mine[1..] {
        // The fallback (skip = 0) argues with a template, marked in the reasoning, not as an engine fallback.
        assert_eq!((a["action"].as_str(), a["fallback"].as_bool()), (Some("argue"), Some(false)));
        assert!(a["reasoning"].as_str().unwrap().starts_with("llm attempts spent; fallback "), "{a}");
    }
}

#[test]
fn failing_llm_seats_play_exactly_like_their_fallback() {
    // The fallback decides with the seat's own stream and the llm draws nothing, so a seat whose
    // model never answers plays its fallback's episode; `debater` is the default fallback.
    let chat = Stub::new(|_, _| Err(TransportError::Status(500)));
    let team = [
        "persuadable",
        "llm?model=m&endpoint=http://stub/v1&max_retries=0&fallback=contrarian%3Fskip%3D0.3",
        "random",
        "llm?model=m&endpoint=http://stub/v1&max_retries=0",
        "persuadable",
    ];
    let mut g = prepare_with("balanced_5p", &team, chat.clone()).unwrap();
    let mut h =
        prepare("balanced_5p", &["persuadable", "contrarian?skip=0.3", "random", "debater", "persuadable"]).unwrap();
    for seed in 0..20 {
        let mut a = g.play(seed, false).record;
        let mut b = h.play(seed, false).record;
        for seat in ["1", "3"] {
            let llm = &a.stats.as_map()["llm"][seat];
            assert_eq!(llm["decisions"], llm["fallbacks"], "seed {seed}");
            assert_eq!(llm["calls"], llm["transport_errors"]);
            assert_eq!(llm["decisions"], llm["calls"]);
        }
        a.stats.as_map_mut().remove("llm");
        b.stats.as_map_mut().remove("llm");
        assert_eq!(a, b, "seed {seed}");
    }
    assert!(chat.slept.lock().unwrap().is_empty(), "no attempt is left after a failure with max_retries = 0");
    // Replays of jobs without llm seats keep their shape: no `llm_calls`.
    let scripted: Value = serde_json::from_str(h.play(0, true).replay.as_deref().unwrap()).unwrap();
    assert!(scripted.get("llm_calls").is_none());
    let with_llm: Value = serde_json::from_str(g.play(0, true).replay.as_deref().unwrap()).unwrap();
    assert_eq!(with_llm["llm_calls"][0]["parse"], "transport_error");
}

#[cfg(feature = "llm-http")]
mod over_http {
    use super::*;
    use crate::llm::http::HttpTransport;
    use crate::llm::test_server::{NoSleep, Reply, StubServer};

    /// The answer `always_valid` gives to the request the server saw.
    fn valid_reply(body: &Value) -> Reply {
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap()["content"].as_str().unwrap();
        let request = ChatRequest {
            endpoint: String::new(),
            model: String::new(),
            messages: vec![crate::llm::ChatMessage { role: "user".into(), content: last.into() }],
            temperature: 0.0,
            max_tokens: 0,
            api_key: None,
            timeout: Duration::ZERO,
            seat: 0,
            attempt: 0,
            limits: Default::default(),
        };
        Reply::Answer(always_valid(0, &request).unwrap())
    }

    #[test]
    fn end_to_end_against_a_local_server() {
        let seed = 2;
        let seat = side_seat_in_round_1("trio_3p?max_rounds=1", 3, seed);
        let server = StubServer::start(|n, seen| match n {
            0 => Reply::Raw(429, r#"{"error": "rate limited"}"#.into()),
            1 => Reply::Answer(r#"{"action": argue}"#.into()),
            _ => valid_reply(&seen.body),
        });
        std::env::set_var("SIMFLEET_TROLLEY_TEST_KEY", "k-trolley-secret");
        let transport = Arc::new(NoSleep::new(HttpTransport::new()));
        let spec = format!(
            "llm?model=tiny&endpoint={}&api_key_env=SIMFLEET_TROLLEY_TEST_KEY&max_retries=2&timeout_s=2",
            server.endpoint()
        );
        let mut team = vec!["utilitarian"; 3];
        team[seat] = spec.as_str();
        let ep = prepare_with("trio_3p?max_rounds=1", &team, transport.clone()).unwrap().play(seed, true);
        let llm = &ep.record.stats.as_map()["llm"][seat.to_string()];
        let count = |k: &str| llm[k].as_u64().unwrap();
        assert_eq!([count("decisions"), count("calls"), count("transport_errors")], [3, 5, 1]);
        assert_eq!([count("invalid_outputs"), count("fallbacks")], [1, 0]);
        // Four answers with usage 100 + 20 each (the 429 reports none).
        assert_eq!([count("prompt_tokens"), count("completion_tokens")], [400, 80]);
        assert_eq!(*transport.slept.lock().unwrap(), [Duration::from_secs(1)], "the 429 waited out, no attempt used");
        let seen = server.seen();
        assert!(seen.iter().all(|s| s.path == "/v1/chat/completions"));
        assert!(seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer k-trolley-secret")));
        assert_eq!((seen[0].body["model"].as_str(), seen[0].body["max_tokens"].as_u64()), (Some("tiny"), Some(300)));
        assert!(seen[2].body["messages"][3]["content"].as_str().unwrap().contains("does not parse"));
        let replay = ep.replay.unwrap();
        assert!(!replay.contains("k-trolley-secret"), "the key is never recorded");
        let r: Value = serde_json::from_str(&replay).unwrap();
        let mine = seat_actions(&r, &format!("agent_{seat}"));
        assert!(mine.iter().all(|a| a["parameters"]["text"] == MODEL_TEXT && a["reasoning"] == "plead"));
    }

    #[test]
    fn timeouts_and_server_errors_fall_back() {
        let server = StubServer::start(|n, _| match n % 2 {
            0 => Reply::Hang(Duration::from_millis(1000)),
            _ => Reply::Raw(500, "boom".into()),
        });
        let transport = Arc::new(NoSleep::new(HttpTransport::new()));
        let spec = format!("llm?model=tiny&endpoint={}&max_retries=1&timeout_s=0.2&fallback=random", server.endpoint());
        let seed = 4;
        let seat = side_seat_in_round_1("trio_3p?max_rounds=1", 3, seed);
        let mut team = vec!["utilitarian"; 3];
        team[seat] = spec.as_str();
        let r = prepare_with("trio_3p?max_rounds=1", &team, transport.clone()).unwrap().play(seed, false).record;
        let llm = &r.stats.as_map()["llm"][seat.to_string()];
        assert_eq!((llm["decisions"].as_u64(), llm["fallbacks"].as_u64()), (Some(3), Some(3)));
        assert_eq!((llm["calls"].as_u64(), llm["transport_errors"].as_u64()), (Some(6), Some(6)));
        assert!(llm["latency_ms_max"].as_u64().unwrap() >= 150, "the hung calls waited for the timeout");
        // The 500 is each decision's last attempt: no wait; a timeout never waits.
        assert!(transport.slept.lock().unwrap().is_empty());
    }
}
