//! The minimum Rust version the workspace declares is true: `rust-version` in the root
//! Cargo.toml is at least the highest `rust-version` among the locked dependencies, and README.md
//! names the same version. A dependency update that raises the floor fails here until the
//! declaration (and the README) follow.

use std::process::Command;

use super::session::repo;

/// A `major.minor[.patch]` version, compared numerically.
fn version(s: &str) -> Option<(u32, u32, u32)> {
    let mut parts = s.trim().split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    Some((major, minor, patch))
}

#[test]
fn rust_version_is_at_least_every_locked_dependencys() {
    // The cargo running this test (cargo sets CARGO for what it runs), else the one on PATH.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = repo().join("Cargo.toml");
    let out = Command::new(&cargo)
        .args(["metadata", "--locked", "--format-version", "1", "--manifest-path"])
        .arg(&manifest)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo} metadata: {e}"));
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let members: Vec<&str> =
        meta["workspace_members"].as_array().expect("workspace_members").iter().filter_map(|m| m.as_str()).collect();
    let mut declared = None;
    let mut highest: Option<((u32, u32, u32), String)> = None;
    for p in meta["packages"].as_array().expect("packages") {
        let Some(rv) = p["rust_version"].as_str() else { continue };
        let v = version(rv).unwrap_or_else(|| panic!("{}: rust_version {rv:?}", p["name"]));
        let name = format!("{} {}", p["name"].as_str().unwrap_or("?"), p["version"].as_str().unwrap_or("?"));
        if members.contains(&p["id"].as_str().unwrap_or("")) {
            assert!(declared.is_none_or(|d| d == v), "workspace members declare different rust-versions");
            declared = Some(v);
        } else if highest.as_ref().is_none_or(|(h, _)| v > *h) {
            highest = Some((v, name));
        }
    }
    let declared = declared.expect("the workspace declares rust-version");
    let (floor, by) = highest.expect("some dependency declares a rust-version");
    assert!(
        declared >= floor,
        "rust-version in Cargo.toml is {declared:?}, but {by} needs Rust {floor:?}: raise `rust-version` in the \
         root Cargo.toml and the version README.md names"
    );
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let named = format!("Rust toolchain ({}.{}+)", declared.0, declared.1);
    assert!(readme.contains(&named), "README.md should say {named:?}, the rust-version of Cargo.toml");
}

#[test]
fn versions_compare_numerically() {
    assert!(version("1.89").unwrap() > version("1.88.0").unwrap());
    assert!(version("1.100").unwrap() > version("1.99.9").unwrap());
    assert_eq!(version("x"), None);
}
