//! Results files: the exported episode row, the four formats (JSON Lines, CSV, MessagePack,
//! Parquet), writing them as records stream in and reading them back.
//!
//! Every command that writes records (`run`, `watch`, `results`) goes through [`RecordWriter`];
//! every command that reads them (`summary`, `rank`, `report`, `compare`, a resumed `watch`) goes
//! through [`Input`], [`scan`] and [`for_each_row`].
//!
//! # One home per format
//!
//! A format is a module implementing [`format::Format`] ([`jsonl`], [`csv`], [`msgpack`],
//! [`parquet`]): its row encoder, its row-at-a-time reader, its block decoders for the parallel
//! reader and its summary-file I/O, all in its folder. [`AnyFormat`], chosen by a file's
//! extension, dispatches to them and is the only code that matches on a format; every other
//! module (writer, reader, cells, resume, scan) asks [`AnyFormat`]. A fifth format is a folder
//! beside the four and a variant of [`AnyFormat`].
//!
//! # Layout
//!
//! Each module imports only modules of a lower layer, so there is no import cycle: a test
//! (`tests.rs`) reads every file under `records/` (none listed by hand), follows its imports into
//! folders too, and fails on any cycle. A folder's `mod.rs` is above its files (they import the
//! leaf that holds what they share, as `scan/block.rs`, never the folder's face), and outside
//! `records/` only leaves of the coordinator (files that import nothing of it) are imported.
//!
//! 0. [`row`]: [`RowRef`] (what writers serialise, borrowed from a `JobResult`), [`Row`] (what
//!    readers produce), the column names. [`error`]: [`ExportError`], [`ImportError`].
//!    [`summary_row`] (with [`summary_decisions`]): a summary file's row and its flat columns.
//!    `scan/block.rs`: what the block decoders share.
//! 1. `scan/blocks.rs`: the block reader of the line formats, generic over a format's
//!    cutter and decoder. `format`: the [`Format`] trait.
//! 2. [`jsonl`], [`csv`], [`msgpack`], [`parquet`]: one implementation each.
//! 3. [`AnyFormat`]: the format of a file, by extension.
//! 4. [`encoder`]: [`RowEncoder`], rows to bytes on any thread. [`writer`]: [`RecordWriter`].
//!    [`reader`]: [`for_each_row`]. [`summary_file`]: summary files.
//! 5. [`input`]: [`Input`], the files and directories of shards an analysis command reads as
//!    one table. `resume`: cutting a file back to whole jobs for a restarted `watch`.
//!    [`scan`]: the parallel reader of the analysis commands: only the columns a command
//!    needs, on every core, into mergeable accumulators.

pub mod any_format;
pub mod csv;
pub mod encoder;
pub mod error;
pub mod format;
pub mod input;
pub mod jsonl;
pub mod msgpack;
pub mod parquet;
pub mod reader;
pub mod resume;
pub mod row;
pub mod scan;
pub mod summary_decisions;
pub mod summary_file;
pub mod summary_row;
pub mod writer;

#[cfg(test)]
mod tests;

pub use any_format::AnyFormat;
pub use encoder::RowEncoder;
pub use error::{ExportError, ImportError};
pub use format::Format;
pub use input::Input;
pub use reader::for_each_row;
pub use resume::{resume, Resume};
pub use row::{stat_columns, Row, RowRef, SCALAR_COLUMNS};
pub use writer::RecordWriter;
