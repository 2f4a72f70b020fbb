//! Whole rows of a block of JSON Lines, CSV or MessagePack, every field decoded by the row
//! reader's own decoders ([`crate::records::reader`]), for the accumulators that need them all
//! (`summary --out`'s cell aggregates): the decoding runs on every core, and the rows reach the
//! accumulator in file order, so what it builds is the row-at-a-time reader's.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use super::block::{Accumulate, BlockError, Decoded};
use crate::records::reader::csv_row;
use crate::records::row::Row;

/// The JSON Lines `block` (whole lines; the `last` block may end in a partial one, skipped).
pub(super) fn jsonl<A: Accumulate>(block: &[u8], last: bool, acc: &mut A) -> Result<Decoded, BlockError> {
    super::lines::each_line(block, last, |rows, line| {
        let row: Row = serde_json::from_slice(line).map_err(|e| BlockError::Row(rows, e.to_string()))?;
        acc.add_whole(row);
        Ok(())
    })
}

/// The MessagePack `block`: it must decode to exactly its end, else its cut was not at a
/// record boundary ([`BlockError::Boundary`]), except for a partial record ending the `last`.
pub(super) fn msgpack<A: Accumulate>(block: &[u8], last: bool, acc: &mut A) -> Result<Decoded, BlockError> {
    let mut rows = 0;
    let mut rest = block;
    while !rest.is_empty() {
        match rmp_serde::from_read::<_, Row>(&mut rest) {
            Ok(row) => {
                rows += 1;
                acc.add_whole(row);
            }
            Err(rmp_serde::decode::Error::InvalidMarkerRead(e) | rmp_serde::decode::Error::InvalidDataRead(e))
                if e.kind() == io::ErrorKind::UnexpectedEof =>
            {
                return match last {
                    true => Ok(Decoded { rows, partial: true }),
                    false => Err(BlockError::Boundary),
                };
            }
            // Not a record where one should start: a wrong cut, or a damaged file, which the
            // row-at-a-time reader then names.
            Err(_) => return Err(BlockError::Boundary),
        }
    }
    Ok(Decoded { rows, partial: false })
}

/// The CSV `block` of a file whose header is `headers` (whole records; the `last` block may end
/// in a partial one, without its newline, skipped).
pub(super) fn csv<A: Accumulate>(
    block: &[u8],
    last: bool,
    headers: &csv::StringRecord,
    acc: &mut A,
) -> Result<Decoded, BlockError> {
    let complete = match block.last() {
        Some(b'\n') | None => block.len(),
        Some(_) => {
            debug_assert!(last, "only the last block ends without a newline");
            memchr::memrchr(b'\n', block).map_or(0, |i| i + 1)
        }
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&block[..complete]);
    let mut rows = 0;
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                rows += 1;
                let row = csv_row(headers, &rec).map_err(|m| BlockError::Row(rows, m))?;
                acc.add_whole(row);
            }
            Err(e) => return Err(BlockError::Row(rows + 1, e.to_string())),
        }
    }
    Ok(Decoded { rows, partial: complete < block.len() })
}

/// The header record of the CSV file at `path`.
pub(super) fn csv_headers(path: &Path) -> io::Result<csv::StringRecord> {
    let mut line = Vec::new();
    BufReader::new(File::open(path)?).read_until(b'\n', &mut line)?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&line[..]);
    let mut head = csv::StringRecord::new();
    rdr.read_record(&mut head).map_err(io::Error::other)?;
    Ok(head)
}
