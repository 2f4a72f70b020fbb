//! Results files: the exported episode row, the four formats (JSON Lines, CSV, MessagePack,
//! Parquet), writing them as records stream in and reading them back.
//!
//! Every command that writes records (`run`, `watch`, `results`) goes through [`RecordWriter`];
//! every command that reads them (`summary`, `rank`, `report`, `compare`, a resumed `watch`) goes
//! through [`Input`] and [`for_each_row`], so a format is added or changed here and nowhere else.
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
//! 1. [`format`]: [`Format`], chosen by a file's extension.
//! 2. [`encoder`]: [`RowEncoder`], rows to the bytes of the line formats, on any thread.
//!    [`parquet`]: the Parquet schema, column buffers, streaming writer and reader.
//! 3. [`writer`]: [`RecordWriter`], a file of any format. [`reader`]: [`for_each_row`], any
//!    format back into [`Row`]s.
//!    [`cells`]: summary files, one row per cell (a sweep that collects summaries).
//! 4. [`cell_decision`]: a stopping sweep's decision columns of a summary file.
//!    [`input`]: [`Input`], the files and directories of shards an analysis command reads as
//!    one table.
//!    [`resume`]: cutting a file back to whole jobs for a restarted `watch`.
//! 5. [`scan`]: the parallel reader of the analysis commands (`summary` so far): only the
//!    columns a command needs, on every core, into mergeable accumulators.
//!
//! A new kind of row belongs in layer 0 beside [`row`], a new reader of the same files in layer
//! 3 beside [`reader`].

pub mod cell_decision;
pub mod cells;
pub mod encoder;
pub mod error;
pub mod format;
pub mod input;
pub mod parquet;
pub mod reader;
pub mod resume;
pub mod row;
pub mod scan;
pub mod writer;

#[cfg(test)]
mod tests;

pub use encoder::RowEncoder;
pub use error::{ExportError, ImportError};
pub use format::Format;
pub use input::Input;
pub use reader::for_each_row;
pub use resume::{resume, Resume};
pub use row::{stat_columns, Row, RowRef, SCALAR_COLUMNS};
pub use writer::RecordWriter;
