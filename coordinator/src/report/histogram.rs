//! Histograms for the report: bins fixed from a first pass over the file (the range of each
//! (game, scenario)), so every policy set of a scenario is drawn on the same axis, and counts
//! filled in a second pass. Memory is bins × cells, never episodes. A summary file's cells
//! bring their own counts, in the game's Prometheus buckets ([`Histogram::from_buckets`]): those
//! bars have explicit edges of unequal widths and are drawn side by side.

/// Bin edges: `count` bins of `width` from `low`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bins {
    /// Lower edge of the first bin.
    pub low: f64,
    /// Width of every bin.
    pub width: f64,
    /// Number of bins.
    pub count: usize,
    /// Whether the bins hold integers (edges at half-integers).
    pub integer: bool,
}

/// Bins for team rewards.
pub const REWARD_BINS: usize = 24;
/// Most bins for episode lengths (one per length when the range is narrower).
pub const LENGTH_BINS: usize = 40;

impl Bins {
    /// `count` equal bins over [min, max] (a degenerate range gets one bin of width 1).
    pub fn real(min: f64, max: f64, count: usize) -> Bins {
        if max <= min || !min.is_finite() || !max.is_finite() {
            let low = if min.is_finite() { min - 0.5 } else { 0.0 };
            return Bins { low, width: 1.0, count: 1, integer: false };
        }
        Bins { low: min, width: (max - min) / count as f64, count, integer: false }
    }

    /// Bins for integers in [min, max]: one per value, or equal groups of values when there are
    /// more than `most` values.
    pub fn integer(min: u32, max: u32, most: usize) -> Bins {
        let span = (max.max(min) - min) as usize + 1;
        let per = span.div_ceil(most).max(1);
        Bins { low: f64::from(min) - 0.5, width: per as f64, count: span.div_ceil(per), integer: true }
    }

    /// The bin of `x` (values outside the range go to the first or last bin).
    pub fn index(&self, x: f64) -> usize {
        let i = ((x - self.low) / self.width).floor();
        if i.is_nan() || i < 0.0 {
            0
        } else {
            (i as usize).min(self.count - 1)
        }
    }

    /// The smallest and largest value of the range, as labels: integer bins are labelled by
    /// the values they hold, real bins by their edges.
    pub fn extent(&self) -> (f64, f64) {
        let (lo, hi) = (self.low, self.low + self.width * self.count as f64);
        if self.integer {
            (lo + 0.5, hi - 0.5)
        } else {
            (lo, hi)
        }
    }

    /// Lower and upper edge of bin `i`.
    pub fn edges(&self, i: usize) -> (f64, f64) {
        let lo = self.low + self.width * i as f64;
        (lo, lo + self.width)
    }
}

/// Counts per bin.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// The bins.
    pub bins: Bins,
    /// One count per bin.
    pub counts: Vec<u64>,
    /// Explicit bin edges (`counts.len() + 1`), when the bins are buckets of unequal widths.
    pub edges: Option<Vec<f64>>,
}

impl Histogram {
    /// An empty histogram over `bins`.
    pub fn new(bins: Bins) -> Histogram {
        Histogram { bins, counts: vec![0; bins.count], edges: None }
    }

    /// The bars of a cell aggregate's bucket counts, from the first bucket with a value to the
    /// last; the open ends (below the first bound, above the last) are closed at the cell's
    /// smallest and largest value.
    pub fn from_buckets(h: &simfleet::aggregate::Histogram, min: f64, max: f64) -> Histogram {
        let n = h.counts.len();
        let first = h.counts.iter().position(|c| *c > 0).unwrap_or(0);
        let last = h.counts.iter().rposition(|c| *c > 0).unwrap_or(0);
        let lower = |i: usize| if i == 0 { min } else { h.bounds[i - 1].max(min) };
        let upper = |i: usize| if i + 1 == n { max } else { h.bounds[i].min(max) };
        let mut edges: Vec<f64> = (first..=last).map(lower).collect();
        edges.push(upper(last));
        let counts = h.counts.get(first..=last).map_or_else(Vec::new, <[u64]>::to_vec);
        let bins = Bins { low: edges[0], width: 1.0, count: counts.len().max(1), integer: false };
        let counts = if counts.is_empty() { vec![0] } else { counts };
        Histogram { bins, counts, edges: Some(edges) }
    }

    /// Lower and upper edge of bar `i`.
    pub fn edges(&self, i: usize) -> (f64, f64) {
        match &self.edges {
            Some(e) if i + 1 < e.len() => (e[i], e[i + 1]),
            _ => self.bins.edges(i),
        }
    }

    /// The range the bars cover, as labels.
    pub fn extent(&self) -> (f64, f64) {
        match &self.edges {
            Some(e) if e.len() >= 2 => (e[0], e[e.len() - 1]),
            _ => self.bins.extent(),
        }
    }

    /// Counts `x`.
    pub fn add(&mut self, x: f64) {
        let i = self.bins.index(x);
        self.counts[i] += 1;
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// Running minimum and maximum.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// Smallest value seen.
    pub min: f64,
    /// Largest value seen.
    pub max: f64,
}

impl Default for Range {
    fn default() -> Self {
        Range { min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

impl Range {
    /// Widens the range to hold `x` (NaN is ignored).
    pub fn add(&mut self, x: f64) {
        if x < self.min {
            self.min = x;
        }
        if x > self.max {
            self.max = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_bins_cover_the_range_and_clamp_the_ends() {
        let b = Bins::real(0.0, 10.0, 5);
        assert_eq!((b.index(0.0), b.index(1.99), b.index(2.0), b.index(10.0)), (0, 0, 1, 4));
        assert_eq!((b.index(-3.0), b.index(99.0)), (0, 4));
        assert_eq!(b.edges(1), (2.0, 4.0));
        let one = Bins::real(7.0, 7.0, 5);
        assert_eq!((one.count, one.index(7.0)), (1, 0));
    }

    #[test]
    fn integer_bins_hold_one_value_each_until_there_are_too_many() {
        let b = Bins::integer(13, 20, 40);
        assert_eq!(b.count, 8);
        assert_eq!((b.index(13.0), b.index(20.0)), (0, 7));
        let wide = Bins::integer(1, 100, 40);
        assert_eq!((wide.count, wide.width), (34, 3.0));
        assert_eq!((wide.index(1.0), wide.index(3.0), wide.index(4.0), wide.index(100.0)), (0, 0, 1, 33));
        let mut h = Histogram::new(b);
        for x in [13.0, 13.0, 20.0] {
            h.add(x);
        }
        assert_eq!((h.counts[0], h.counts[7], h.total()), (2, 1, 3));
    }
}
