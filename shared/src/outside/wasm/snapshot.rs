//! [`Snapshot`]: a `wasm:` instance's memory as `simfleet_init` left it, put back before every
//! episode ([`super::instance`]). The copy is most of an episode's fixed cost for a module that
//! decides quickly, so it is made in runs.

/// The memory after `simfleet_init`, and its runs of 4 KiB chunks that are all zero or not:
/// a zero run is put back with a fill, half the memory traffic of a copy (most of a small
/// module's memory is an untouched stack, heap or buffer).
#[derive(Default)]
pub(super) struct Snapshot {
    pub(super) bytes: Vec<u8>,
    /// (start, end, all zero), covering the memory in order.
    runs: Vec<(usize, usize, bool)>,
}

impl Snapshot {
    const CHUNK: usize = 4096;

    pub(super) fn of(memory: &[u8]) -> Snapshot {
        let mut runs: Vec<(usize, usize, bool)> = Vec::new();
        for (i, chunk) in memory.chunks(Snapshot::CHUNK).enumerate() {
            let (start, zero) = (i * Snapshot::CHUNK, chunk.iter().all(|b| *b == 0));
            match runs.last_mut() {
                Some(last) if last.2 == zero => last.1 = start + chunk.len(),
                _ => runs.push((start, start + chunk.len(), zero)),
            }
        }
        Snapshot { bytes: memory.to_vec(), runs }
    }

    /// Puts `memory` (as long as the snapshot) back to the snapshot.
    pub(super) fn restore(&self, memory: &mut [u8]) {
        for &(start, end, zero) in &self.runs {
            if zero {
                memory[start..end].fill(0);
            } else {
                memory[start..end].copy_from_slice(&self.bytes[start..end]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Snapshot;

    #[test]
    fn a_snapshot_restores_every_byte_of_its_runs() {
        let mut memory = vec![0u8; 5 * Snapshot::CHUNK + 100];
        memory[Snapshot::CHUNK + 7] = 1;
        memory[3 * Snapshot::CHUNK] = 2;
        memory[5 * Snapshot::CHUNK + 99] = 3;
        let snapshot = Snapshot::of(&memory);
        let kinds: Vec<bool> = snapshot.runs.iter().map(|r| r.2).collect();
        assert_eq!(kinds, [true, false, true, false, true, false]);
        assert_eq!(snapshot.runs.last().unwrap().1, memory.len());
        let mut dirty: Vec<u8> = (0..memory.len()).map(|i| (i % 251) as u8).collect();
        snapshot.restore(&mut dirty);
        assert_eq!(dirty, memory);
    }
}
