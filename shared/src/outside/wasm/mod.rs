//! `wasm:` seats: sandboxed WebAssembly agents (docs/agents.md, "WebAssembly agents").
//!
//! A sweep names a module by its file (`wasm:agents/ff.wasm?label=ff&key=value`); the
//! coordinator reads it, checks it ([`Checked`]) and rewrites the seat to the module's SHA-256
//! (`wasm:<64 hex>?label=ff&key=value`), which is what jobs, records' policy columns and the
//! sweep id carry. A process plays a `wasm:` seat from its [`ModuleCache`]: `coordinator run`
//! fills it from the sweep's files, a worker from the JetStream object store (fetched once,
//! its hash checked), and each module is compiled once per process.
//!
//! The ABI is a core module exchanging MessagePack through its own memory ([`abi`]): the same
//! observation and action JSON as the Python API, in any language, with one import, the seat's
//! random stream. Limits are deterministic: fuel (instructions) per call and a memory cap
//! ([`Limits`]); a module that runs out, traps or overflows its memory *faults*: that decision
//! and the rest of the seat's episode are the game's fallback, counted in the record's
//! `outside` stat, and the next episode starts on a fresh instance.

use crate::protocol::JobError;
use crate::spec::Spec;

pub mod abi;
mod cache;
mod globals;
mod instance;
mod snapshot;

pub use cache::{sha256_hex, Checked, ModuleCache, ModuleError};
pub use instance::WasmTransport;

/// Fuel per call when the seat does not say: about 10⁸ WebAssembly instructions, a tenth of a
/// second or so: far above what a policy needs, low enough that a loop costs little.
pub const DEFAULT_FUEL: u64 = 100_000_000;
/// Memory per instance when the seat does not say: 16 MiB.
pub const DEFAULT_MEMORY_MB: u64 = 16;
/// The most memory a seat may ask for: 1 GiB (wasm32 could address 4).
pub const MAX_MEMORY_MB: u64 = 1024;
/// The largest module accepted: 16 MiB (compiling is the one cost not bounded by fuel).
pub const MAX_MODULE_BYTES: usize = 16 << 20;

/// A seat's parameters that the host reads; every other `?key=value` goes to the module.
pub const RESERVED: [&str; 3] = ["label", "fuel", "memory_mb"];

/// A module's limits, per seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Fuel given to each call (`init`, `reset`, `act`).
    pub fuel: u64,
    /// The cap on the instance's linear memory, in bytes.
    pub memory: usize,
}

/// A parsed `wasm:<sha256>?…` seat, as jobs carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WasmSeat {
    /// The seat.
    pub seat: usize,
    /// The spec as written.
    pub spec: String,
    /// The module's SHA-256, 64 lowercase hex digits.
    pub hash: String,
    /// The entry's name in tables (`label`, else the hash's first 12 digits).
    pub label: String,
    /// Its limits.
    pub limits: Limits,
    /// The parameters the module gets, as strings.
    pub params: Vec<(String, String)>,
}

/// Whether `s` is a module hash: 64 lowercase hex digits.
pub fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl WasmSeat {
    /// Parses seat `seat`'s spec; errors name `policy_set[<seat>]` or its parameter.
    pub fn parse(seat: usize, spec: &Spec) -> Result<WasmSeat, JobError> {
        let field = || format!("policy_set[{seat}]");
        let hash = spec.arg.clone().unwrap_or_default();
        if !is_hash(&hash) {
            return Err(JobError::invalid(
                field(),
                spec,
                "a wasm seat in a job is wasm:<sha256 of the module>; a sweep file names the module's \
                 file (wasm:path/to/agent.wasm), which the coordinator reads",
            ));
        }
        let number = |key: &str, default: u64, max: u64| -> Result<u64, JobError> {
            match spec.get(key) {
                None => Ok(default),
                Some(v) => v.parse::<u64>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
                    JobError::invalid(format!("policy_set[{seat}].{key}"), v, format!("an integer in 1..={max}"))
                }),
            }
        };
        let limits = Limits {
            fuel: number("fuel", DEFAULT_FUEL, u64::MAX)?,
            memory: (number("memory_mb", DEFAULT_MEMORY_MB, MAX_MEMORY_MB)? << 20) as usize,
        };
        Ok(WasmSeat {
            seat,
            spec: spec.to_string(),
            label: spec.get("label").map_or_else(|| hash[..12].to_string(), str::to_string),
            hash,
            limits,
            params: spec.params.iter().filter(|(k, _)| !RESERVED.contains(&k.as_str())).cloned().collect(),
        })
    }
}

/// The label of a policy spec string in tables: a `wasm:` seat's `label` (else `wasm:` and its
/// hash's first 12 digits); any other spec as written.
pub fn label(spec: &str) -> Option<String> {
    let parsed = Spec::parse(spec).ok().filter(|s| s.name == "wasm")?;
    let arg = parsed.arg.as_deref().unwrap_or("");
    Some(match parsed.get("label") {
        Some(l) => format!("wasm:{l}"),
        None => format!("wasm:{}", &arg[..arg.len().min(12)]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn seats_parse_with_defaults_and_reserved_keys() {
        let spec = Spec::parse(&format!("wasm:{H}?label=ff&archetype=hero&fuel=1000")).unwrap();
        let s = WasmSeat::parse(2, &spec).unwrap();
        assert_eq!(s.label, "ff");
        assert_eq!(s.limits, Limits { fuel: 1000, memory: 16 << 20 });
        assert_eq!(s.params, vec![("archetype".to_string(), "hero".to_string())]);
        let e = WasmSeat::parse(1, &Spec::parse("wasm:agents/a.wasm").unwrap()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("policy_set[1]"));
        let e = WasmSeat::parse(0, &Spec::parse(&format!("wasm:{H}?memory_mb=4096")).unwrap()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("policy_set[0].memory_mb"));
        assert_eq!(label(&format!("wasm:{H}")).as_deref(), Some("wasm:0123456789ab"));
        assert_eq!(label(&format!("wasm:{H}?label=x")).as_deref(), Some("wasm:x"));
        assert_eq!(label("random"), None);
    }
}
