//! The OpenAPI document: served equal to docs/arena.openapi.json, every route listed, every
//! response conforming to its schema.

use std::collections::BTreeSet;

use coordinator::arena::{self};
use serde_json::{json, Value};

use super::client::*;

#[test]
fn the_served_openapi_document_is_the_file_and_lists_every_route() {
    let arena = Arena::open();
    let client = arena.client();
    let served = client
        .agent
        .get(format!("{}/api/openapi.json", client.base))
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap();
    let file = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/arena.openapi.json")).unwrap();
    assert!(served == file, "GET /api/openapi.json differs from docs/arena.openapi.json");
    let doc: Value = serde_json::from_str(&file).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let routes: BTreeSet<(String, String)> =
        arena::routes().into_iter().map(|(m, p)| (m.as_str().to_lowercase(), p.to_string())).collect();
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, ops)| ops.as_object().unwrap().keys().map(move |m| (m.clone(), path.clone())))
        .collect();
    assert_eq!(routes, documented);
    assert_eq!(client.get("/health").ok(200), json!({ "status": "ok" }));
}

/// Checks `value` against an OpenAPI schema of `doc` (the subset the document uses: `$ref`,
/// `anyOf`, `allOf`, `const`, `enum`, `type`, `properties`/`required`/`additionalProperties`,
/// `items`).
pub(super) fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap();
        return conforms(doc, &doc["components"]["schemas"][name], value, &format!("{at}<{name}>"));
    }
    if let Some(any) = schema["anyOf"].as_array() {
        if !any.iter().any(|s| conforms(doc, s, value, at).is_ok()) {
            return Err(format!("{at}: {value} matches no anyOf branch"));
        }
    }
    for s in schema["allOf"].as_array().into_iter().flatten() {
        conforms(doc, s, value, at)?;
    }
    if !schema["const"].is_null() && schema["const"] != *value {
        return Err(format!("{at}: {value} is not {}", schema["const"]));
    }
    if let Some(options) = schema["enum"].as_array() {
        if !options.contains(value) {
            return Err(format!("{at}: {value} not in {options:?}"));
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let is = |t: &str| match t {
        "null" => value.is_null(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| is(t)) {
        return Err(format!("{at}: {value} is not {types:?}"));
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), value.as_object()) {
        for key in schema["required"].as_array().into_iter().flatten() {
            if !obj.contains_key(key.as_str().unwrap()) {
                return Err(format!("{at}: missing {key}"));
            }
        }
        for (k, v) in obj {
            match props.get(k) {
                Some(s) => conforms(doc, s, v, &format!("{at}.{k}"))?,
                None if schema["additionalProperties"] == false => return Err(format!("{at}: undocumented {k}")),
                None => {}
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, v) in list.iter().enumerate() {
            conforms(doc, items, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn every_response_matches_its_openapi_schema() {
    let doc: Value = serde_json::from_str(include_str!("../../../docs/arena.openapi.json")).unwrap();
    let arena = Arena::open();
    let client = arena.client();
    let mut seen = Vec::new();
    let mut expect = |name: &str, value: Value| {
        let schema = json!({ "$ref": format!("#/components/schemas/{name}") });
        if let Err(e) = conforms(&doc, &schema, &value, name) {
            panic!("{e}\nin {value:#}");
        }
        seen.push(name.to_string());
    };
    let created =
        client.post("/api/games", json!({ "round_pause_seconds": 0, "minority_size": 1, "seed": "42" })).ok(201);
    assert_eq!(created["seed"], "42");
    let g = created["game_id"].as_str().unwrap().to_string();
    expect("Game", created);
    let reg = client.post(&format!("/api/games/{g}/agents/register"), json!({ "display_name": "Ann" })).ok(201);
    let mut players =
        vec![Player { id: reg["agent_id"].as_str().unwrap().into(), token: reg["token"].as_str().unwrap().into() }];
    expect("Registered", reg);
    for name in ["Bob", "Cy", "Di"] {
        players.push(client.register(&g, name));
    }
    expect("Started", client.post(&format!("/api/games/{g}/start"), json!({})).ok(200));
    let detail = client.get(&format!("/api/games/{g}")).ok(200);
    assert_eq!(ids(&detail["agents"]), players.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
    expect("GameDetail", detail);
    let s = client.state(&g);
    expect("State", s.clone());
    let who = |id: &str| players.iter().find(|p| p.id == id).unwrap().clone();
    let (round, op) = (s["round_id"].as_str().unwrap().to_string(), who(s["operator"]["agent_id"].as_str().unwrap()));
    let sides: Vec<Player> = [ids(&s["majority"]), ids(&s["minority"])].concat().iter().map(|id| who(id)).collect();
    let at = |what: &str| format!("/api/games/{g}/rounds/{round}/{what}");
    expect("OpenActions", client.get(&format!("/api/games/{g}/open-actions?agent_id={}", sides[0].id)).ok(200));
    let refused = client.post(&at("skip"), json!({ "agent_id": sides[0].id }));
    assert_eq!(refused.status, 401);
    expect("Error", refused.body);
    let argued =
        client.post_as(&sides[0].token, &at("arguments"), json!({ "agent_id": sides[0].id, "text": "save us" }));
    expect("ArgumentAccepted", argued.ok(201));
    expect("SkipAccepted", client.post_as(&sides[1].token, &at("skip"), json!({ "agent_id": sides[1].id })).ok(200));
    expect("Advanced", client.admin(&g, None, json!({ "action": "next_phase" })).ok(200));
    client.admin(&g, None, json!({})).ok(200);
    client.admin(&g, None, json!({})).ok(200);
    expect("OpenActions", client.get(&format!("/api/games/{g}/open-actions?agent_id={}", op.id)).ok(200));
    let decided = client.post_as(&op.token, &at("decision"), json!({ "agent_id": op.id, "decision": "save_minority" }));
    expect("DecisionAccepted", decided.ok(200));
    let s = client.state(&g);
    assert_eq!(s["round_number"], 2, "a pause of 0 starts the next round in the deciding request");
    expect("State", s);
    expect("History", client.get(&format!("/api/games/{g}/history")).ok(200));
    expect("Scoreboard", client.get(&format!("/api/games/{g}/scoreboard")).ok(200));
    expect("FeedPage", client.get(&format!("/api/games/{g}/feed?limit=200")).ok(200));
    expect("GameList", client.get("/api/games").ok(200));
    expect("Health", client.get("/health").ok(200));
    let documented: BTreeSet<&str> =
        doc["components"]["schemas"].as_object().unwrap().keys().map(String::as_str).collect();
    let requests =
        ["CreateGameRequest", "RegisterRequest", "ArgumentRequest", "SkipRequest", "DecisionRequest", "AdvanceRequest"];
    let vocab = [
        "GameStatus",
        "Phase",
        "Role",
        "Side",
        "Decision",
        "SkipCause",
        "GameConfig",
        "AgentLine",
        "Person",
        "SideMember",
        "RoundOutcome",
        "ScoreLine",
        "CoverageLine",
        "FeedItem",
        "ArgumentLine",
        "SkipLine",
        "RoundRecord",
        "ScoreEntry",
    ];
    let covered: BTreeSet<&str> = seen.iter().map(String::as_str).chain(requests).chain(vocab).collect();
    assert_eq!(covered, documented, "every response schema is checked against a real response");
}
