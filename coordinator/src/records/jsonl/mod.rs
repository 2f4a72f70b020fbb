//! JSON Lines (`.jsonl`): one JSON object a line, the row's fields by name; a summary file's
//! rows nest their aggregate. Everything this format knows is here: its encoder, its
//! row-at-a-time reader, its block decoders (`decode.rs`, with the hand-written line scan of
//! `line.rs`) and its summary-file I/O.

mod cursor;
mod decode;
mod json_row;
mod line;

#[cfg(test)]
mod line_tests;

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::format::Format;
use super::row::{Row, RowRef};
use super::scan::block::{Accumulate, Need};
use super::scan::blocks::{self, Scanned};
use super::summary_row::CellRow;

/// JSON Lines.
#[derive(Clone, Copy, Debug)]
pub struct JsonLines;

impl Format for JsonLines {
    fn extension(self) -> &'static str {
        "jsonl"
    }

    fn encode_rows<'a>(
        self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        _stats: &[&'static str],
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        let mut n = 0;
        for row in rows {
            serde_json::to_writer(&mut *out, &row).map_err(io::Error::from)?;
            out.push(b'\n');
            n += 1;
        }
        Ok(n)
    }

    fn read_rows(
        self,
        path: &Path,
        _columns: Option<&[&str]>,
        mut f: impl FnMut(u64, Row),
    ) -> Result<Option<u64>, ImportError> {
        let ioerr = ImportError::io(path);
        let mut reader = BufReader::with_capacity(1 << 20, File::open(path).map_err(ioerr)?);
        let (mut offset, mut n) = (0u64, 0u64);
        let mut line = String::new();
        loop {
            line.clear();
            let read = reader.read_line(&mut line).map_err(ioerr)? as u64;
            if read == 0 {
                return Ok(None);
            }
            n += 1;
            if !line.ends_with('\n') {
                return Ok(Some(offset));
            }
            let row: Row = serde_json::from_str(&line).map_err(|e| ImportError::row(path, n, e))?;
            f(offset, row);
            offset += read;
        }
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
        let file = File::open(path).map_err(ioerr)?;
        match blocks::scan(path, file, Vec::new(), 0, &decode::JsonBlocks, need, threads, block, each)? {
            Scanned::Done { partial } => Ok(partial),
            Scanned::Boundary { .. } => unreachable!("a JSON Lines block is cut at a newline, never guessed"),
        }
    }

    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError> {
        let mut out = BufWriter::new(file);
        for row in rows {
            serde_json::to_writer(&mut out, row).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_data()?;
        Ok(())
    }

    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError> {
        let ioerr = ImportError::io(path);
        let mut rows = Vec::new();
        for (i, line) in BufReader::new(File::open(path).map_err(ioerr)?).lines().enumerate() {
            let line = line.map_err(ioerr)?;
            rows.push(serde_json::from_str(&line).map_err(|e| ImportError::row(path, i as u64 + 1, e))?);
        }
        Ok(rows)
    }

    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError> {
        let ioerr = ImportError::io(path);
        let mut line = String::new();
        BufReader::new(File::open(path).map_err(ioerr)?).read_line(&mut line).map_err(ioerr)?;
        Ok(serde_json::from_str::<serde_json::Value>(&line).is_ok_and(|v| v.get("aggregate").is_some()))
    }
}
