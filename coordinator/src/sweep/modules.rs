//! The `wasm:` modules of a sweep file: each seat `wasm:path/to/agent.wasm?…` is read (the path
//! relative to the sweep file), checked, kept in the process's module cache and rewritten to
//! `wasm:<sha256>?label=<label>&…`, the seat jobs carry. So the sweep id includes every
//! module's hash (a changed module is a new sweep), a worker needs nothing but the hash, and a
//! module that fails its check is refused here, with its file and the reason, before anything
//! is published or played.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use simfleet::outside::wasm::{is_hash, ModuleCache, MAX_MODULE_BYTES};
use simfleet::Spec;

/// One module of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepModule {
    /// Its SHA-256, 64 hex digits.
    pub hash: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// Its bytes (what `submit` puts in the object store).
    pub bytes: Arc<[u8]>,
}

/// The modules read so far, by file.
#[derive(Debug, Default)]
pub(super) struct Modules {
    base: PathBuf,
    by_file: IndexMap<PathBuf, SweepModule>,
    /// Each seat rewritten: (as written, as jobs carry it).
    rewrites: Vec<(String, String)>,
}

impl Modules {
    /// Modules named relative to the directory of sweep file `file`.
    pub(super) fn new(file: &str) -> Modules {
        let base = Path::new(file).parent().map(Path::to_path_buf).unwrap_or_default();
        Modules { base, by_file: IndexMap::new(), rewrites: Vec::new() }
    }

    /// `spec` as jobs carry it: a `wasm:` seat rewritten to its module's hash, with its label
    /// (the `label` parameter, else the file's stem) first; any other spec unchanged (`None`).
    pub(super) fn resolve(&mut self, spec: &str) -> Result<Option<String>, String> {
        let Ok(parsed) = Spec::parse(spec) else { return Ok(None) };
        if parsed.name != "wasm" {
            return Ok(None);
        }
        let arg = parsed.arg.clone().unwrap_or_default();
        if is_hash(&arg) && !self.base.join(&arg).exists() {
            // A definition as `submit` stored it: the module must be in this process already
            // (`watch` and `results` fetch a definition's modules from the object store first).
            return match ModuleCache::global().get(&arg) {
                Some(_) => Ok(Some(spec.to_string())),
                None => Err(format!(
                    "module {arg} is not known here: a sweep file names a module's file \
                     (wasm:path/to/agent.wasm), and a stored definition's modules are in the object store"
                )),
            };
        }
        if arg.is_empty() {
            return Err("a wasm seat names its module's file: wasm:path/to/agent.wasm[?label=name&key=value]".into());
        }
        let file = self.base.join(&arg);
        let module = match self.by_file.get(&file) {
            Some(m) => m.clone(),
            None => {
                let m = read(&file).map_err(|why| format!("{}: {why}", file.display()))?;
                self.by_file.insert(file.clone(), m.clone());
                m
            }
        };
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let label = parsed.get("label").map_or(stem, str::to_string);
        let mut params = vec![("label".to_string(), label)];
        params.extend(parsed.params.iter().filter(|(k, _)| k != "label").cloned());
        let canonical = Spec { name: "wasm".into(), arg: Some(module.hash), params }.to_string();
        self.rewrites.push((spec.to_string(), canonical.clone()));
        Ok(Some(canonical))
    }

    /// Every module read, in first-use order, and every seat rewritten.
    pub(super) fn into_parts(self) -> (Vec<SweepModule>, Vec<(String, String)>) {
        (self.by_file.into_values().collect(), self.rewrites)
    }
}

/// `text` (the sweep file) with each `wasm:` seat's string, quoted as written, replaced by the
/// seat as jobs carry it: the definition `submit` stores, which names modules by hash only, so
/// that `watch` and `results` read it on any machine (after fetching its modules).
pub fn portable_definition(text: &str, rewrites: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (written, canonical) in rewrites {
        for q in ['"', '\''] {
            out = out.replace(&format!("{q}{written}{q}"), &format!("\"{canonical}\""));
        }
    }
    out
}

/// The module hashes a stored definition names (`wasm:<64 hex>`), each once.
pub fn hashes_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .match_indices("wasm:")
        .filter_map(|(i, m)| text.get(i + m.len()..i + m.len() + 64))
        .filter(|h| is_hash(h))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Reads and checks one module file.
fn read(file: &Path) -> Result<SweepModule, String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("cannot read the module: {e}"))?;
    if meta.len() > MAX_MODULE_BYTES as u64 {
        return Err(format!("the module is {} bytes; the limit is {MAX_MODULE_BYTES}", meta.len()));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read the module: {e}"))?;
    let checked = ModuleCache::global().insert(&bytes, None).map_err(|e| e.to_string())?;
    Ok(SweepModule { hash: checked.hash, file: file.to_path_buf(), bytes: bytes.into() })
}

/// Adds the `modules` stat to the records of `result` when its cell has `wasm:` seats: per such
/// seat, the entry's label and its module's SHA-256 (`{"<seat>": {"label": …, "sha256": …}}`).
/// The workers' records are the engine's (a port's, the native policy's byte for byte); the
/// rows a results file gets name the modules that played them.
pub fn stamp(sweep: &super::Sweep, result: &mut simfleet::protocol::JobResult) {
    let game = result.game.parse().ok();
    let cells = sweep.find_cell(game, &result.scenario, &result.policy_set);
    let Some(cell) = cells.first() else { return };
    let entries: serde_json::Map<String, serde_json::Value> = cell
        .policy_set
        .seats
        .iter()
        .enumerate()
        .filter_map(|(seat, spec)| {
            let parsed = Spec::parse(spec).ok().filter(|s| s.name == "wasm")?;
            let label = parsed.get("label").unwrap_or_default().to_string();
            Some((seat.to_string(), serde_json::json!({"label": label, "sha256": parsed.arg})))
        })
        .collect();
    if entries.is_empty() {
        return;
    }
    // One value for every record: typed stats stay typed (`Stats::add`).
    let entries = std::sync::Arc::new(serde_json::Value::Object(entries));
    for record in &mut result.records {
        record.stats.add(super::MODULES_STAT, entries.clone());
    }
}
