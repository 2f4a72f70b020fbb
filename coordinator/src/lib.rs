//! The simfleet coordinator: expands sweep files into jobs, plays them in-process or over NATS
//! JetStream, and exports and summarises the episode records.
//!
//! # Layout
//!
//! - [`sweep`]: sweep files (errors name the line and field), the sweep id, the job expansion.
//! - [`embedded`]: `coordinator run`, the in-process mode on all cores.
//! - [`row`], [`export`], [`import`]: the exported episode row, writers by extension, readers.
//! - [`parquet`]: the Parquet export behind [`export::RecordWriter`] and its reader.
//! - [`rank`]: ranking experiments: `[[rankings]]` teams and `coordinator rank`.
//! - [`report`]: `coordinator report`, a self-contained HTML page of a results file.
//! - [`summary`]: the per-cell table (mean, 95% CI, outcome shares, mean length).
//! - [`list`]: `coordinator list`.
//! - [`llm`]: `llm` seats: the HTTP(S) transport, concurrent episodes, recorded replays.
//! - [`fleet`]: `submit`, `watch`, `status`, `results`, `cancel` over NATS JetStream.
//! - [`arena`]: `coordinator arena`, the Trolley Problem Arena's HTTP server.
//! - [`commands`]: the command implementations `main.rs` dispatches to.
//!
//! `main.rs` only parses flags, sets up logging and calls [`commands`].

pub mod arena;
pub mod commands;
pub mod embedded;
pub mod export;
pub mod fleet;
pub mod import;
pub mod list;
pub mod llm;
pub mod parquet;
pub mod rank;
pub mod report;
pub mod row;
pub mod row_encoder;
pub mod summary;
pub mod sweep;
