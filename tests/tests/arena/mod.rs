//! The trolley arena (contract: `docs/arena.openapi.json`) over real HTTP: `coordinator::arena::serve` on a
//! free loopback port in its own tokio runtime, driven by blocking `ureq` clients — one thread
//! per agent wherever clients race. No nats-server is involved.
//!
//! One module per area; `client` holds the arena harness and the HTTP client they share.

mod client;
mod contract;
mod game;
mod lifecycle;
mod openapi;
mod protection;
mod races;
mod refusals;
