//! Criterion bench of the trolley engine (placeholder until the engine lands).
fn main() {}
