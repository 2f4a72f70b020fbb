//! The streaming Parquet writer behind `RecordWriter`: rows are buffered column by column and
//! written as one row group every [`ROW_GROUP_ROWS`] rows (or [`ROW_GROUP_BYTES`] of buffered
//! data), so memory stays flat whatever the number of rows.
//!
//! The schema is fixed when the first row group is written, because the stats columns' types
//! are inferred from its values ([`StatKind::infer`]). A Parquet file is readable only once
//! [`ParquetSink::finish`] has written its footer.

use std::fs::File;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use serde_json::Value;

use super::columns::{Column, Values};
use super::schema::{schema, StatKind, JSON_COLUMNS_KEY};
use crate::records::error::ExportError;
use crate::records::row::RowRef;

/// Rows per row group.
pub const ROW_GROUP_ROWS: usize = 1 << 16;
/// Buffered bytes (approximate) at which a row group is written early.
pub const ROW_GROUP_BYTES: usize = 64 << 20;

/// Index of `agent_rewards` among the fixed columns.
const AGENT_REWARDS: usize = 11;

/// A Parquet file being written.
pub struct ParquetSink {
    /// The file, until the schema is known and the file writer exists.
    file: Option<File>,
    writer: Option<SerializedFileWriter<File>>,
    keys: Vec<&'static str>,
    /// The stats columns' kinds, once the first row group fixed them.
    kinds: Option<Vec<StatKind>>,
    /// The first row group's stats values, per key (`Null` where a record lacks the key).
    pending: Vec<Vec<Value>>,
    fixed: Vec<Column>,
    stats: Vec<Column>,
    rows: usize,
    /// Rows per row group.
    group_rows: usize,
    /// A write failed: the buffers are inconsistent, so no footer is written.
    failed: bool,
}

fn fixed_columns() -> Vec<Column> {
    let int64 = || Column::new(Values::Int64(Vec::new()), 0, false);
    vec![
        Column::text(),                                    // sweep
        int64(),                                           // job
        Column::text(),                                    // game
        Column::text(),                                    // engine_version
        Column::text(),                                    // scenario
        Column::text(),                                    // policy_set
        int64(),                                           // seed
        Column::text(),                                    // outcome
        Column::new(Values::Int32(Vec::new()), 0, false),  // length
        Column::new(Values::Bool(Vec::new()), 0, false),   // truncated
        Column::new(Values::Double(Vec::new()), 0, false), // team_reward
        Column::new(Values::Double(Vec::new()), 1, true),  // agent_rewards
        Column::text(),                                    // trajectory_hash
    ]
}

impl ParquetSink {
    /// A writer into `file` with one stats column per key of `keys`.
    pub fn new(file: File, keys: Vec<&'static str>) -> ParquetSink {
        let pending = keys.iter().map(|_| Vec::new()).collect();
        ParquetSink {
            file: Some(file),
            writer: None,
            keys,
            kinds: None,
            pending,
            fixed: fixed_columns(),
            stats: Vec::new(),
            rows: 0,
            group_rows: ROW_GROUP_ROWS,
            failed: false,
        }
    }

    /// Sets the rows per row group (default [`ROW_GROUP_ROWS`]); call before the first row.
    pub fn set_row_group_rows(&mut self, rows: usize) {
        self.group_rows = rows.max(1);
    }

    /// Buffers one row; writes a row group when enough rows are buffered.
    pub fn write(&mut self, row: &RowRef<'_>) -> Result<(), ExportError> {
        let result = self.push(row);
        if result.is_err() {
            self.failed = true;
        }
        result
    }

    fn push(&mut self, row: &RowRef<'_>) -> Result<(), ExportError> {
        if self.failed {
            return Err(ExportError::Failed);
        }
        let f = &mut self.fixed;
        f[0].push_text(row.sweep);
        f[1].push_i64(row.job as i64);
        f[2].push_text(row.game);
        f[3].push_text(row.engine_version);
        f[4].push_text(row.scenario);
        f[5].push_text(row.policy_set);
        f[6].push_i64(row.seed as i64);
        f[7].push_text(row.outcome);
        f[8].push_i32(row.length as i32);
        f[9].push_bool(row.truncated);
        f[10].push_f64(row.team_reward);
        f[AGENT_REWARDS].push_doubles(row.agent_rewards);
        f[12].push_text(row.trajectory_hash);
        match &self.kinds {
            None => {
                for (key, values) in self.keys.iter().zip(&mut self.pending) {
                    values.push(row.stats.as_map().get(*key).cloned().unwrap_or(Value::Null));
                }
            }
            Some(kinds) => {
                for ((key, kind), col) in self.keys.iter().zip(kinds).zip(&mut self.stats) {
                    let value = row.stats.as_map().get(*key);
                    col.push_stat(*kind, value).map_err(|_| misfit(key, *kind, value))?;
                }
            }
        }
        self.rows += 1;
        let full = self.rows >= self.group_rows
            || (self.rows.is_multiple_of(1024)
                && self.fixed.iter().chain(&self.stats).map(Column::bytes).sum::<usize>() >= ROW_GROUP_BYTES);
        if full {
            self.write_row_group()?;
        }
        Ok(())
    }

    /// Fixes the stats kinds from the buffered first row group and opens the file writer.
    fn start(&mut self) -> Result<(), ExportError> {
        let kinds: Vec<StatKind> = self.pending.iter().map(StatKind::infer).collect();
        let mut stats: Vec<Column> = kinds.iter().map(|k| Column::stat(*k)).collect();
        // Each key's raw values are freed as soon as they are in their column.
        let pending = std::mem::take(&mut self.pending);
        for (((key, kind), values), col) in self.keys.iter().zip(&kinds).zip(pending).zip(&mut stats) {
            for v in &values {
                col.push_stat(*kind, Some(v)).map_err(|_| misfit(key, *kind, Some(v)))?;
            }
        }
        let columns: Vec<(&str, StatKind)> = self.keys.iter().copied().zip(kinds.iter().copied()).collect();
        let json: Vec<String> =
            columns.iter().filter(|(_, kind)| *kind == StatKind::Json).map(|(key, _)| format!("stats.{key}")).collect();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_key_value_metadata(Some(vec![KeyValue::new(JSON_COLUMNS_KEY.to_string(), json.join(","))]))
            .build();
        let file = self.file.take().ok_or(ExportError::Failed)?;
        self.writer = Some(SerializedFileWriter::new(file, schema(&columns)?, Arc::new(props))?);
        self.kinds = Some(kinds);
        self.stats = stats;
        Ok(())
    }

    fn write_row_group(&mut self) -> Result<(), ExportError> {
        if self.kinds.is_none() {
            self.start()?;
        }
        if self.rows == 0 {
            return Ok(());
        }
        let writer = self.writer.as_mut().ok_or(ExportError::Failed)?;
        let mut group = writer.next_row_group()?;
        let mut columns = self.fixed.iter_mut().chain(self.stats.iter_mut());
        while let Some(mut col_writer) = group.next_column()? {
            let col = columns.next().ok_or(ExportError::Failed)?;
            col.write_to(&mut col_writer)?;
            col_writer.close()?;
        }
        group.close()?;
        self.rows = 0;
        Ok(())
    }

    /// Writes the row groups completed so far to disk. Rows of the open row group stay
    /// buffered: a Parquet row group cannot be appended to once written.
    pub fn flush(&mut self) -> Result<(), ExportError> {
        if let Some(w) = &mut self.writer {
            w.flush()?;
            w.inner().sync_data()?;
        }
        Ok(())
    }

    /// Writes the last row group and the footer. The file is readable from here on.
    pub fn finish(&mut self) -> Result<(), ExportError> {
        if self.failed {
            return Err(ExportError::Failed);
        }
        let result = self.write_row_group().and_then(|()| {
            let mut writer = self.writer.take().ok_or(ExportError::Failed)?;
            writer.finish()?;
            writer.inner().sync_data()?;
            Ok(())
        });
        if result.is_err() {
            self.failed = true;
        }
        result
    }

    /// Whether [`ParquetSink::finish`] has completed (or a write failed).
    pub fn done(&self) -> bool {
        self.failed || (self.writer.is_none() && self.file.is_none())
    }
}

fn misfit(key: &str, kind: StatKind, value: Option<&Value>) -> ExportError {
    ExportError::StatType {
        key: key.to_string(),
        kind: kind.describe(),
        value: value.map_or_else(|| "null".into(), |v| v.to_string()),
    }
}
