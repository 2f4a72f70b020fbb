//! The ABI of a `wasm:` module (docs/agents.md, "WebAssembly agents"): a core WebAssembly
//! module that exchanges MessagePack with the host through its own memory.
//!
//! Why this ABI: a core module is what every toolchain emits (C, Rust, Zig, AssemblyScript,
//! hand-written text) with no generated bindings, and MessagePack carries the agent contract's
//! JSON as it is, for every game, so the WebAssembly API is the Python API byte for byte
//! (the component model's WIT would need a world per game and a toolchain few have). The
//! host writes inputs into a buffer the module lends; the module answers with a pointer and a
//! length, so nothing is allocated across the boundary.
//!
//! Exports: `memory`; `simfleet_buffer(len: i32) -> i32`, the address of `len` writable bytes
//! for the next input; `simfleet_init(len: i32) -> i32`, once per instance, input
//! `{"game", "seat", "params"}`, 0 to accept; `simfleet_reset(seed: i64)`, at every episode's
//! start with the seat's seed; `simfleet_act(len: i32) -> i64`, input the observation,
//! result `(address << 32) | length` of the answer. The host asks for a buffer again only for
//! an input longer than the last one it got: the address stays valid for the instance's life.
//! Imports: at most `simfleet.random_u64: () -> i64`, the next word of the seat's own stream
//! (the one a built-in policy in the seat draws from), and `simfleet.random_fill(address: i32,
//! count: i32)`, its next `count` words (little-endian) at once, for a module that buffers its
//! draws (a call into the host costs far more than a draw); nothing else.

use serde_json::Value;

/// The memory export.
pub const MEMORY: &str = "memory";
/// `simfleet_buffer(len: i32) -> i32`.
pub const BUFFER: &str = "simfleet_buffer";
/// `simfleet_init(len: i32) -> i32`.
pub const INIT: &str = "simfleet_init";
/// `simfleet_reset(seed: i64)`.
pub const RESET: &str = "simfleet_reset";
/// `simfleet_act(len: i32) -> i64`.
pub const ACT: &str = "simfleet_act";
/// The import module.
pub const IMPORT_MODULE: &str = "simfleet";
/// `random_u64: () -> i64`.
pub const RANDOM: &str = "random_u64";
/// `random_fill: (address: i32, count: i32) -> ()`.
pub const RANDOM_FILL: &str = "random_fill";
/// The most words one `random_fill` gives.
pub const MAX_FILL_WORDS: usize = 4096;

/// The largest answer read back: 1 MiB (a longer one is the module's fault).
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// A JSON value as the module reads it: MessagePack, integers in their shortest form.
pub fn encode(value: &Value) -> Vec<u8> {
    rmp_serde::to_vec(value).expect("JSON values always encode")
}

/// A module's answer as JSON; `None` when it is not MessagePack (an illegal answer). The
/// commonest answers, a small code or a short list of them, are read directly (a decision's
/// answer is decoded every decision); the same values as the general decoder's.
pub fn decode(bytes: &[u8]) -> Option<Value> {
    match bytes {
        [b] if *b < 0x80 => Some(Value::from(*b)),
        [h, codes @ ..]
            if h & 0xf0 == 0x90 && codes.len() == usize::from(h & 0x0f) && codes.iter().all(|b| *b < 0x80) =>
        {
            Some(Value::Array(codes.iter().map(|&b| Value::from(b)).collect()))
        }
        _ => rmp_serde::from_slice(bytes).ok(),
    }
}

/// A module's answer as codes ([`crate::outside::Transport::act_codes`]): the commonest, a
/// fixarray of positive fixints, read directly; any other through [`decode`], so both read
/// what the JSON answer holds.
pub fn decode_codes(bytes: &[u8], codes: &mut [Option<u64>]) -> Option<usize> {
    match bytes {
        [h, list @ ..] if h & 0xf0 == 0x90 && list.len() == usize::from(h & 0x0f) && list.iter().all(|b| *b < 0x80) => {
            let out = codes.get_mut(..list.len())?;
            for (c, b) in out.iter_mut().zip(list) {
                *c = Some(u64::from(*b));
            }
            Some(list.len())
        }
        _ => crate::outside::transport::codes_of(&decode(bytes)?, codes),
    }
}

/// The input of `simfleet_init`.
pub fn init_message(game: &str, seat: usize, params: &[(String, String)]) -> Vec<u8> {
    let params: serde_json::Map<String, Value> =
        params.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
    encode(&serde_json::json!({"game": game, "seat": seat, "params": params}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_integers_are_positive_fixints_and_answers_round_trip() {
        assert_eq!(encode(&json!([0, 1, 200])), vec![0x93, 0x00, 0x01, 0xcc, 200]);
        assert_eq!(decode(&encode(&json!({"a": [1, 2], "b": "x"}))), Some(json!({"a": [1, 2], "b": "x"})));
        assert_eq!(decode(&[0xc1]), None);
        for answer in [json!(7), json!([1, 4, 1]), json!([]), json!([0, 127]), json!([1, 200]), json!(300)] {
            let bytes = encode(&answer);
            assert_eq!(decode(&bytes), rmp_serde::from_slice::<Value>(&bytes).ok(), "{answer}");
            assert_eq!(decode(&bytes), Some(answer));
        }
    }

    #[test]
    fn codes_are_the_json_answers_integers() {
        let answers = [
            json!([1, 4, 1]),
            json!([0, 200, 70000]),
            json!([1, 2]),
            json!([1, 2, 3, 4]),
            json!([1, -1, 0]),
            json!([1, 1.5, 0]),
            json!([1, "a", 0]),
            json!([]),
            json!(3),
            json!({"a": 1}),
        ];
        for answer in answers {
            let bytes = encode(&answer);
            let (mut a, mut b) = ([None; 3], [None; 3]);
            let got = decode_codes(&bytes, &mut a);
            let want = crate::outside::transport::codes_of(&answer, &mut b);
            assert_eq!(got, want, "{answer}");
            if let Some(n) = got {
                assert_eq!(a[..n], b[..n], "{answer}");
            }
        }
        assert_eq!(decode_codes(&[0x93, 1, 2], &mut [None; 3]), None, "a short array is no answer");
        let mut codes = [None; 3];
        assert_eq!(decode_codes(&encode(&json!([1, null, 2.5])), &mut codes), Some(3));
        assert_eq!(codes, [Some(1), None, None], "an entry that is not a code is None");
    }
}
