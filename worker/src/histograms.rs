//! The per-episode histograms (team reward, episode length, agent reward) kept as exact bucket
//! counts by the worker itself, and rendered into `/metrics` after the recorder's exposition.
//!
//! Why not the `metrics` facade: metrics-exporter-prometheus queues every histogram sample and
//! folds the queue into bucket counts at upkeep. At six samples per Bucket Brigade episode and
//! a quarter of a million episodes a second, queueing and folding cost the worker more than 3%
//! of its throughput. A job's samples are all known at once, so here they are counted into a
//! job-local tally (a binary search and an add per sample) and merged into each series under
//! one short lock per job. The distributions stay exact: same buckets, sums and counts.
//!
//! The exposition is the exporter's (its `formatting` helpers), so dashboards cannot tell the
//! difference. Bucket bounds come from [`crate::telemetry::histogram_buckets`], set once per
//! process by [`crate::telemetry::install`]; a name without bounds gets only the `+Inf` bucket.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use metrics_exporter_prometheus::formatting::{
    sanitize_label_value, write_help_line, write_metric_line, write_type_line,
};

/// Counts of one histogram series: per bucket (not cumulative; the last slot is `+Inf`), sum
/// and count. Also the job-local tally that is merged into a series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    buckets: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Tally {
    /// An empty tally for `bounds`.
    pub fn new(bounds: &[f64]) -> Tally {
        Tally { buckets: vec![0; bounds.len() + 1], sum: 0.0, count: 0 }
    }

    /// Counts `value`: into the first bucket whose upper bound is at least `value`.
    pub fn record(&mut self, bounds: &[f64], value: f64) {
        // The library's rule, so a summary result's bucket counts are these.
        self.buckets[simfleet::aggregate::bucket_of(bounds, value)] += 1;
        self.sum += value;
        self.count += 1;
    }

    fn merge(&mut self, other: &Tally) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.sum += other.sum;
        self.count += other.count;
    }
}

/// One labelled histogram series.
#[derive(Debug)]
pub struct Series {
    bounds: Arc<[f64]>,
    counts: Mutex<Tally>,
}

impl Series {
    /// The series' bucket upper bounds.
    pub fn bounds(&self) -> &[f64] {
        &self.bounds
    }

    /// An empty job-local tally for this series.
    pub fn tally(&self) -> Tally {
        Tally::new(&self.bounds)
    }

    /// Adds a job's tally (made by [`Series::tally`]).
    pub fn merge(&self, tally: &Tally) {
        // Poisoning needs a panic under the lock, and `merge` cannot panic.
        self.counts.lock().expect("histogram series lock").merge(tally);
    }
}

/// Every exact histogram of the process, by metric name and rendered label set.
#[derive(Debug)]
pub struct Histograms {
    bounds: BTreeMap<String, Arc<[f64]>>,
    families: Mutex<BTreeMap<String, BTreeMap<String, Arc<Series>>>>,
}

static GLOBAL: OnceLock<Histograms> = OnceLock::new();

/// The process's histograms: those [`init`] configured, else the games' default buckets.
pub fn global() -> &'static Histograms {
    GLOBAL.get_or_init(|| Histograms::new(crate::telemetry::histogram_buckets(&BTreeMap::new())))
}

/// Sets the process's bucket bounds; false if histograms were already in use (then the bounds
/// in use stay).
pub(crate) fn init(bounds: BTreeMap<String, Vec<f64>>) -> bool {
    GLOBAL.set(Histograms::new(bounds)).is_ok()
}

impl Histograms {
    /// Histograms with these bounds per metric name.
    pub fn new(bounds: BTreeMap<String, Vec<f64>>) -> Histograms {
        let bounds = bounds.into_iter().map(|(name, b)| (name, Arc::from(b))).collect();
        Histograms { bounds, families: Mutex::new(BTreeMap::new()) }
    }

    /// The series `name{labels}`, created on first use.
    pub fn series(&self, name: &str, labels: &[(&str, &str)]) -> Arc<Series> {
        let bounds = self.bounds.get(name).cloned().unwrap_or_else(|| Arc::from(Vec::new()));
        let key =
            labels.iter().map(|(k, v)| format!("{k}=\"{}\"", sanitize_label_value(v))).collect::<Vec<_>>().join(",");
        let mut families = self.families.lock().expect("histogram families lock");
        let series = families
            .entry(name.to_string())
            .or_default()
            .entry(key)
            .or_insert_with(|| Arc::new(Series { counts: Mutex::new(Tally::new(&bounds)), bounds }));
        Arc::clone(series)
    }

    /// Appends every series in the Prometheus text format, as the exporter renders a histogram:
    /// `# HELP` (from [`crate::telemetry::help`]) and `# TYPE`, cumulative `_bucket` lines with
    /// `le`, `+Inf`, `_sum` and `_count`.
    pub fn render_into(&self, out: &mut String) {
        let families = self.families.lock().expect("histogram families lock");
        for (name, series) in families.iter() {
            if let Some(help) = crate::telemetry::help(name) {
                write_help_line(out, name, &help);
            }
            write_type_line(out, name, "histogram");
            for (labels, s) in series {
                let counts = s.counts.lock().expect("histogram series lock").clone();
                let labels: &[String] = if labels.is_empty() { &[] } else { std::slice::from_ref(labels) };
                let mut cumulative = 0;
                for (le, n) in s.bounds.iter().zip(&counts.buckets) {
                    cumulative += n;
                    write_metric_line(out, name, Some("bucket"), labels, Some(("le", le)), cumulative, None);
                }
                write_metric_line(out, name, Some("bucket"), labels, Some(("le", "+Inf")), counts.count, None);
                write_metric_line::<&str, f64>(out, name, Some("sum"), labels, None, counts.sum, None);
                write_metric_line::<&str, u64>(out, name, Some("count"), labels, None, counts.count, None);
            }
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histograms() -> Histograms {
        Histograms::new(BTreeMap::from([("h".to_string(), vec![1.0, 2.5, 10.0])]))
    }

    #[test]
    fn values_fall_in_the_first_bucket_at_or_above_them() {
        let bounds = [1.0, 2.5, 10.0];
        let mut t = Tally::new(&bounds);
        for v in [0.5, 1.0, 1.5, 2.5, 3.0, 10.0, 11.0, -4.0] {
            t.record(&bounds, v);
        }
        assert_eq!(t.buckets, vec![3, 2, 2, 1]);
        assert_eq!((t.count, t.sum), (8, 25.5));
    }

    #[test]
    fn renders_cumulative_buckets_sum_and_count_per_series() {
        let h = histograms();
        let a = h.series("h", &[("scenario", "default"), ("policy", "say \"hi\"")]);
        let mut t = a.tally();
        for v in [0.5, 2.0, 20.0] {
            t.record(a.bounds(), v);
        }
        a.merge(&t);
        a.merge(&t);
        h.series("h", &[("scenario", "easy"), ("policy", "x")]);
        let unknown = h.series("unknown", &[]);
        let mut t = unknown.tally();
        t.record(unknown.bounds(), 7.0);
        unknown.merge(&t);
        let mut out = String::new();
        h.render_into(&mut out);
        let l = r#"scenario="default",policy="say \"hi\"""#;
        let expected = format!(
            "# TYPE h histogram\n\
             h_bucket{{{l},le=\"1\"}} 2\nh_bucket{{{l},le=\"2.5\"}} 4\nh_bucket{{{l},le=\"10\"}} 4\n\
             h_bucket{{{l},le=\"+Inf\"}} 6\nh_sum{{{l}}} 45\nh_count{{{l}}} 6\n"
        );
        assert!(out.starts_with(&expected), "{out}");
        assert!(out.contains("h_count{scenario=\"easy\",policy=\"x\"} 0\n"), "{out}");
        assert!(out.contains("unknown_bucket{le=\"+Inf\"} 1\nunknown_sum 7\nunknown_count 1\n"), "{out}");
    }

    #[test]
    fn the_same_labels_give_the_same_series() {
        let h = histograms();
        let a = h.series("h", &[("p", "x")]);
        let b = h.series("h", &[("p", "x")]);
        assert!(Arc::ptr_eq(&a, &b));
    }
}
