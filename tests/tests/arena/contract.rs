//! The arena keeps its OpenAPI contract: requests generated from `docs/arena.openapi.json`
//! (proptest; bodies and query strings valid and invalid, against games in every state) go to
//! the real HTTP server, and every answer must be a documented status of its operation with a
//! body its schema accepts (the `jsonschema` crate, draft 2020-12, is the schema's reader).
//!
//! Beyond that, what a contract fuzzer checks: a body or query the schema refuses is never
//! accepted (negative data), and where the game's state cannot refuse it (creating a game,
//! registering in an empty lobby, listing, reading a feed) a body or query the schema accepts is
//! never refused (positive data). The oracle is the schema itself, so a bound enforced by the
//! server but missing from the document (or the reverse) fails here.

use std::collections::BTreeSet;

use coordinator::arena::ArenaConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Map, Value};

use super::client::*;

/// The document, parsed.
fn document() -> Value {
    serde_json::from_str(include_str!("../../../docs/arena.openapi.json")).unwrap()
}

/// A validator for `schema`, whose `$ref`s point into the document's `components`.
fn validator(doc: &Value, schema: &Value) -> jsonschema::Validator {
    let mut root = schema.as_object().cloned().unwrap_or_default();
    root.insert("components".into(), doc["components"].clone());
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&Value::Object(root))
        .unwrap_or_else(|e| panic!("the document's schema {schema} does not compile: {e}"))
}

/// Follows a `$ref` (to a schema, parameter or response) inside the document.
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v["$ref"].as_str() {
        Some(r) => r.trim_start_matches("#/").split('/').fold(doc, |node, key| &node[key]),
        None => v,
    }
}

/// Numbers and strings a schema mentions (bounds, enums, consts, defaults), through its
/// references and combinators: the values around which generated values cluster.
fn hints(doc: &Value, schema: &Value, ints: &mut BTreeSet<i128>, strings: &mut BTreeSet<String>) {
    let schema = resolve(doc, schema);
    for key in ["minimum", "maximum"] {
        if let Some(b) = schema[key].as_u64().map(i128::from).or_else(|| schema[key].as_i64().map(i128::from)) {
            ints.extend([b - 1, b, b + 1]);
        }
    }
    for v in schema["enum"].as_array().into_iter().flatten().chain([&schema["const"], &schema["default"]]) {
        if let Some(s) = v.as_str() {
            strings.insert(s.to_string());
        }
    }
    for key in ["anyOf", "allOf", "oneOf"] {
        for s in schema[key].as_array().into_iter().flatten() {
            hints(doc, s, ints, strings);
        }
    }
}

/// Placeholders replaced by the case's real agent ids, game id or round id before sending.
const PLACEHOLDERS: [&str; 3] = ["@agent0", "@agent1", "@agent2"];

/// Any JSON value a field of `schema` might be sent: mostly near what the schema mentions, as
/// integers, as integers with a zero fraction, as fractions, as strings of awkward white space
/// and lengths around the limits, and of the wrong type.
fn field(doc: &Value, schema: &Value) -> BoxedStrategy<Value> {
    let mut ints = BTreeSet::from([0, 1, 2, 5, 7, 8, 40, 41, 500, 501]);
    let mut strings: BTreeSet<String> = PLACEHOLDERS.iter().map(|s| s.to_string()).collect();
    hints(doc, schema, &mut ints, &mut strings);
    let ints: Vec<i128> = ints.into_iter().collect();
    let strings: Vec<String> = strings.into_iter().collect();
    let int = proptest::sample::select(ints);
    let text =
        (proptest::sample::select(vec![" ", "\t", "\u{85}", "\u{3000}", "\u{feff}", "a", "Z", "é", "7"]), 0..4usize)
            .prop_map(|(piece, n)| piece.repeat(n));
    let long = (proptest::sample::select(vec![38usize, 39, 40, 41, 498, 499, 500, 501]), any::<bool>())
        .prop_map(|(n, pad)| if pad { format!(" {} ", "x".repeat(n)) } else { "x".repeat(n) });
    prop_oneof![
        4 => int.clone().prop_map(integer),
        2 => int.clone().prop_map(|i| json!(i as f64)),
        1 => int.prop_map(|i| json!(i as f64 + 0.5)),
        1 => any::<i64>().prop_map(|i| json!(i)),
        3 => proptest::sample::select(strings).prop_map(Value::String),
        2 => proptest::collection::vec(text, 0..4).prop_map(|p| Value::String(p.concat())),
        1 => long.prop_map(Value::String),
        1 => Just(Value::Null),
        1 => Just(json!(true)),
        1 => Just(json!([1])),
    ]
    .boxed()
}

/// `i` as a JSON integer; past 64 bits (which `serde_json` cannot hold), the nearest float: still
/// an integer to JSON Schema.
fn integer(i: i128) -> Value {
    i64::try_from(i).map(Value::from).or_else(|_| u64::try_from(i).map(Value::from)).unwrap_or_else(|_| json!(i as f64))
}

/// The values [`field`] clusters around, each once: a field's boundary cases.
fn edges(doc: &Value, schema: &Value) -> Vec<Value> {
    let mut ints = BTreeSet::from([0, 1, 2, 40, 41, 500, 501]);
    let mut strings: BTreeSet<String> = BTreeSet::new();
    hints(doc, schema, &mut ints, &mut strings);
    let mut out: Vec<Value> = ints.iter().flat_map(|&i| [integer(i), json!(i as f64), json!(i as f64 + 0.5)]).collect();
    out.extend(strings.into_iter().map(Value::String));
    for s in ["", " ", "\u{85}\u{3000}", "a", " a\t", "+5", "x".repeat(40).as_str(), "x".repeat(41).as_str()] {
        out.push(json!(s));
    }
    out.extend([json!(format!(" {} ", "x".repeat(40))), json!("x".repeat(500)), json!("x".repeat(501))]);
    out.extend([Value::Null, json!(true), json!([1])]);
    out
}

/// A request body for `schema` (an object schema): each documented field absent or generated,
/// sometimes an undocumented one; or, rarely, not an object at all.
fn body(doc: &Value, schema: &Value) -> BoxedStrategy<Value> {
    let props: Vec<(String, BoxedStrategy<Value>)> = resolve(doc, schema)["properties"]
        .as_object()
        .map(|p| p.iter().map(|(k, s)| (k.clone(), field(doc, s))).collect())
        .unwrap_or_default();
    // Few fields at a time, so that one field's value decides a body's fate often enough.
    let fields: Vec<_> =
        props.into_iter().map(|(k, s)| proptest::option::weighted(0.3, s).prop_map(move |v| (k.clone(), v))).collect();
    let object = (fields, any::<bool>()).prop_map(|(fields, extra)| {
        let mut map: Map<String, Value> = fields.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect();
        if extra {
            map.insert("unknown_field".into(), json!([1, 2]));
        }
        Value::Object(map)
    });
    prop_oneof![12 => object, 1 => Just(json!([])), 1 => Just(json!("text"))].boxed()
}

/// A query parameter's raw value.
fn query_value(doc: &Value, schema: &Value) -> BoxedStrategy<String> {
    field(doc, schema)
        .prop_map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .boxed()
}

/// How a raw query value reads against its schema: an integer where it is written as one (as a
/// client serialising an integer parameter writes it: digits, maybe signed), else the string.
fn query_json(raw: &str) -> Value {
    raw.parse::<i128>().map_or_else(|_| Value::String(raw.to_string()), integer)
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~@".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The game a case runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fixture {
    /// No such game.
    Missing,
    /// Created, nobody registered.
    EmptyLobby,
    /// Three agents registered, not started.
    FullLobby,
    /// Started: round 1 in its first debate phase.
    Debating,
    /// Started and advanced to the operator's decision.
    Deciding,
}

/// One generated request, before its placeholders are filled in.
#[derive(Clone, Debug)]
struct Case {
    op: usize,
    fixture: Fixture,
    real_round: bool,
    token: usize,
    body: Option<Value>,
    raw_body: Option<&'static str>,
    query: Vec<(String, Option<String>)>,
}

/// An operation of the document.
struct Operation {
    method: &'static str,
    path: String,
    spec: Value,
    request: Option<jsonschema::Validator>,
}

/// Replaces the placeholders in `v` by the case's agent ids.
fn fill(v: &Value, agents: &[Player]) -> Value {
    match v {
        Value::String(s) => match PLACEHOLDERS.iter().position(|p| p == s) {
            Some(i) => Value::String(agents.get(i).map_or_else(|| format!("missing-{i}"), |a| a.id.clone())),
            None => v.clone(),
        },
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), fill(v, agents))).collect()),
        other => other.clone(),
    }
}

/// Sets up `fixture`: its game id, agents and current round id.
fn set_up(client: &Client, fixture: Fixture) -> (String, Vec<Player>, Option<String>) {
    let patient =
        json!({ "phase_deadline_seconds": null, "decision_deadline_seconds": null, "round_pause_seconds": null });
    let (n, start) = match fixture {
        Fixture::Missing => return ("no-such-game".into(), vec![], None),
        Fixture::EmptyLobby => (0, false),
        Fixture::FullLobby => (3, false),
        Fixture::Debating | Fixture::Deciding => (3, true),
    };
    let (game, players) = client.game(n, patient, start);
    if fixture == Fixture::Deciding {
        for _ in 0..3 {
            client.admin(&game, None, json!({})).ok(200);
        }
        assert_eq!(client.state(&game)["phase"], "awaiting_decision");
    }
    let round = client.state(&game)["round_id"].as_str().map(str::to_string);
    (game, players, round)
}

/// Every field of the bodies whose acceptance no game state decides (create a game, register
/// in an empty lobby), alone at each of its boundary values: accepted exactly when the schema
/// accepts it.
#[test]
fn each_field_alone_is_accepted_exactly_when_the_schema_accepts_it() {
    let doc = document();
    let arena = Arena::start(ArenaConfig { admin_token: None, max_games: 100_000, rate_limits: UNLIMITED });
    let client = arena.client();
    let mut checked = 0;
    for (path, schema) in
        [("/api/games", "CreateGameRequest"), ("/api/games/{game_id}/agents/register", "RegisterRequest")]
    {
        let schema = json!({ "$ref": format!("#/components/schemas/{schema}") });
        let valid = validator(&doc, &schema);
        for (name, field) in resolve(&doc, &schema)["properties"].as_object().unwrap() {
            for value in edges(&doc, field) {
                let body = json!({ name.as_str(): value });
                let url = path.replace("{game_id}", &client.create(json!({})));
                let reply = client.post(&url, body.clone());
                let accepted = (200..300).contains(&reply.status);
                assert_eq!(accepted, valid.is_valid(&body), "POST {path} {body} → {} {}", reply.status, reply.body);
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn every_operation_keeps_its_contract() {
    let doc = document();
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, spec) in item.as_object().unwrap() {
            let request = spec["requestBody"]["content"]["application/json"]["schema"]
                .as_object()
                .map(|s| validator(&doc, &Value::Object(s.clone())));
            let method = if method == "get" { "GET" } else { "POST" };
            ops.push(Operation { method, path: path.clone(), spec: spec.clone(), request });
        }
    }
    // Every operation's documented answers, compiled once.
    let answers: Vec<Vec<(u16, jsonschema::Validator)>> = ops
        .iter()
        .map(|op| {
            op.spec["responses"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(status, r)| {
                    let schema = &resolve(&doc, r)["content"]["application/json"]["schema"];
                    (status.parse().unwrap(), validator(&doc, schema))
                })
                .collect()
        })
        .collect();
    // Operations that take a body or a query weigh more: that is where the schema says most.
    let strategies: Vec<(u32, BoxedStrategy<Case>)> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let body = match op.spec["requestBody"]["content"]["application/json"]["schema"].as_object() {
                Some(s) => proptest::option::weighted(0.95, body(&doc, &Value::Object(s.clone()))).boxed(),
                None => Just(None).boxed(),
            };
            let raw = proptest::option::weighted(0.05, proptest::sample::select(vec!["{", "not json", "{\"a\":"]));
            let query: Vec<BoxedStrategy<(String, Option<String>)>> = op.spec["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| resolve(&doc, p))
                .filter(|p| p["in"] == "query")
                .map(|p| {
                    let name = p["name"].as_str().unwrap().to_string();
                    proptest::option::weighted(0.8, query_value(&doc, &p["schema"]))
                        .prop_map(move |v| (name.clone(), v))
                        .boxed()
                })
                .collect();
            let fixtures = if op.path.contains("{game_id}") {
                vec![Fixture::Missing, Fixture::EmptyLobby, Fixture::FullLobby, Fixture::Debating, Fixture::Deciding]
            } else {
                vec![Fixture::Missing]
            };
            let weight = if op.request.is_some() || !query.is_empty() { 4 } else { 1 };
            let fixture = proptest::sample::select(fixtures);
            let case = (fixture, proptest::bool::weighted(0.85), 0..5usize, body, raw, query)
                .prop_map(move |(fixture, real_round, token, body, raw_body, query)| Case {
                    op: i,
                    fixture,
                    real_round,
                    token,
                    body,
                    raw_body,
                    query,
                })
                .boxed();
            (weight, case)
        })
        .collect();
    let any_case = proptest::strategy::Union::new_weighted(strategies);

    let arena = Arena::start(ArenaConfig { admin_token: None, max_games: 100_000, rate_limits: UNLIMITED });
    let client = arena.client();
    let cases = std::env::var("ARENA_CONTRACT_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1500);
    // A fixed seed: the same 1500 requests every run, so that the coverage asserted below holds
    // (more and other cases with ARENA_CONTRACT_CASES).
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let statuses = std::cell::RefCell::new(BTreeSet::new());
    runner
        .run(&any_case, |case| {
            let op = &ops[case.op];
            let (game, agents, round) = set_up(&client, case.fixture);
            let round = if case.real_round { round.unwrap_or_else(|| "0000000000000001".into()) } else { "zz".into() };
            let mut url = op.path.replace("{game_id}", &game).replace("{round_id}", &round);
            let query: Vec<(String, String)> = case
                .query
                .iter()
                .filter_map(|(k, v)| {
                    v.as_ref().map(|v| (k.clone(), fill(&json!(v), &agents).as_str().unwrap().to_string()))
                })
                .collect();
            if !query.is_empty() {
                let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))).collect();
                url = format!("{url}?{}", q.join("&"));
            }
            let body = case.body.as_ref().map(|b| fill(b, &agents));
            let text = match (case.raw_body, &body) {
                (Some(raw), _) if op.request.is_some() => raw.to_string(),
                (_, Some(b)) => b.to_string(),
                _ => String::new(),
            };
            let token =
                agents.get(case.token).map(|a| a.token.clone()).or_else(|| (case.token == 3).then(|| "wrong".into()));
            let reply = client.send(op.method, &url, (op.method == "POST").then_some(text.as_str()), token.as_deref());
            let what = format!("{} {url} {text} ({:?}) → {} {}", op.method, case.fixture, reply.status, reply.body);
            statuses.borrow_mut().insert((op.path.clone(), reply.status));

            // The answer is documented, and its body is what the document says.
            let documented = answers[case.op].iter().find(|(s, _)| *s == reply.status);
            let Some((_, schema)) = documented else {
                return Err(TestCaseError::fail(format!("undocumented status: {what}")));
            };
            if let Some(e) = schema.iter_errors(&reply.body).next() {
                return Err(TestCaseError::fail(format!(
                    "the answer breaks its schema ({e} at {}): {what}",
                    e.instance_path()
                )));
            }

            // Negative data: a body or query the schema refuses is refused.
            let body_valid = match (&op.request, case.raw_body, &body) {
                (None, _, _) => true,
                (Some(_), Some(_), _) => false,
                (Some(v), None, Some(b)) => v.is_valid(b),
                (Some(_), None, None) => op.spec["requestBody"]["required"] != true,
            };
            let query_valid = op.spec["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| resolve(&doc, p))
                .filter(|p| p["in"] == "query")
                .all(|p| match query.iter().find(|(k, _)| p["name"] == k.as_str()) {
                    Some((_, raw)) => validator(&doc, &p["schema"]).is_valid(&query_json(raw)),
                    None => p["required"] != true,
                });
            let accepted = (200..300).contains(&reply.status);
            prop_assert!(body_valid || !accepted, "a body the schema refuses was accepted: {what}");
            prop_assert!(query_valid || !accepted, "a query the schema refuses was accepted: {what}");

            // Positive data, where the game's state cannot refuse it.
            let game_exists = case.fixture != Fixture::Missing;
            let must_accept = match (op.method, op.path.as_str()) {
                ("POST", "/api/games") => body_valid,
                ("POST", "/api/games/{game_id}/agents/register") => body_valid && case.fixture == Fixture::EmptyLobby,
                ("GET", "/api/games") => query_valid,
                ("GET", "/api/games/{game_id}/feed") => query_valid && game_exists,
                _ => false,
            };
            prop_assert!(!must_accept || accepted, "a request the schema accepts was refused: {what}");
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    // The run reached every operation, and the refusals as well as the successes.
    let statuses = statuses.into_inner();
    let paths: BTreeSet<&String> = statuses.iter().map(|(p, _)| p).collect();
    assert_eq!(paths.len(), ops.iter().map(|o| &o.path).collect::<BTreeSet<_>>().len(), "{statuses:?}");
    for status in [200, 201, 400, 401, 404, 422] {
        assert!(statuses.iter().any(|(_, s)| *s == status), "no answer {status} in {cases} cases: {statuses:?}");
    }
}
