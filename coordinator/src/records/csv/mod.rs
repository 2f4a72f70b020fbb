//! CSV (`.csv`): one header line, then a record a row; the stats are one column each (the
//! sweep's games' keys), a non-scalar value as JSON text; a summary file's aggregate is compact
//! JSON text in one column. Everything this format knows is here: its header and encoder, its
//! row-at-a-time reader (`row.rs`), its block decoders (`decode.rs`) and its summary-file I/O.

mod decode;
mod row;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::format::Format;
use super::row::{Row, RowRef, SCALAR_COLUMNS};
use super::scan::block::{Accumulate, Need};
use super::scan::blocks::{self, Scanned};
use super::summary_row::{columns, Cell, CellRow, COLUMNS};
use decode::CsvBlocks;
use row::csv_row;

/// CSV.
#[derive(Clone, Copy, Debug)]
pub struct Csv;

impl Format for Csv {
    fn extension(self) -> &'static str {
        "csv"
    }

    fn header(self, stats: &[&'static str]) -> Result<Vec<u8>, ExportError> {
        let mut out = Vec::new();
        let mut head: Vec<&str> = SCALAR_COLUMNS.to_vec();
        head.extend(["agent_rewards", "trajectory_hash"]);
        head.extend(stats.iter().copied());
        let mut w = csv::WriterBuilder::new().from_writer(&mut out);
        w.write_record(&head)?;
        w.flush()?;
        drop(w);
        Ok(out)
    }

    fn encode_rows<'a>(
        self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        stats: &[&'static str],
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        let mut n = 0;
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(&mut *out);
        let mut fields: Vec<String> = Vec::new();
        for row in rows {
            csv_fields(&row, stats, &mut fields);
            w.write_record(fields.iter())?;
            n += 1;
        }
        w.flush()?;
        Ok(n)
    }

    fn read_rows(
        self,
        path: &Path,
        _columns: Option<&[&str]>,
        mut f: impl FnMut(u64, Row),
    ) -> Result<Option<u64>, ImportError> {
        let ioerr = ImportError::io(path);
        let rowerr = |row: u64, message: String| ImportError::row(path, row, message);
        let mut text = String::new();
        File::open(path).and_then(|mut file| file.read_to_string(&mut text)).map_err(ioerr)?;
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        let cut = (complete < text.len()).then_some(complete as u64);
        let mut rdr = csv::ReaderBuilder::new().from_reader(&text.as_bytes()[..complete]);
        let headers = rdr.headers().map_err(|e| rowerr(0, e.to_string()))?.clone();
        for (n, rec) in (1..).zip(rdr.records()) {
            let rec = rec.map_err(|e| rowerr(n, e.to_string()))?;
            let pos = rec.position().map_or(0, |p| p.byte());
            f(pos, csv_row(&headers, &rec).map_err(|m| rowerr(n, m))?);
        }
        Ok(cut)
    }

    fn scan<A: Accumulate>(
        self,
        path: &Path,
        need: Need,
        threads: usize,
        block: usize,
        each: &mut impl FnMut(A),
    ) -> Result<bool, ImportError> {
        let ioerr = ImportError::io(path);
        let mut file = File::open(path).map_err(ioerr)?;
        let (decoder, carry) = CsvBlocks::new(path, &mut file, need).map_err(ioerr)?;
        match blocks::scan(path, file, carry, 1, &decoder, need, threads, block, each)? {
            Scanned::Done { partial } => Ok(partial),
            Scanned::Boundary { .. } => unreachable!("a CSV block is cut at a newline outside quotes, never guessed"),
        }
    }

    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError> {
        let mut out = BufWriter::new(file);
        let mut w = csv::WriterBuilder::new().from_writer(&mut out);
        let columns = columns(rows);
        w.write_record(columns.iter().map(|(name, _)| *name))?;
        for row in rows {
            w.write_record(row.values(columns.len() > COLUMNS.len()).iter().map(|v| match v {
                Cell::Text(s) => s.clone().unwrap_or_default(),
                Cell::Int(n) => n.to_string(),
                Cell::Float(Some(x)) => x.to_string(),
                Cell::Float(None) => String::new(),
            }))?;
        }
        w.flush()?;
        drop(w);
        out.flush()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_data()?;
        Ok(())
    }

    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError> {
        let rowerr = |row: usize, message: String| ImportError::row(path, row as u64 + 1, message);
        let file = File::open(path).map_err(ImportError::io(path))?;
        let mut r = csv::Reader::from_reader(file);
        let head = r.headers().map_err(|e| rowerr(0, e.to_string()))?.clone();
        let mut rows = Vec::new();
        for (i, record) in r.records().enumerate() {
            let record = record.map_err(|e| rowerr(i, e.to_string()))?;
            let get = |k: &str| head.iter().position(|h| h == k).and_then(|c| record.get(c)).map(String::from);
            rows.push(CellRow::rebuild(get).map_err(|e| rowerr(i, e))?);
        }
        Ok(rows)
    }

    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError> {
        let ioerr = ImportError::io(path);
        let mut line = String::new();
        BufReader::new(File::open(path).map_err(ioerr)?).read_line(&mut line).map_err(ioerr)?;
        Ok(line.trim_end().split(',').any(|c| c == "aggregate"))
    }
}

/// The fields of `row`: its scalar columns, then one per stats column (empty where the row
/// has no value), a string as itself and any other value as JSON.
fn csv_fields(row: &RowRef<'_>, stats: &[&'static str], fields: &mut Vec<String>) {
    fields.clear();
    fields.extend([
        row.sweep.to_string(),
        row.job.to_string(),
        row.game.to_string(),
        row.engine_version.to_string(),
        row.scenario.to_string(),
        row.policy_set.to_string(),
        row.seed.to_string(),
        row.outcome.to_string(),
        row.length.to_string(),
        row.truncated.to_string(),
        json(&row.team_reward),
        json(&row.agent_rewards),
        row.trajectory_hash.to_string(),
    ]);
    for key in stats {
        fields.push(match row.stats.as_map().get(*key) {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => json(v),
        });
    }
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("numbers and JSON values always serialise")
}
