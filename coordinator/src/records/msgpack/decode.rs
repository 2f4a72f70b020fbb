//! Blocks of MessagePack: cut where the bytes every record begins with (its map header and
//! first key, taken from the file's first record) occur, decoded into [`ScanRow`]s by the
//! hand-written walker ([`super::walker`]) or into whole rows ([`Need::whole`]). Those bytes
//! could also occur inside a value, so a block must decode to exactly its end: if one does not
//! ([`BlockError::Boundary`]), no cut is trusted and the format reads the rest row at a time.
//!
//! [`ScanRow`]: crate::records::scan::ScanRow

use std::io;

use super::walker;
use crate::records::row::Row;
use crate::records::scan::block::{Accumulate, BlockError, Decoded, Need};
use crate::records::scan::blocks::{Blocks, Cutter};

/// MessagePack's [`Blocks`].
pub(super) struct MsgpackBlocks;

impl Blocks for MsgpackBlocks {
    fn cutter(&self) -> Cutter<'_> {
        // The first bytes of every record, once the first record is seen.
        let mut prefix: Option<Vec<u8>> = None;
        Box::new(move |buf: &[u8]| {
            if prefix.is_none() {
                prefix = walker::record_prefix(buf).map(<[u8]>::to_vec);
            }
            let p = prefix.as_deref()?;
            memchr::memmem::rfind(&buf[1..], p).map(|i| i + 1)
        })
    }

    fn decode<A: Accumulate>(&self, block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
        match need.whole {
            true => whole(block, last, acc),
            false => walker::decode(block, last, need, acc),
        }
    }
}

/// Each record of `block` as a whole row, decoded by `rmp_serde` as the row-at-a-time reader
/// decodes it; the block must decode to exactly its end, except for a partial record ending the
/// `last`.
fn whole<A: Accumulate>(block: &[u8], last: bool, acc: &mut A) -> Result<Decoded, BlockError> {
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
