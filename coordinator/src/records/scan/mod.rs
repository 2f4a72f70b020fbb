//! The parallel results reader of the analysis commands: a command names the columns it needs
//! ([`Need`]) and an [`Accumulate`] (a mergeable per-cell accumulator); [`scan`] decodes only
//! those columns of every file of an [`Input`], on every core, and merges the partial
//! accumulators in file order, so the result is the row-at-a-time one up to the rounding of the
//! merges (counts exactly, moments by Chan et al.'s pairwise update).
//!
//! Each format decodes its own blocks ([`crate::records::format::Format::scan`]):
//!
//! - Parquet: row groups in parallel; of each, only the projected column chunks;
//!   dictionary-encoded strings are read as dictionary indices and compared as such, so a row
//!   costs no allocation and no string comparison.
//! - MessagePack, JSON Lines, CSV: the file is read in blocks cut at record boundaries and the
//!   blocks are decoded in parallel ([`blocks`], with each format's cutter and decoders),
//!   skipping the fields not needed without allocating them. Memory stays flat: a few blocks
//!   are in flight.
//!
//! What the decoders share (the row handed over, the needed columns, the accumulator, how a
//! block decoded) is in [`block`], below them all, so they import it and not each other.
//!
//! `summary`, `report`, `rank`, `compare` and `summary --out` (whole rows, [`Need::whole`]) read
//! records through it; [`scan_each`] hands a consumer each block in file order, so `report`,
//! `rank` and `compare` drop a block's episodes once taken. The row-at-a-time reader
//! ([`super::reader`]) stays for `watch`'s resume and as the reference of the equality tests.

pub mod block;
pub mod blocks;
mod episodes;

#[cfg(test)]
pub(crate) mod tests;

use std::path::PathBuf;

pub use block::{Accumulate, Need, ScanRow};
pub use blocks::BLOCK;
pub use episodes::{Episode, Episodes, Group};

use super::any_format::AnyFormat;
use super::error::ImportError;
use super::format::Format;
use super::input::Input;

/// Threads to decode on: every core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Accumulates every row of every file of `input` (records files), file after file, decoding on
/// `threads` threads. A partial trailing record of a file is skipped, and the files that had
/// one are returned, as [`Input::for_each_row`] does.
pub fn scan<A: Accumulate>(input: &Input, need: Need, threads: usize) -> Result<(A, Vec<PathBuf>), ImportError> {
    scan_blocks(input, need, threads, blocks::BLOCK)
}

/// [`scan`] with the line formats cut into blocks of `block` bytes (small in tests of other
/// modules' accumulators, to merge many blocks).
pub(crate) fn scan_blocks<A: Accumulate>(
    input: &Input,
    need: Need,
    threads: usize,
    block: usize,
) -> Result<(A, Vec<PathBuf>), ImportError> {
    let mut total = A::default();
    let cut = scan_each(input, need, threads, block, |acc: A| total.merge(acc))?;
    Ok((total, cut))
}

/// Hands the accumulator of every block of rows of every file of `input` (a Parquet row group,
/// a block of a line format) to `each`, in file order, as soon as the blocks before it have
/// been handed over. A consumer that folds each block into state of its own and drops it
/// (`report`, `rank`, `compare`: the episodes of a block, replayed in file order) keeps memory
/// flat: only a few blocks are decoded ahead. Returns the files that ended in a partial
/// record; `block` is the line formats' block size, as in `scan_blocks`.
pub fn scan_each<A: Accumulate>(
    input: &Input,
    need: Need,
    threads: usize,
    block: usize,
    mut each: impl FnMut(A),
) -> Result<Vec<PathBuf>, ImportError> {
    let mut cut = Vec::new();
    for file in input.files() {
        if AnyFormat::of(file)?.scan(file, need, threads, block, &mut each)? {
            cut.push(file.clone());
        }
    }
    Ok(cut)
}

/// One file, as [`scan_blocks`] reads it; whether it ended in a partial record.
#[cfg(test)]
fn scan_file<A: Accumulate>(
    path: &std::path::Path,
    need: Need,
    threads: usize,
    block: usize,
) -> Result<(A, bool), ImportError> {
    let (acc, cut) = scan_blocks(&Input::file(path)?, need, threads, block)?;
    Ok((acc, !cut.is_empty()))
}
