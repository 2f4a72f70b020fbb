//! The simfleet coordinator: expands sweep files into jobs, plays them in-process or over NATS
//! JetStream, and exports and summarises the episode records.
//!
//! # Layout
//!
//! - [`commands`]: one module per subcommand (`run`, `summary`, `replay`, `submit`, `watch`,
//!   `status`, `results`, `cancel`, `priority`, `setup`, `list`, `rank`, `compare`, `report`,
//!   `records`, `arena`), each with its clap arguments and its `run`. `main.rs` parses the flags, sets up
//!   logging and dispatches to them; everything below is a library the commands call.
//! - [`sweep`]: sweep files (errors name the line and field), the sweep id, the job expansion.
//! - [`embedded`]: the in-process mode on all cores (`coordinator run`).
//! - [`fleet`]: the fleet over NATS JetStream: submitting, watching, status, re-export, cancel.
//! - [`records`]: results files: the exported row, the formats (JSON Lines, CSV, MessagePack,
//!   Parquet), writing and reading them.
//! - [`cell_order`]: the one order of cells in every table and file: the sweep's.
//! - [`collector`]: the one place results go (records file, failures, summary cells, stopping
//!   folds, model spend, progress, the end's files); [`collector::cell_merge`]: a sweep's
//!   results merged per cell in job order (summary sweeps); [`rebuild`]: the same
//!   rows rebuilt from records files (`summary --out`).
//! - [`summary`]: the per-cell summary (mean, 95% CI, outcome shares, mean length).
//! - [`compare`]: paired comparisons with a baseline on shared seeds (common random numbers).
//! - [`stop`]: sweeps that stop each cell when its answer is decided (`[stop]`).
//! - [`rank`]: ranking experiments: `[[rankings]]` teams and the fitted contributions.
//! - [`report`]: the self-contained HTML report of a results file.
//! - [`arena`]: the Trolley Problem Arena's HTTP server.
//! - [`table`]: the layout of every terminal table; [`progress`]: the progress bars.
//! - [`llm`]: `llm` seats played in-process: the HTTP(S) transport, concurrent episodes,
//!   recorded replays; [`llm_tally`]: calls, failures and fallbacks per model cell; [`wasm_tally`]: faults per `wasm:` entry;
//!   [`llm_spend`]: prices, the measured spend, and `llm_max_calls` / `llm_max_dollars`.

pub mod arena;
pub mod cell_order;
pub mod collector;
pub mod commands;
pub mod compare;
pub mod embedded;
pub mod fleet;
pub mod llm;
pub mod llm_spend;
pub mod llm_tally;
pub mod progress;
pub mod rank;
pub mod rebuild;
pub mod records;
pub mod report;
pub mod stop;
pub mod summary;
pub mod sweep;
pub mod table;
pub mod wasm_tally;

#[cfg(test)]
mod function_lengths;
#[cfg(test)]
mod layering;
#[cfg(test)]
mod source_graph;
