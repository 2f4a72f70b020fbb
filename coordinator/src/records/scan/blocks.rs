//! The block reader of the line formats and MessagePack: the file is read block after block,
//! each block cut at its last record boundary (the rest starts the next block), and the blocks
//! are decoded by worker threads into partial accumulators, merged in block order. At most
//! `2 × threads` blocks are in memory at once, whatever the file's size.
//!
//! Where a record can begin, and how a block is decoded, is the format's ([`Blocks`], in
//! `jsonl/`, `csv/`, `msgpack/`); this module knows neither.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;

use super::block::{Accumulate, BlockError, Decoded, Need};
use crate::records::error::ImportError;

/// Bytes read per block.
pub const BLOCK: usize = 8 << 20;

/// Given bytes that begin with a record, where the last whole record in them ends, if any
/// (`None`: read on, one record is longer than the bytes). One per file: it may learn from the
/// first block (MessagePack's record prefix).
pub type Cutter<'a> = Box<dyn FnMut(&[u8]) -> Option<usize> + 'a>;

/// How a format's blocks are cut and decoded.
pub trait Blocks: Sync {
    /// A cutter for one file.
    fn cutter(&self) -> Cutter<'_>;

    /// Decodes `block` (whole records; the `last` block may end in a partial one, skipped) into
    /// `acc`. [`BlockError::Boundary`] says the block was not cut at record boundaries.
    fn decode<A: Accumulate>(&self, block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError>;
}

/// How a file's scan ended.
pub enum Scanned {
    /// Every block decoded; whether the file ended in a partial record.
    Done {
        /// A partial record ended the file.
        partial: bool,
    },
    /// A block did not decode to exactly its end: its cut was a guess that failed (MessagePack
    /// tells a record's start by its first bytes, which can occur inside a value). The first
    /// `rows` rows were handed over; the format reads the rest row at a time.
    Boundary {
        /// Rows handed over.
        rows: u64,
    },
}

struct Block {
    index: usize,
    bytes: Vec<u8>,
    last: bool,
}

type Outcome<A> = Result<(A, Decoded), BlockError>;

/// Hands the accumulator of each block of `file` (at `path`, for errors) to `each`, in block
/// order. `carry` are bytes already read from the file (past a header of `header_rows` rows,
/// which error row numbers count).
#[allow(clippy::too_many_arguments)]
pub fn scan<A: Accumulate, D: Blocks, F: FnMut(A)>(
    path: &Path,
    mut file: File,
    carry: Vec<u8>,
    header_rows: u64,
    decoder: &D,
    need: Need,
    threads: usize,
    block: usize,
    each: &mut F,
) -> Result<Scanned, ImportError> {
    let name = path.display().to_string();
    let mut merger = Merger { each, next: 0, rows: 0, partial: false, waiting: BTreeMap::new() };
    let result = scan_blocks::<A, D, F>(&mut file, carry, decoder, need, threads.max(1), block.max(64), &mut merger);
    match result {
        Ok(()) => Ok(Scanned::Done { partial: merger.partial }),
        Err(ScanError::Io(e)) => Err(ImportError::Io { path: name, source: e }),
        Err(ScanError::Row(row, message)) => Err(ImportError::Row { path: name, row: row + header_rows, message }),
        // The blocks handed over so far decoded to exactly their ends: only the rows after
        // them are read again.
        Err(ScanError::Boundary) => Ok(Scanned::Boundary { rows: merger.rows }),
    }
}

enum ScanError {
    Io(io::Error),
    Row(u64, String),
    Boundary,
}

fn scan_blocks<A: Accumulate, D: Blocks, F: FnMut(A)>(
    file: &mut File,
    mut carry: Vec<u8>,
    decoder: &D,
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
        let mut cutter = decoder.cutter();
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
                let cut = if eof { Some(buf.len()) } else { cutter(&buf) };
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
