//! Documentation that cannot drift.
//!
//! * Every command block of README.md and docs/*.md runs, in order, in a work directory of its
//!   own ([`session`]); where the doc shows output (`console` blocks) the output is compared
//!   ([`expected`]). A block that needs what a test run does not have (a cluster, Docker, a
//!   registry, a placeholder to fill in) carries a visible `<!-- doc-test: skip … -->` marker,
//!   and a long one may run scaled down, also by a marker ([`markdown`] lists the directives).
//!   Relative links must name files that exist ([`links`]).
//! * The example sweeps state their cells, episodes and jobs ([`examples`]); docs/sweeps.md's
//!   scenario field tables are what `coordinator list` shows ([`fields`]); README.md's
//!   games table lists every policy ([`policies`]); docs/metrics.md is what the binaries serve
//!   ([`metrics`]); docs/protocol.md names every field on the wire ([`protocol`]); the declared
//!   minimum Rust version covers the locked dependencies ([`toolchain`]).
//!
//! The blocks run the suite's debug build of `coordinator` and `worker` (build it first, as
//! scripts/test does); none compiles anything.

mod examples;
mod expected;
mod fields;
mod links;
mod markdown;
pub(crate) mod metrics;
mod policies;
mod protocol;
mod session;
mod toolchain;

use session::run_doc;

/// Every document whose commands run: README.md and each page of docs/.
const DOCS: [&str; 12] = [
    "README.md",
    "docs/README.md",
    "docs/agents.md",
    "docs/determinism.md",
    "docs/kubernetes.md",
    "docs/llm.md",
    "docs/metrics.md",
    "docs/protocol.md",
    "docs/python.md",
    "docs/records.md",
    "docs/sweeps.md",
    "docs/topology.md",
];

#[test]
fn every_page_of_docs_is_run() {
    let mut pages: Vec<String> = std::fs::read_dir(session::repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    let listed: Vec<String> = DOCS.iter().filter(|d| d.starts_with("docs/")).map(|d| d.to_string()).collect();
    assert_eq!(pages, listed, "add each page of docs/ to DOCS and give it a test below");
}

#[test]
fn readme_commands_run() {
    run_doc("README.md").assert_ok("README.md");
}

#[test]
fn docs_readme_commands_run() {
    run_doc("docs/README.md").assert_ok("docs/README.md");
}

#[test]
fn determinism_commands_run() {
    run_doc("docs/determinism.md").assert_ok("docs/determinism.md");
}

#[test]
fn kubernetes_commands_run() {
    run_doc("docs/kubernetes.md").assert_ok("docs/kubernetes.md");
}

#[test]
fn agents_commands_run() {
    run_doc("docs/agents.md").assert_ok("docs/agents.md");
}

#[test]
fn python_commands_run() {
    run_doc("docs/python.md").assert_ok("docs/python.md");
}

#[test]
fn llm_commands_run() {
    run_doc("docs/llm.md").assert_ok("docs/llm.md");
}

#[test]
fn metrics_commands_run() {
    run_doc("docs/metrics.md").assert_ok("docs/metrics.md");
}

#[test]
fn protocol_commands_run() {
    run_doc("docs/protocol.md").assert_ok("docs/protocol.md");
}

#[test]
fn records_commands_run() {
    run_doc("docs/records.md").assert_ok("docs/records.md");
}

#[test]
fn sweeps_commands_run() {
    run_doc("docs/sweeps.md").assert_ok("docs/sweeps.md");
}

#[test]
fn topology_commands_run() {
    run_doc("docs/topology.md").assert_ok("docs/topology.md");
}
