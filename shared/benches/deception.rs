//! Criterion bench of the deception engine (placeholder until the engine lands).
fn main() {}
