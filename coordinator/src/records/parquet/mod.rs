//! Parquet export and import of episode rows (`--out results.parquet`).
//!
//! One column per scalar field of the row (`job` and `seed` as unsigned 64-bit integers,
//! `length` as unsigned 32-bit), `agent_rewards` as a `list<double>`, and one nullable column
//! `stats.<key>` per stats key of the sweep's games (`GameKind::info().stat_keys`), null where a
//! record lacks the key. Pages are Snappy-compressed and dictionary-encoded, so pandas, polars
//! and pyarrow read the file without options.
//!
//! Written with the parquet crate's low-level column writer (no arrow dependency), one row group
//! every 64k rows, so memory stays flat. The file is complete only when the writer is finished
//! (`RecordWriter::finish`): unlike the line formats, a Parquet file cannot be appended to or
//! resumed by `watch`.
//!
//! # Layout
//!
//! - [`schema`]: column types, including the stats kinds inferred from the first row group.
//! - [`columns`]: column buffers of one row group (values, definition and repetition levels).
//! - [`writer`]: [`ParquetSink`], the streaming writer.
//! - [`reader`]: reading a file back into rows.

pub mod columns;
pub mod reader;
pub mod schema;
pub mod writer;

pub use writer::ParquetSink;

#[cfg(test)]
mod tests;
