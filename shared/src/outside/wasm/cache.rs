//! [`ModuleCache`]: the modules a process can play, by SHA-256, each checked and compiled once.
//!
//! A module is [`Checked`] before anything plays it: it must validate, import nothing but
//! the seat's random stream (`simfleet.random_u64`, `simfleet.random_fill`), and export the ABI with the right types ([`super::abi`]). The
//! coordinator checks a sweep's modules when it reads the file, so a bad one is refused with
//! its file and reason before anything is published or played; a worker checks a module it
//! fetched, after its hash.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, ExternType, FuncType, Module, ValType};

use super::abi;

/// Why a module cannot be played. Each names what is missing or forbidden.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// Over [`super::MAX_MODULE_BYTES`].
    #[error("the module is {0} bytes; the limit is {max} bytes", max = super::MAX_MODULE_BYTES)]
    TooLarge(usize),
    /// Not a valid WebAssembly module.
    #[error("not a valid WebAssembly module: {0}")]
    Invalid(String),
    /// Imports something other than `simfleet.random_u64` and `simfleet.random_fill`.
    #[error(
        "it imports {0}, which a wasm seat may not (the only imports are simfleet.random_u64: () -> i64 \
         and simfleet.random_fill: (i32, i32) -> ())"
    )]
    ForbiddenImport(String),
    /// Lacks an export of the ABI, or has it with the wrong type.
    #[error("it lacks the export {0} (docs/agents.md, \"WebAssembly agents\")")]
    MissingExport(String),
    /// Its SHA-256 is not the one asked for.
    #[error("its SHA-256 is {got}, not {want}")]
    HashMismatch {
        /// The hash asked for.
        want: String,
        /// The bytes' hash.
        got: String,
    },
}

/// A checked, compiled module.
#[derive(Clone)]
pub struct Checked {
    /// Its SHA-256 (of the bytes as given).
    pub hash: String,
    /// The compiled module (with its mutable globals exported, [`super::globals`]).
    pub module: Module,
    /// The names under which its mutable globals are exported.
    pub globals: Arc<[String]>,
    /// Its byte length.
    pub len: usize,
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checked").field("hash", &self.hash).field("len", &self.len).finish()
    }
}

/// 64 lowercase hex digits of SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The engine every module is compiled for: fuel metering on; NaNs canonical, relaxed SIMD
/// deterministic (no threads: the feature is not built), so that a module computes the same bits on every machine.
pub(super) fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut cfg = wasmtime::Config::new();
        cfg.consume_fuel(true)
            .cranelift_nan_canonicalization(true)
            .relaxed_simd_deterministic(true)
            // A guest's own stack: deep recursion traps (the seat's fault) long before the
            // play thread's stack is at risk.
            .max_wasm_stack(512 << 10);
        Engine::new(&cfg).expect("a valid engine configuration")
    })
}

fn func(params: &[ValType], results: &[ValType]) -> FuncType {
    FuncType::new(engine(), params.iter().cloned(), results.iter().cloned())
}

impl Checked {
    /// Checks and compiles `bytes`.
    pub fn new(bytes: &[u8]) -> Result<Checked, ModuleError> {
        if bytes.len() > super::MAX_MODULE_BYTES {
            return Err(ModuleError::TooLarge(bytes.len()));
        }
        let (rewritten, globals) = super::globals::export_mutable_globals(bytes)?;
        let module = Module::new(engine(), &rewritten).map_err(|e| ModuleError::Invalid(format!("{e:#}")))?;
        let random = func(&[], &[ValType::I64]);
        let fill = func(&[ValType::I32, ValType::I32], &[]);
        for import in module.imports() {
            let want = match import.name() {
                abi::RANDOM => &random,
                abi::RANDOM_FILL => &fill,
                _ => &random,
            };
            let ok = import.module() == abi::IMPORT_MODULE
                && [abi::RANDOM, abi::RANDOM_FILL].contains(&import.name())
                && matches!(import.ty(), ExternType::Func(f) if FuncType::eq(&f, want));
            if !ok {
                return Err(ModuleError::ForbiddenImport(format!("{}.{}", import.module(), import.name())));
            }
        }
        let wants = [
            (abi::BUFFER, func(&[ValType::I32], &[ValType::I32])),
            (abi::INIT, func(&[ValType::I32], &[ValType::I32])),
            (abi::RESET, func(&[ValType::I64], &[])),
            (abi::ACT, func(&[ValType::I32], &[ValType::I64])),
        ];
        for (name, want) in wants {
            match module.get_export(name) {
                Some(ExternType::Func(f)) if FuncType::eq(&f, &want) => {}
                _ => return Err(ModuleError::MissingExport(format!("{name}: {want}"))),
            }
        }
        if !matches!(module.get_export(abi::MEMORY), Some(ExternType::Memory(m)) if !m.is_64() && !m.is_shared()) {
            return Err(ModuleError::MissingExport(format!("{} (a 32-bit memory)", abi::MEMORY)));
        }
        Ok(Checked { hash: sha256_hex(bytes), module, globals: globals.into(), len: bytes.len() })
    }
}

/// The modules this process has checked, by hash.
#[derive(Default)]
pub struct ModuleCache {
    modules: Mutex<HashMap<String, Checked>>,
}

impl ModuleCache {
    /// The process's cache.
    pub fn global() -> &'static ModuleCache {
        static CACHE: OnceLock<ModuleCache> = OnceLock::new();
        CACHE.get_or_init(ModuleCache::default)
    }

    /// The module of `hash`, if this process has it.
    pub fn get(&self, hash: &str) -> Option<Checked> {
        self.modules.lock().unwrap_or_else(|e| e.into_inner()).get(hash).cloned()
    }

    /// Checks `bytes` (against `hash`, when given) and keeps the module: compiled once.
    pub fn insert(&self, bytes: &[u8], hash: Option<&str>) -> Result<Checked, ModuleError> {
        let got = sha256_hex(bytes);
        if let Some(want) = hash.filter(|w| *w != got) {
            return Err(ModuleError::HashMismatch { want: want.to_string(), got });
        }
        if let Some(c) = self.get(&got) {
            return Ok(c);
        }
        let checked = Checked::new(bytes)?;
        self.modules.lock().unwrap_or_else(|e| e.into_inner()).insert(got, checked.clone());
        Ok(checked)
    }
}
