//! The checkpoints: the seed counts after which a stopping group's questions are asked. A
//! function of the cap alone, so the seeds a cell plays depend on the sweep file and the
//! results, never on timing.

/// Seeds before the first look: enough for the normal approximation of a mean at the far-tail
/// levels a Bonferroni split asks for.
pub const FIRST: u64 = 64;
/// Growth between looks: each block adds half of what was played, so a cell plays at most 50%
/// more than it needed and the looks (whose number the error is split by) grow as log(cap).
pub const GROWTH: f64 = 1.5;
/// Checkpoints are multiples of this, so blocks split evenly into jobs.
pub const STEP: u64 = 32;

/// The checkpoints for a cap of `cap` seeds, increasing, the last `cap`: 64, then ×1.5 rounded
/// to a multiple of 32, and the cap. A checkpoint within a quarter of the cap below it is
/// dropped: its look would cost a share of the error for a block of almost nothing.
pub fn checkpoints(cap: u64) -> Vec<u64> {
    if cap <= FIRST {
        return vec![cap.max(1)];
    }
    let mut out = Vec::new();
    let mut n = FIRST;
    while n < cap {
        out.push(n);
        let grown = ((n as f64 * GROWTH / STEP as f64).round() as u64) * STEP;
        n = grown.max(n + STEP);
    }
    while out.last().is_some_and(|&last| (cap - last) * 4 < cap) {
        out.pop();
    }
    out.push(cap);
    out
}
