//! Hand-written inline SVG charts for the report: a cell's pair of histograms (team reward and
//! episode length) and a dot-and-whisker chart of estimates with intervals. No scripts, no
//! external references: the page shows the same offline and in a mail attachment.

use std::fmt::Write as _;

use super::histogram::Histogram;
use super::html::escape;

/// Colours of the charts (colour-blind safe: Okabe–Ito).
pub const PALETTE: [&str; 6] = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"];

/// A compact number for labels: about 4 significant digits, trailing zeros dropped.
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    let a = x.abs();
    let decimals = if a >= 1000.0 {
        0
    } else if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let mut s = format!("{x:.decimals$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}

/// Round tick values inside [lo, hi]: a step of 1, 2 or 5 × 10^k.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 4.0;
    if raw <= 0.0 || !raw.is_finite() {
        return vec![lo];
    }
    let mag = 10f64.powf(raw.log10().floor());
    // The largest nice step not above a quarter of the range: four to ten ticks.
    let step = [5.0, 2.0, 1.0].map(|m| m * mag).into_iter().find(|s| *s <= raw * (1.0 + 1e-9)).unwrap_or(mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Width of one histogram panel.
const PANEL_W: f64 = 350.0;
/// Height of a cell chart.
const CHART_H: f64 = 150.0;

/// One histogram panel of a cell chart, `x0` from the left.
fn panel(out: &mut String, x0: f64, hist: &Histogram, label: &str, mean: f64, colour: &str) {
    let (w, h) = (PANEL_W, CHART_H);
    let top = 22.0;
    let plot_h = h - top - 30.0;
    let base = top + plot_h;
    let max = hist.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let total = hist.total().max(1) as f64;
    let bar_w = w / hist.counts.len().max(1) as f64;
    let _ = write!(
        out,
        r##"<text x="{x0}" y="14" class="t">{} <tspan class="m">mean {}</tspan></text>"##,
        escape(label),
        number(mean)
    );
    for (i, &c) in hist.counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let bh = plot_h * c as f64 / max;
        let (lo, hi) = hist.edges(i);
        let _ = write!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>[{}, {}): {c} episodes ({:.1}%)</title></rect>"##,
            x0 + bar_w * i as f64 + 0.5,
            base - bh,
            (bar_w - 1.0).max(0.5),
            bh,
            number(lo),
            number(hi),
            100.0 * c as f64 / total
        );
    }
    let (lo, hi) = hist.extent();
    let _ = write!(
        out,
        r##"<line x1="{x0}" y1="{base}" x2="{}" y2="{base}" class="ax"/><text x="{x0}" y="{}" class="s">{}</text><text x="{}" y="{}" class="s" text-anchor="end">{}</text><text x="{x0}" y="{}" class="s">max bar {:.1}% of episodes</text>"##,
        x0 + w,
        base + 13.0,
        number(lo),
        x0 + w,
        base + 13.0,
        number(hi),
        base + 26.0,
        100.0 * max / total
    );
}

/// The chart of one cell: its team-reward histogram beside its episode-length histogram.
pub fn cell_chart(cell: &str, reward: &Histogram, reward_mean: f64, length: &Histogram, length_mean: f64) -> String {
    let (w, h) = (760.0, CHART_H);
    let mut out = format!(
        r##"<svg class="cell-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img"><title>{}</title>"##,
        escape(cell)
    );
    panel(&mut out, 10.0, reward, "team reward", reward_mean, PALETTE[0]);
    panel(&mut out, 400.0, length, "episode length", length_mean, PALETTE[1]);
    out.push_str("</svg>");
    out
}

/// One line of an interval chart.
#[derive(Clone, Debug)]
pub struct Interval {
    /// What the line is about.
    pub label: String,
    /// The estimate.
    pub value: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end of its interval.
    pub high: f64,
    /// Index into [`PALETTE`].
    pub colour: usize,
}

/// A dot-and-whisker chart of `rows` over [`lo`, `hi`] with a zero line when 0 is inside,
/// `class` naming the chart kind.
pub fn interval_chart(class: &str, rows: &[Interval], lo: f64, hi: f64, axis: &str) -> String {
    let longest = rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(0);
    let label_w = (longest.min(90) as f64 * 6.3 + 12.0).max(80.0);
    let plot_w = 420.0;
    let row_h = 18.0;
    let (w, h) = (label_w + plot_w + 20.0, rows.len() as f64 * row_h + 46.0);
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, lo + 1.0) };
    let x = |v: f64| label_w + plot_w * ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
    let mut out =
        format!(r##"<svg class="{class}" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img">"##);
    for v in ticks(lo, hi) {
        let _ = write!(
            out,
            r##"<line x1="{0:.1}" y1="8" x2="{0:.1}" y2="{1:.1}" class="grid"/><text x="{0:.1}" y="{2:.1}" class="s" text-anchor="middle">{3}</text>"##,
            x(v),
            h - 34.0,
            h - 22.0,
            number(v)
        );
    }
    if lo < 0.0 && hi > 0.0 {
        let _ = write!(out, r##"<line x1="{0:.1}" y1="8" x2="{0:.1}" y2="{1:.1}" class="zero"/>"##, x(0.0), h - 34.0);
    }
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{:.1}" class="s" text-anchor="middle">{}</text>"##,
        label_w + plot_w / 2.0,
        h - 6.0,
        escape(axis)
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 18.0 + row_h * i as f64;
        let shown: String = if r.label.chars().count() > 90 {
            r.label.chars().take(89).chain(['…']).collect()
        } else {
            r.label.clone()
        };
        let colour = PALETTE[r.colour % PALETTE.len()];
        let _ = write!(
            out,
            r##"<g><title>{}: {} [{}, {}]</title><text x="{:.1}" y="{:.1}" class="l" text-anchor="end">{}</text><line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/><circle cx="{:.1}" cy="{y:.1}" r="4" fill="{colour}"/></g>"##,
            escape(&r.label),
            number(r.value),
            number(r.low),
            number(r.high),
            label_w - 8.0,
            y + 4.0,
            escape(&shown),
            x(r.low),
            x(r.high),
            x(r.value)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_ticks_read_well() {
        assert_eq!(number(92.000_000_1), "92");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(number(1234.56), "1235");
        assert_eq!(number(12.345), "12.35");
        assert_eq!(ticks(-4.34, 3.84), vec![-4.0, -2.0, 0.0, 2.0]);
        assert_eq!(ticks(0.0, 1.0).len(), 6);
        assert_eq!(ticks(0.0, 1.0)[5], 1.0);
        assert_eq!(ticks(-40.0, 100.0), vec![-40.0, -20.0, 0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    }
}
