//! The line formats and MessagePack in parallel: the file is read block after block, each block
//! cut at its last record boundary (the rest starts the next block), and the blocks are decoded
//! by worker threads into partial accumulators, merged in block order. At most `2 × threads`
//! blocks are in memory at once, whatever the file's size.
//!
//! Where a record can begin: JSON Lines after a newline; CSV after a newline outside quotes
//! (the quote parity is tracked from the block's start, itself a record start); MessagePack
//! where the bytes every record begins with (its map header and first key, taken from the
//! file's first record) occur. In MessagePack those bytes could also occur inside a value, so a
//! block must decode to exactly its end: if one does not, no boundary is trusted and the file
//! is read by the row-at-a-time reader instead.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;

use super::block::{Accumulate, BlockError, Decoded, Need, ScanRow};
use super::{lines, msgpack, whole};
use crate::records::error::ImportError;
use crate::records::format::Format;
use crate::records::reader;

/// Bytes read per block.
pub const BLOCK: usize = 8 << 20;

/// What the blocks of a format are decoded with.
#[derive(Clone)]
pub(super) enum Decoder {
    Jsonl,
    Csv(lines::CsvColumns),
    /// CSV into whole rows ([`Need::whole`]), by the header's names.
    CsvWhole(csv::StringRecord),
    Msgpack,
}

impl Decoder {
    fn decode<A: Accumulate>(&self, block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
        match self {
            Decoder::Jsonl if need.whole => whole::jsonl(block, last, acc),
            Decoder::Msgpack if need.whole => whole::msgpack(block, last, acc),
            Decoder::CsvWhole(headers) => whole::csv(block, last, headers, acc),
            Decoder::Jsonl => lines::jsonl(block, last, need, acc),
            Decoder::Csv(columns) => lines::csv(block, last, columns, acc),
            Decoder::Msgpack => msgpack::decode(block, last, need, acc),
        }
    }
}

struct Block {
    index: usize,
    bytes: Vec<u8>,
    last: bool,
}

type Outcome<A> = Result<(A, Decoded), BlockError>;

/// Hands the accumulator of each block of the file at `path` (a line format or MessagePack) to
/// `each`, in block order; returns whether the file ended in a partial record.
pub(super) fn scan<A: Accumulate, F: FnMut(A)>(
    path: &Path,
    format: Format,
    need: Need,
    threads: usize,
    block: usize,
    each: &mut F,
) -> Result<bool, ImportError> {
    let name = path.display().to_string();
    let ioerr = |source: io::Error| ImportError::Io { path: name.clone(), source };
    let mut file = File::open(path).map_err(ioerr)?;
    let mut carry = Vec::new();
    let mut header_rows = 0;
    let decoder = match format {
        Format::Jsonl => Decoder::Jsonl,
        Format::Msgpack => Decoder::Msgpack,
        Format::Csv => {
            let (columns, rest) = lines::csv_header(&mut file).map_err(ioerr)?;
            carry = rest;
            header_rows = 1;
            match need.whole {
                true => Decoder::CsvWhole(whole::csv_headers(path).map_err(ioerr)?),
                false => Decoder::Csv(columns),
            }
        }
        Format::Parquet => unreachable!("Parquet is scanned by row group"),
    };
    let mut merger = Merger { each, next: 0, rows: 0, partial: false, waiting: BTreeMap::new() };
    let result = scan_blocks::<A, F>(&mut file, carry, &decoder, need, threads, block.max(64), &mut merger);
    match result {
        Ok(()) => Ok(merger.partial),
        Err(ScanError::Io(e)) => Err(ImportError::Io { path: name, source: e }),
        Err(ScanError::Row(row, message)) => Err(ImportError::Row { path: name, row: row + header_rows, message }),
        // The blocks handed over so far decoded to exactly their ends: only the rows after
        // them are read again.
        Err(ScanError::Boundary) => row_at_a_time(path, need, merger.rows, merger.each),
    }
}

enum ScanError {
    Io(io::Error),
    Row(u64, String),
    Boundary,
}

fn scan_blocks<A: Accumulate, F: FnMut(A)>(
    file: &mut File,
    mut carry: Vec<u8>,
    decoder: &Decoder,
    need: Need,
    threads: usize,
    block: usize,
    merger: &mut Merger<'_, A, F>,
) -> Result<(), ScanError> {
    let (to_workers, blocks) = mpsc::sync_channel::<Block>(threads);
    let blocks = Mutex::new(blocks);
    let (to_main, outcomes) = mpsc::channel::<(usize, Outcome<A>, Vec<u8>)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let to_main = to_main.clone();
            let blocks = &blocks;
            s.spawn(move || loop {
                let next = blocks.lock().expect("no worker panics holding the lock").recv();
                let Ok(b) = next else { return };
                let mut acc = A::default();
                let outcome = decoder.decode(&b.bytes, b.last, need, &mut acc).map(|d| (acc, d));
                if to_main.send((b.index, outcome, b.bytes)).is_err() {
                    return;
                }
            });
        }
        drop(to_main);
        let mut cutter = Cutter::new(decoder);
        let mut index = 0;
        // Block buffers come back from the workers and are filled again: no fresh pages (and
        // their faults) per block.
        let mut free: Vec<Vec<u8>> = Vec::new();
        let read = (|| -> Result<(), ScanError> {
            let mut buf = Vec::new();
            loop {
                if buf.is_empty() {
                    buf = free.pop().unwrap_or_default();
                    buf.clear();
                    buf.extend_from_slice(&carry);
                    carry.clear();
                }
                let eof = fill(file, &mut buf, block).map_err(ScanError::Io)?;
                let cut = if eof { Some(buf.len()) } else { cutter.cut(&buf) };
                let Some(cut) = cut else { continue }; // one record longer than a block: read on
                carry.extend_from_slice(&buf[cut..]);
                buf.truncate(cut);
                if !buf.is_empty() || eof {
                    let bytes = std::mem::take(&mut buf);
                    if to_workers.send(Block { index, bytes, last: eof }).is_err() {
                        return Ok(()); // the workers are gone: the merger reports why
                    }
                    index += 1;
                }
                while let Ok((i, outcome, bytes)) = outcomes.try_recv() {
                    free.push(bytes);
                    merger.take(i, outcome)?;
                }
                if eof {
                    return Ok(());
                }
            }
        })();
        drop(to_workers);
        read?;
        for (i, outcome, _) in outcomes.iter() {
            merger.take(i, outcome)?;
        }
        Ok(())
    })
}

/// Reads until `buf` holds `block` more bytes than it did, or the file ends (`true`).
fn fill(file: &mut File, buf: &mut Vec<u8>, block: usize) -> io::Result<bool> {
    let n = file.by_ref().take(block as u64).read_to_end(buf)?;
    Ok(n < block)
}

/// Finds where the last whole record of a block ends.
struct Cutter {
    kind: CutKind,
}

enum CutKind {
    Newline,
    CsvNewline,
    /// The first bytes of every MessagePack record, once the first record is seen.
    Prefix(Option<Vec<u8>>),
}

impl Cutter {
    fn new(decoder: &Decoder) -> Cutter {
        let kind = match decoder {
            Decoder::Jsonl => CutKind::Newline,
            Decoder::Csv(_) | Decoder::CsvWhole(_) => CutKind::CsvNewline,
            Decoder::Msgpack => CutKind::Prefix(None),
        };
        Cutter { kind }
    }

    /// The end of the last whole record in `buf` (which starts with a record), if any.
    fn cut(&mut self, buf: &[u8]) -> Option<usize> {
        match &mut self.kind {
            CutKind::Newline => memchr::memrchr(b'\n', buf).map(|i| i + 1),
            CutKind::CsvNewline => {
                let mut quoted = false;
                let mut end = None;
                for i in memchr::memchr2_iter(b'"', b'\n', buf) {
                    match buf[i] {
                        b'"' => quoted = !quoted,
                        _ if !quoted => end = Some(i + 1),
                        _ => {}
                    }
                }
                end
            }
            CutKind::Prefix(prefix) => {
                if prefix.is_none() {
                    *prefix = msgpack::record_prefix(buf).map(<[u8]>::to_vec);
                }
                let p = prefix.as_deref()?;
                memchr::memmem::rfind(&buf[1..], p).map(|i| i + 1)
            }
        }
    }
}

/// Hands the blocks' accumulators over in block order as they arrive.
struct Merger<'e, A, F> {
    each: &'e mut F,
    next: usize,
    /// Rows handed over.
    rows: u64,
    partial: bool,
    waiting: BTreeMap<usize, Outcome<A>>,
}

impl<A: Accumulate, F: FnMut(A)> Merger<'_, A, F> {
    fn take(&mut self, index: usize, outcome: Outcome<A>) -> Result<(), ScanError> {
        self.waiting.insert(index, outcome);
        while let Some(outcome) = self.waiting.remove(&self.next) {
            match outcome {
                Ok((acc, d)) => {
                    (self.each)(acc);
                    self.rows += d.rows;
                    self.partial |= d.partial;
                }
                Err(BlockError::Row(row, message)) => return Err(ScanError::Row(self.rows + row, message)),
                Err(BlockError::Boundary) => return Err(ScanError::Boundary),
            }
            self.next += 1;
        }
        Ok(())
    }
}

/// The row-at-a-time reader, for a MessagePack file whose records could not be told apart by
/// their first bytes: the rows after the first `skip` (already handed over), as one accumulator.
fn row_at_a_time<A: Accumulate, F: FnMut(A)>(
    path: &Path,
    need: Need,
    skip: u64,
    each: &mut F,
) -> Result<bool, ImportError> {
    let mut acc = A::default();
    let mut seen = 0;
    let cut = reader::for_each_row(path, |_, row| {
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
