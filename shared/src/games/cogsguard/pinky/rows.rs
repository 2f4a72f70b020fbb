//! Whole window rows compared at once, for the knowledge update: a row of 11 cells is read as
//! a few machine words (the compiler turns each into one load), so a row that matches needs
//! no look at its cells and no call to `memcmp`.

use crate::games::cogsguard::obs::VIEW;

const _: () = assert!(VIEW == 11, "the words below cover a row of 11 cells");

/// Four packed cells from `at` as one word.
#[inline(always)]
fn word(row: &[u16; VIEW], at: usize) -> u64 {
    u64::from(row[at]) | u64::from(row[at + 1]) << 16 | u64::from(row[at + 2]) << 32 | u64::from(row[at + 3]) << 48
}

/// Whether two rows of packed cells differ: three words each (the last overlaps the second).
#[inline(always)]
pub fn rows_differ(a: &[u16; VIEW], b: &[u16; VIEW]) -> bool {
    ((word(a, 0) ^ word(b, 0)) | (word(a, 4) ^ word(b, 4)) | (word(a, 7) ^ word(b, 7))) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_differ_exactly_when_one_of_their_cells_does() {
        let zero = [0u16; VIEW];
        assert!(!rows_differ(&zero, &zero));
        for j in 0..VIEW {
            for v in [1u16, 0x100, 0xffff] {
                let mut row = zero;
                row[j] = v;
                assert!(rows_differ(&row, &zero) && rows_differ(&zero, &row));
            }
        }
    }
}
