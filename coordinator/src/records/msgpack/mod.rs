//! MessagePack (`.msgpack`): named-field maps, concatenated, no outer array; a summary file's
//! rows nest their aggregate. Everything this format knows is here: its encoder (`encode.rs`),
//! its row-at-a-time reader, its block decoders (`decode.rs`, with the hand-written walker of
//! `walker.rs`) and its summary-file I/O.

mod decode;
mod encode;
mod walker;

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, Write};
use std::path::Path;

use super::error::{ExportError, ImportError};
use super::format::Format;
use super::row::{Row, RowRef};
use super::scan::block::{Accumulate, Need, ScanRow};
use super::scan::blocks::{self, Scanned};
use super::summary_row::CellRow;

/// MessagePack.
#[derive(Clone, Copy, Debug)]
pub struct Msgpack;

impl Format for Msgpack {
    fn extension(self) -> &'static str {
        "msgpack"
    }

    fn encode_rows<'a>(
        self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        _stats: &[&'static str],
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        let mut n = 0;
        for row in rows {
            encode::write_msgpack(&row, out);
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
        let file = File::open(path).map_err(ioerr)?;
        let len = file.metadata().map_err(ioerr)?.len();
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let (mut offset, mut n) = (0u64, 0u64);
        loop {
            if offset == len {
                return Ok(None);
            }
            n += 1;
            let mut de = rmp_serde::Deserializer::new(&mut reader);
            match serde::Deserialize::deserialize(&mut de) {
                Ok(row) => {
                    let pos = reader.stream_position().map_err(ioerr)?;
                    f(offset, row);
                    offset = pos;
                }
                Err(rmp_serde::decode::Error::InvalidMarkerRead(e) | rmp_serde::decode::Error::InvalidDataRead(e))
                    if e.kind() == io::ErrorKind::UnexpectedEof =>
                {
                    return Ok(Some(offset));
                }
                Err(e) => return Err(ImportError::row(path, n, e)),
            }
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
        match blocks::scan(path, file, Vec::new(), 0, &decode::MsgpackBlocks, need, threads, block, each)? {
            Scanned::Done { partial } => Ok(partial),
            Scanned::Boundary { rows } => self.rest_row_at_a_time(path, need, rows, each),
        }
    }

    fn write_cells(self, file: File, rows: &[CellRow]) -> Result<(), ExportError> {
        let mut out = BufWriter::new(file);
        for row in rows {
            rmp_serde::encode::write_named(&mut out, row).map_err(io::Error::other)?;
        }
        out.flush()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_data()?;
        Ok(())
    }

    fn read_cells(self, path: &Path) -> Result<Vec<CellRow>, ImportError> {
        let ioerr = ImportError::io(path);
        let file = File::open(path).map_err(ioerr)?;
        let len = file.metadata().map_err(ioerr)?.len();
        let mut reader = BufReader::new(file);
        let mut rows = Vec::new();
        while reader.stream_position().map_err(ioerr)? < len {
            let row =
                rmp_serde::from_read(&mut reader).map_err(|e| ImportError::row(path, rows.len() as u64 + 1, e))?;
            rows.push(row);
        }
        Ok(rows)
    }

    fn is_cell_file(self, path: &Path) -> Result<bool, ImportError> {
        let ioerr = ImportError::io(path);
        let mut reader = BufReader::new(File::open(path).map_err(ioerr)?);
        Ok(rmp_serde::from_read::<_, serde_json::Value>(&mut reader).is_ok_and(|v| v.get("aggregate").is_some()))
    }
}

impl Msgpack {
    /// The rows after the first `skip` (already handed over), read row at a time and handed
    /// over as one accumulator: for a file whose records the block cutter could not tell apart
    /// by their first bytes. Whether the file ended in a partial record.
    fn rest_row_at_a_time<A: Accumulate>(
        self,
        path: &Path,
        need: Need,
        skip: u64,
        each: &mut impl FnMut(A),
    ) -> Result<bool, ImportError> {
        let mut acc = A::default();
        let mut seen = 0;
        let cut = self.read_rows(path, None, |_, row| {
            seen += 1;
            if seen <= skip {
                return;
            }
            if need.whole {
                return acc.add_whole(row);
            }
            let mut r = ScanRow::of(&row);
            if !need.llm {
                r.llm = None;
            }
            acc.add(&r)
        })?;
        each(acc);
        Ok(cut.is_some())
    }
}
