//! A module's mutable globals, exported: the host resets them with its memory before every
//! episode ([`super::instance`]), so that nothing an episode leaves behind reaches the next
//! one, even state a module keeps where the embedding API cannot see it (a C module's stack
//! pointer is a global it does not export). The rewrite adds exports and changes nothing else:
//! every other section is copied byte for byte.

use std::ops::Range;

use wasm_encoder::{ExportKind, ExportSection, RawSection};
use wasmparser::{Encoding, ExternalKind, Parser, Payload, TypeRef};

use super::ModuleError;

/// The export name of defined global `index`.
fn name(index: u32) -> String {
    format!("simfleet:global:{index}")
}

fn invalid(e: wasmparser::BinaryReaderError) -> ModuleError {
    ModuleError::Invalid(e.to_string())
}

/// `bytes` with every mutable global exported, and those exports' names.
pub(super) fn export_mutable_globals(bytes: &[u8]) -> Result<(Vec<u8>, Vec<String>), ModuleError> {
    let mut out = wasm_encoder::Module::new();
    let (mut imported, mut mutable) = (0u32, Vec::new());
    let mut exported = false;
    let raw = |out: &mut wasm_encoder::Module, id: u8, range: Range<usize>| {
        out.section(&RawSection { id, data: &bytes[range] });
    };
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(invalid)?;
        match &payload {
            Payload::Version { encoding: Encoding::Component, .. } => {
                return Err(ModuleError::Invalid("a component, not a core module".into()));
            }
            Payload::ImportSection(r) => {
                for import in r.clone().into_imports() {
                    if matches!(import.map_err(invalid)?.ty, TypeRef::Global(_)) {
                        imported += 1;
                    }
                }
            }
            Payload::GlobalSection(r) => {
                for (i, g) in r.clone().into_iter().enumerate() {
                    if g.map_err(invalid)?.ty.mutable {
                        mutable.push(imported + i as u32);
                    }
                }
            }
            Payload::ExportSection(r) => {
                let mut section = ExportSection::new();
                for e in r.clone() {
                    let e = e.map_err(invalid)?;
                    let kind = match e.kind {
                        ExternalKind::Func | ExternalKind::FuncExact => ExportKind::Func,
                        ExternalKind::Table => ExportKind::Table,
                        ExternalKind::Memory => ExportKind::Memory,
                        ExternalKind::Global => ExportKind::Global,
                        ExternalKind::Tag => ExportKind::Tag,
                    };
                    section.export(e.name, kind, e.index);
                }
                for &g in &mutable {
                    section.export(&name(g), ExportKind::Global, g);
                }
                out.section(&section);
                exported = true;
                continue;
            }
            _ => {}
        }
        if let Some((id, range)) = payload.as_section() {
            raw(&mut out, id, range);
        }
    }
    if !exported {
        // No exports at all: the ABI check names the first one missing.
        return Ok((bytes.to_vec(), Vec::new()));
    }
    Ok((out.finish(), mutable.into_iter().map(name).collect()))
}
