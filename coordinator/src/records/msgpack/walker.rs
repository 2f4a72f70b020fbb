//! Blocks of concatenated MessagePack maps into [`ScanRow`]s, by a hand-written walker over the
//! bytes: the needed values are read in place (strings borrowed), every other value is skipped
//! by its length markers without being built.

use serde_json::Value;

use crate::records::scan::block::{Accumulate, BlockError, Decoded, Need, ScanRow};

/// Why the bytes at a position are not a record.
enum Bad {
    /// The bytes end inside the record.
    Truncated,
    /// Not a record of ours.
    Invalid(String),
}

type R<T> = Result<T, Bad>;

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.buf.len()).ok_or(Bad::Truncated)?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn byte(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }

    fn be(&mut self, n: usize) -> R<u64> {
        Ok(self.take(n)?.iter().fold(0u64, |a, b| (a << 8) | u64::from(*b)))
    }

    /// A map header's number of entries.
    fn map_len(&mut self) -> R<usize> {
        match self.byte()? {
            m @ 0x80..=0x8f => Ok(usize::from(m & 0x0f)),
            0xde => Ok(self.be(2)? as usize),
            0xdf => Ok(self.be(4)? as usize),
            m => Err(Bad::Invalid(format!("expected a map, found marker {m:#04x}"))),
        }
    }

    fn str(&mut self) -> R<&'a str> {
        std::str::from_utf8(self.key()?).map_err(|e| Bad::Invalid(e.to_string()))
    }

    /// A string's bytes, not checked for UTF-8: keys are only compared with ours.
    fn key(&mut self) -> R<&'a [u8]> {
        let n = match self.byte()? {
            m @ 0xa0..=0xbf => usize::from(m & 0x1f),
            0xd9 => self.be(1)? as usize,
            0xda => self.be(2)? as usize,
            0xdb => self.be(4)? as usize,
            m => return Err(Bad::Invalid(format!("expected a string, found marker {m:#04x}"))),
        };
        self.take(n)
    }

    /// An integer of any encoding.
    fn int(&mut self) -> R<i128> {
        Ok(match self.byte()? {
            m @ (0x00..=0x7f | 0xe0..=0xff) => i128::from(m as i8),
            0xcc => i128::from(self.be(1)?),
            0xcd => i128::from(self.be(2)?),
            0xce => i128::from(self.be(4)?),
            0xcf => i128::from(self.be(8)?),
            0xd0 => i128::from(self.be(1)? as u8 as i8),
            0xd1 => i128::from(self.be(2)? as u16 as i16),
            0xd2 => i128::from(self.be(4)? as u32 as i32),
            0xd3 => i128::from(self.be(8)? as i64),
            m => return Err(Bad::Invalid(format!("expected an integer, found marker {m:#04x}"))),
        })
    }

    /// A non-negative integer.
    fn uint(&mut self) -> R<u64> {
        u64::try_from(self.int()?)
            .map_err(|_| Bad::Invalid("expected an unsigned integer, found a negative one".into()))
    }

    /// A number as `f64` (a float, or an integer, as serde reads one into `f64`).
    fn f64(&mut self) -> R<f64> {
        match self.buf.get(self.pos).copied().ok_or(Bad::Truncated)? {
            0xca => {
                self.pos += 1;
                Ok(f64::from(f32::from_bits(self.be(4)? as u32)))
            }
            0xcb => {
                self.pos += 1;
                Ok(f64::from_bits(self.be(8)?))
            }
            _ => Ok(self.int()? as f64),
        }
    }

    /// Skips one value, however nested, without building it.
    fn skip(&mut self) -> R<()> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            let m = self.byte()?;
            let n = match m {
                0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => 0,
                0x80..=0x8f => {
                    pending += 2 * u64::from(m & 0x0f);
                    0
                }
                0x90..=0x9f => {
                    pending += u64::from(m & 0x0f);
                    0
                }
                0xa0..=0xbf => usize::from(m & 0x1f),
                0xc4 | 0xd9 => self.be(1)? as usize,
                0xc5 | 0xda => self.be(2)? as usize,
                0xc6 | 0xdb => self.be(4)? as usize,
                0xc7 => self.be(1)? as usize + 1,
                0xc8 => self.be(2)? as usize + 1,
                0xc9 => self.be(4)? as usize + 1,
                0xca => 4,
                0xcb => 8,
                0xcc | 0xd0 => 1,
                0xcd | 0xd1 => 2,
                0xce | 0xd2 => 4,
                0xcf | 0xd3 => 8,
                0xd4 => 2,
                0xd5 => 3,
                0xd6 => 5,
                0xd7 => 9,
                0xd8 => 17,
                0xdc => {
                    pending += self.be(2)?;
                    0
                }
                0xdd => {
                    pending += self.be(4)?;
                    0
                }
                0xde => {
                    pending += 2 * self.be(2)?;
                    0
                }
                0xdf => {
                    pending += 2 * self.be(4)?;
                    0
                }
                0xc1 => return Err(Bad::Invalid("marker 0xc1 is never used".into())),
            };
            self.take(n)?;
        }
        Ok(())
    }
}

/// The bytes every record of a file begins with: the first record's map header and first key.
pub(super) fn record_prefix(buf: &[u8]) -> Option<&[u8]> {
    let mut c = Cursor { buf, pos: 0 };
    c.map_len().ok()?;
    c.str().ok()?;
    Some(&buf[..c.pos])
}

/// The MessagePack `block`: whole records, and on the `last` block perhaps a truncated one,
/// which is skipped. A record cut short in any other block means the block did not begin and
/// end at record boundaries.
pub(super) fn decode<A: Accumulate>(block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
    let mut c = Cursor { buf: block, pos: 0 };
    let mut rows = 0;
    while c.pos < block.len() {
        rows += 1;
        match record(&mut c, need, acc) {
            Ok(()) => {}
            Err(Bad::Truncated) if last => return Ok(Decoded { rows: rows - 1, partial: true }),
            Err(Bad::Truncated) => return Err(BlockError::Boundary),
            Err(Bad::Invalid(m)) => return Err(BlockError::Row(rows, m)),
        }
    }
    Ok(Decoded { rows, partial: false })
}

fn record<A: Accumulate>(c: &mut Cursor<'_>, need: Need, acc: &mut A) -> R<()> {
    let mut row = ScanRow::default();
    let mut llm: Option<Value> = None;
    let mut seen = 0u8;
    for _ in 0..c.map_len()? {
        let bit = match c.key()? {
            b"sweep" => {
                row.sweep = c.str()?;
                0
            }
            b"game" => {
                row.game = c.str()?;
                1
            }
            b"engine_version" => {
                row.engine_version = c.str()?;
                2
            }
            b"scenario" => {
                row.scenario = c.str()?;
                4
            }
            b"policy_set" => {
                row.policy_set = c.str()?;
                8
            }
            b"outcome" => {
                row.outcome = c.str()?;
                16
            }
            b"seed" => {
                row.seed = c.uint()?;
                32
            }
            b"job" => {
                row.job = Some(c.uint()?);
                0
            }
            b"length" => {
                row.length = u32::try_from(c.uint()?).map_err(|e| Bad::Invalid(format!("length: {e}")))?;
                64
            }
            b"team_reward" => {
                row.team_reward = c.f64()?;
                128
            }
            b"stats" if need.llm => {
                for _ in 0..c.map_len()? {
                    let key = c.key()?;
                    let value = c.pos;
                    c.skip()?;
                    if key == b"llm" {
                        let v = rmp_serde::from_slice(&c.buf[value..c.pos]).map_err(|e| Bad::Invalid(e.to_string()))?;
                        llm = Some(v);
                    }
                }
                0
            }
            _ => {
                c.skip()?;
                0
            }
        };
        seen |= bit;
    }
    if seen != 0xff {
        return Err(Bad::Invalid("a record lacks a field of the row".into()));
    }
    row.llm = llm.as_ref().filter(|v| !v.is_null());
    acc.add(&row);
    Ok(())
}
