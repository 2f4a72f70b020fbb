//! Criterion bench of the cogsguard engine (placeholder until the engine lands).
fn main() {}
