//! The forest plot of the report's first section: per scenario, every policy set's paired
//! difference in team reward against the baseline with its 95% interval, a zero line, and a
//! filled dot where the difference holds after Holm's correction (p < 0.05), a hollow one
//! where it does not. One small panel per scenario, each on its own axis, since scenarios'
//! rewards differ in scale.

use std::fmt::Write as _;

use super::html::escape;
use super::svg::{number, ticks, PALETTE};
use crate::compare::decided::Mark;
use crate::compare::Comparison;

const PANEL_W: f64 = 390.0;
const ROW_H: f64 = 18.0;

/// A stopping sweep's decision after a label (` · better`), empty without one.
fn decided(mark: Option<Mark>) -> String {
    mark.map_or(String::new(), |m| format!(" · {}", m.decision.as_str()))
}

/// The panel of one scenario's comparisons (all of one game and scenario); `marks`, one per
/// row, the stopping sweep's decisions, shown after the labels and in the tooltips.
pub fn panel(scenario: &str, baseline: &str, rows: &[&Comparison], marks: &[Option<Mark>]) -> String {
    let mark = |i: usize| marks.get(i).copied().flatten();
    let longest = (0..rows.len())
        .map(|i| rows[i].policy_set.chars().count().min(24) + decided(mark(i)).chars().count())
        .max()
        .unwrap_or(0);
    let label_w = (longest as f64 * 6.4 + 12.0).max(70.0);
    let plot_w = PANEL_W - label_w - 14.0;
    let h = 24.0 + ROW_H * rows.len() as f64 + 36.0;
    let lows = rows.iter().map(|r| r.reward.interval().0).filter(|x| x.is_finite());
    let highs = rows.iter().map(|r| r.reward.interval().1).filter(|x| x.is_finite());
    let lo = lows.fold(0.0f64, f64::min);
    let hi = highs.fold(0.0f64, f64::max);
    let pad = if hi > lo { (hi - lo) * 0.06 } else { 1.0 };
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |v: f64| label_w + plot_w * ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
    let base = 24.0 + ROW_H * rows.len() as f64;
    let mut out = format!(
        r##"<svg class="forest" viewBox="0 0 {PANEL_W} {h:.0}" width="{PANEL_W}" height="{h:.0}" role="img"><title>{}: team reward minus {}</title><text x="4" y="14" class="t">{}</text>"##,
        escape(scenario),
        escape(baseline),
        escape(scenario)
    );
    for v in ticks(lo, hi) {
        let _ = write!(
            out,
            r##"<line x1="{0:.1}" y1="20" x2="{0:.1}" y2="{1:.1}" class="grid"/><text x="{0:.1}" y="{2:.1}" class="s" text-anchor="middle">{3}</text>"##,
            x(v),
            base,
            base + 12.0,
            number(v)
        );
    }
    let _ = write!(out, r##"<line x1="{0:.1}" y1="20" x2="{0:.1}" y2="{1:.1}" class="zero"/>"##, x(0.0), base);
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{:.1}" class="s" text-anchor="middle">Δ team reward vs {}</text>"##,
        label_w + plot_w / 2.0,
        base + 28.0,
        escape(baseline)
    );
    for (i, r) in rows.iter().enumerate() {
        row_svg(&mut out, r, mark(i), 30.0 + ROW_H * i as f64, label_w, &x);
    }
    out.push_str("</svg>");
    out
}

/// One comparison's row at height `y`: its label (with the stopping decision), its interval and
/// its point, filled when it holds after Holm's correction; `x` places a value on the axis.
fn row_svg(out: &mut String, r: &Comparison, mark: Option<Mark>, y: f64, label_w: f64, x: &dyn Fn(f64) -> f64) {
    let (low, high) = r.reward.interval();
    let holds = r.p_holm < 0.05;
    let colour = if !holds {
        "#777"
    } else if r.reward.mean > 0.0 {
        PALETTE[0]
    } else {
        PALETTE[5]
    };
    let fill = if holds { colour } else { "#fff" };
    let label: String = if r.policy_set.chars().count() > 24 {
        r.policy_set.chars().take(23).chain(['…']).collect()
    } else {
        r.policy_set.clone()
    };
    let stopped = mark.map_or(String::new(), |m| {
        let bound = |x: Option<f64>| x.map_or("—".into(), number);
        format!("; stopping: {} [{}, {}]", m.decision.as_str(), bound(m.low), bound(m.high))
    });
    let _ = write!(
        out,
        r##"<g><title>{}: {} [{}, {}], {} pairs, p (Holm) {}{}</title><text x="{:.1}" y="{:.1}" text-anchor="end">{}<tspan class="m">{}</tspan></text>"##,
        escape(&r.policy_set),
        number(r.reward.mean),
        number(low),
        number(high),
        r.reward.n,
        crate::compare::table::p_value(r.p_holm),
        escape(&stopped),
        label_w - 6.0,
        y + 4.0,
        escape(&label),
        escape(&decided(mark))
    );
    if low.is_finite() && high.is_finite() {
        let _ = write!(
            out,
            r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/>"##,
            x(low),
            x(high)
        );
    }
    let _ = write!(
        out,
        r##"<circle cx="{:.1}" cy="{y:.1}" r="4" fill="{fill}" stroke="{colour}" stroke-width="1.5"/></g>"##,
        x(r.reward.mean)
    );
}
