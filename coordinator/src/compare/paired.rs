//! One paired difference: policy set minus baseline on the seeds both played, with its 95%
//! interval, the interval the same episodes would give unpaired, and the paired t-test's
//! p-value.

use serde::Serialize;

use super::stats::{t95, t_two_sided_p};

/// The paired difference of one quantity (team reward, or the win indicator 0/1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Pairs.
    pub n: u64,
    /// Mean of (policy set − baseline) over the pairs.
    pub mean: f64,
    /// Half-width of its 95% interval: t(n−1) × sd of the differences / √n.
    pub half: f64,
    /// Half-width of the 95% interval of the difference of the two means as if the seeds were
    /// independent (Welch: t with Welch–Satterthwaite degrees of freedom × √(s²a/n + s²b/n)).
    pub unpaired_half: f64,
    /// Two-sided p-value of the paired t-test of a zero mean difference.
    pub p: f64,
}

/// Running mean and sum of squared deviations (Welford).
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn add(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn var(&self) -> f64 {
        self.m2 / (self.n - 1.0)
    }
}

/// [`Paired`] accumulated pair by pair: what [`Paired::of`] computes over its pairs, for a reader
/// that meets them one at a time (the paired comparisons of a file read once, [`super::pairing`]).
#[derive(Clone, Copy, Default)]
pub struct PairedSums {
    base: Moments,
    other: Moments,
    diff: Moments,
}

impl PairedSums {
    /// Adds one pair (baseline, policy set).
    pub fn add(&mut self, b: f64, o: f64) {
        self.base.add(b);
        self.other.add(o);
        self.diff.add(o - b);
    }

    /// The paired difference of the pairs added. Fewer than two give NaN intervals and p-value.
    pub fn finish(&self) -> Paired {
        let (base, other, diff) = (self.base, self.other, self.diff);
        if diff.n < 2.0 {
            return Paired::of_moments(diff.n, diff.mean, f64::NAN, f64::NAN, f64::NAN);
        }
        Paired::of_moments(diff.n, diff.mean, diff.var(), base.var(), other.var())
    }
}

impl Paired {
    /// The paired difference of `n` pairs from their figures: the mean difference and its
    /// sample variance, and each side's sample variance (what a summary file's merged moments
    /// give, [`super::summaries`]). Fewer than two pairs give NaN intervals and p-value.
    pub fn of_moments(n: f64, mean: f64, var_diff: f64, var_base: f64, var_other: f64) -> Paired {
        if n < 2.0 {
            return Paired { n: n as u64, mean, half: f64::NAN, unpaired_half: f64::NAN, p: f64::NAN };
        }
        let se = (var_diff / n).sqrt();
        let half = t95(n - 1.0) * se;
        let p = if se > 0.0 {
            t_two_sided_p(mean / se, n - 1.0)
        } else if mean == 0.0 {
            1.0 // every pair equal: no evidence of a difference
        } else {
            0.0 // the same nonzero difference on every seed
        };
        let (va, vb) = (var_base / n, var_other / n);
        let se_u = (va + vb).sqrt();
        let df = if va + vb > 0.0 { (va + vb).powi(2) / ((va * va + vb * vb) / (n - 1.0)) } else { n - 1.0 };
        let unpaired_half = t95(df) * se_u;
        Paired { n: n as u64, mean, half, unpaired_half, p }
    }

    /// The difference of `pairs` (baseline, policy set), one per shared seed. Fewer than two
    /// pairs give NaN intervals and p-value.
    pub fn of(pairs: impl IntoIterator<Item = (f64, f64)>) -> Paired {
        let mut sums = PairedSums::default();
        for (b, o) in pairs {
            sums.add(b, o);
        }
        sums.finish()
    }

    /// How many times narrower the paired interval is than the unpaired one (NaN when either
    /// is undefined, infinite when the paired one has zero width).
    pub fn narrower(&self) -> f64 {
        self.unpaired_half / self.half
    }

    /// The 95% interval.
    pub fn interval(&self) -> (f64, f64) {
        (self.mean - self.half, self.mean + self.half)
    }
}
