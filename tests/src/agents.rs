//! The WebAssembly test agents of `tests/agents/` (C sources, no prebuilt binaries), built on
//! first use by `tests/agents/build.sh` with clang and wasm-ld into `target/agents/`, and the
//! WebAssembly text ones compiled by the `wat` crate.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// `target/agents/<name>.wasm`, built from `tests/agents/<name>.c` (every agent is built once
/// per test run).
pub fn agent(name: &str) -> PathBuf {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let out = root.join("target/agents");
        let built = Command::new("sh")
            .arg(root.join("tests/agents/build.sh"))
            .arg(&out)
            .output()
            .map_err(|e| format!("cannot run tests/agents/build.sh: {e}"))?;
        if !built.status.success() {
            return Err(format!(
                "tests/agents/build.sh failed (clang and lld: apt-get install clang lld):\n{}",
                String::from_utf8_lossy(&built.stderr)
            ));
        }
        Ok(out)
    });
    let path = dir.as_ref().unwrap_or_else(|e| panic!("{e}")).join(format!("{name}.wasm"));
    assert!(path.exists(), "no agent {name} in tests/agents/");
    path
}

/// Writes the module of WebAssembly text `wat` to `path`.
pub fn write_wat(path: &std::path::Path, wat: &str) {
    let bytes = wat::parse_str(wat).unwrap_or_else(|e| panic!("the test's WebAssembly text: {e}"));
    std::fs::write(path, bytes).unwrap();
}
