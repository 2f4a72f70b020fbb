//! Placeholder while the engine compiles.
fn main() {}
