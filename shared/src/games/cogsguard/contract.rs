//! The agent contract of `cogsguard` (docs/agents.md, "cogsguard"): the observation of §12 as
//! the JSON of its Gymnasium space, and an action back. Every outside seat (a `python:` seat's
//! host, a Python environment's `"agent"` seat) sees exactly this.
//!
//! Codes that fit a byte are plain lists (`uint8` arrays); wider counters are
//! `{"dtype": "uint16" | "uint32", "data": [...]}` (docs/agents.md, "The host protocol"). The
//! window keys are 11×11 arrays: row i, column j shows map cell (row − 5 + i, col − 5 + j). The
//! action is an action id, 0..=11 (§6: noop, the four moves, change_vibe, …).

use serde_json::{json, Value};

use super::obs::{Observation, VIEW};
use super::types::action;

fn wide(dtype: &str, data: Value) -> Value {
    json!({"dtype": dtype, "data": data})
}

fn window<T: serde::Serialize>(obs: &Observation, f: impl Fn(&super::obs::Cell) -> T) -> Value {
    let rows: Vec<Vec<T>> = obs.cells.iter().map(|row| row.iter().map(&f).collect()).collect();
    debug_assert_eq!(rows.len(), VIEW);
    json!(rows)
}

/// The observation as the contract's JSON.
pub fn encode(obs: &Observation) -> Value {
    json!({
        "seat": [obs.agent_id],
        "time": wide("uint32", json!([obs.step, obs.max_steps])),
        "position": wide("uint16", json!([obs.pos.0, obs.pos.1, obs.map_rows, obs.map_cols])),
        "last_action": [obs.last_action],
        "last_ok": [u8::from(obs.last_ok)],
        "body": wide("uint16", json!([
            obs.energy, obs.hp, obs.influence, obs.heart,
            obs.energy_cap, obs.hp_cap, obs.influence_cap, obs.cargo_cap,
        ])),
        "cargo": wide("uint16", json!(obs.cargo)),
        "gear": [obs.gear],
        "vibe": [obs.vibe],
        "pool": wide("uint32", json!([obs.pool[0], obs.pool[1], obs.pool[2], obs.pool[3], obs.pool_hearts])),
        "team_vibes": obs.team_vibes,
        "kind": window(obs, |c| c.kind),
        "align": window(obs, |c| c.align),
        "agent": window(obs, |c| u8::from(c.agent)),
        "agent_vibe": window(obs, |c| c.agent_vibe),
        "agent_gear": window(obs, |c| c.agent_gear),
        "amount": wide("uint16", window(obs, |c| c.amount)),
    })
}

/// The observation as MessagePack: the bytes of [`encode`]'s JSON encoded by `rmp_serde`
/// (`the_messagepack_observation_is_its_json`), written directly: an outside seat is asked
/// every tick, and a `wasm:` module reads these bytes.
pub fn write(out: &mut Vec<u8>, obs: &Observation) {
    use crate::msgpack::{array_len, map_len, str, uint};
    fn list<T: Copy + Into<u64>>(out: &mut Vec<u8>, v: &[T]) {
        array_len(out, v.len());
        v.iter().for_each(|&x| uint(out, x.into()));
    }
    fn wide<T: Copy + Into<u64>>(out: &mut Vec<u8>, dtype: &str, v: &[T]) {
        map_len(out, 2);
        str(out, "dtype");
        str(out, dtype);
        str(out, "data");
        list(out, v);
    }
    fn window<T: Into<u64>>(out: &mut Vec<u8>, obs: &Observation, f: impl Fn(&super::obs::Cell) -> T) {
        array_len(out, VIEW);
        for row in &obs.cells {
            array_len(out, VIEW);
            row.iter().for_each(|c| uint(out, f(c).into()));
        }
    }
    out.clear();
    map_len(out, 17);
    str(out, "seat");
    list(out, &[obs.agent_id]);
    str(out, "time");
    wide(out, "uint32", &[obs.step, obs.max_steps]);
    str(out, "position");
    wide(out, "uint16", &[obs.pos.0, obs.pos.1, obs.map_rows, obs.map_cols]);
    str(out, "last_action");
    list(out, &[obs.last_action]);
    str(out, "last_ok");
    list(out, &[u8::from(obs.last_ok)]);
    str(out, "body");
    let body =
        [obs.energy, obs.hp, obs.influence, obs.heart, obs.energy_cap, obs.hp_cap, obs.influence_cap, obs.cargo_cap];
    wide(out, "uint16", &body);
    str(out, "cargo");
    wide(out, "uint16", &obs.cargo);
    str(out, "gear");
    list(out, &[obs.gear]);
    str(out, "vibe");
    list(out, &[obs.vibe]);
    str(out, "pool");
    wide(out, "uint32", &[obs.pool[0], obs.pool[1], obs.pool[2], obs.pool[3], obs.pool_hearts]);
    str(out, "team_vibes");
    list(out, &obs.team_vibes);
    str(out, "kind");
    window(out, obs, |c| c.kind);
    str(out, "align");
    window(out, obs, |c| c.align);
    str(out, "agent");
    window(out, obs, |c| u8::from(c.agent));
    str(out, "agent_vibe");
    window(out, obs, |c| c.agent_vibe);
    str(out, "agent_gear");
    window(out, obs, |c| c.agent_gear);
    str(out, "amount");
    map_len(out, 2);
    str(out, "dtype");
    str(out, "uint16");
    str(out, "data");
    window(out, obs, |c| c.amount);
}

/// An action id as the contract's JSON.
pub fn encode_action(id: u8) -> Value {
    json!(id)
}

/// The action id `answer` gives (an integer, or a one-element list, in 0..=11); `None` when it
/// is not one.
pub fn decode(answer: &Value) -> Option<u8> {
    let v = match answer {
        Value::Array(a) if a.len() == 1 => &a[0],
        v => v,
    };
    v.as_u64().filter(|id| *id < u64::from(action::COUNT)).map(|id| id as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_ids_round_trip_and_others_are_refused() {
        for id in 0..action::COUNT {
            assert_eq!(decode(&encode_action(id)), Some(id));
        }
        assert_eq!(decode(&json!([3])), Some(3));
        for bad in [json!(12), json!(-1), json!("noop"), json!([1, 2]), json!(null), json!(1.5)] {
            assert_eq!(decode(&bad), None, "{bad}");
        }
    }

    #[test]
    fn the_messagepack_observation_is_its_json() {
        let mut obs = Observation { step: 70_000, max_steps: 100_000, energy: 300, agent_id: 3, ..Default::default() };
        obs.cells[2][7].amount = 1000;
        obs.cells[5][5].agent = true;
        obs.pool = [0, 127, 128, 70_000];
        let mut bytes = Vec::new();
        write(&mut bytes, &obs);
        assert_eq!(bytes, rmp_serde::to_vec(&encode(&obs)).unwrap());
    }

    #[test]
    fn the_window_is_eleven_by_eleven() {
        let v = encode(&Observation::default());
        for key in ["kind", "align", "agent", "agent_vibe", "agent_gear"] {
            let rows = v[key].as_array().unwrap();
            assert_eq!(rows.len(), VIEW);
            assert!(rows.iter().all(|r| r.as_array().unwrap().len() == VIEW), "{key}");
        }
        assert_eq!(v["amount"]["data"].as_array().unwrap().len(), VIEW);
    }
}
