//! The heatmap of the report's first section: one game's scenarios (rows) by policy sets
//! (columns), each cell coloured by its mean team reward on one scale with a legend, its win
//! rate printed in it (and its mean under it), so the winner of each scenario shows at once and
//! survives a greyscale print (viridis runs dark to light).

use std::fmt::Write as _;

use super::html::escape;
use super::svg::{number, ticks};

/// One cell of the grid.
#[derive(Clone, Debug)]
pub struct HeatCell {
    /// Mean team reward.
    pub mean: f64,
    /// Win rate, for a game with a win outcome.
    pub win: Option<f64>,
    /// Episodes.
    pub episodes: u64,
}

/// The grid of one game.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Row labels.
    pub scenarios: Vec<String>,
    /// Column labels.
    pub policy_sets: Vec<String>,
    /// `cells[row][column]`; `None` where the sweep did not play that pair.
    pub cells: Vec<Vec<Option<HeatCell>>>,
    /// The column drawn as the baseline.
    pub baseline: Option<String>,
}

/// Viridis at nine even stops: perceptually uniform, colour-blind safe, monotone in lightness.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 45, 123),
    (59, 82, 139),
    (44, 114, 142),
    (33, 145, 140),
    (40, 174, 128),
    (94, 201, 98),
    (170, 220, 50),
    (253, 231, 37),
];

/// The colour of `t` in [0, 1] and whether text on it should be dark.
pub fn colour(t: f64) -> (String, bool) {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.5 };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + f * (f64::from(q) - f64::from(p))).round() as u8;
    let (r, g, bl) = (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2));
    // Relative luminance (sRGB, roughly): dark text on the light half of the scale.
    let lum = (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(bl)) / 255.0;
    (format!("#{r:02x}{g:02x}{bl:02x}"), lum > 0.45)
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() > max {
        s.chars().take(max - 1).chain(['…']).collect()
    } else {
        s.to_string()
    }
}

const CELL_H: f64 = 34.0;

/// The SVG of `grid`, titled `title`.
pub fn heatmap(title: &str, grid: &Grid) -> String {
    let means = grid.cells.iter().flatten().flatten().map(|c| c.mean);
    let (lo, hi) = means.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), m| (l.min(m), h.max(m)));
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let span = if hi > lo { hi - lo } else { 1.0 };
    let longest_row = grid.scenarios.iter().map(|s| s.chars().count().min(40)).max().unwrap_or(0);
    let longest_col = grid.policy_sets.iter().map(|s| s.chars().count().min(22)).max().unwrap_or(0);
    let label_w = longest_row as f64 * 6.6 + 14.0;
    let cell_w = (longest_col as f64 * 6.6 + 10.0).max(70.0);
    let top = 40.0;
    let grid_h = grid.scenarios.len() as f64 * CELL_H;
    let legend_y = top + grid_h + 18.0;
    let has_win = grid.cells.iter().flatten().flatten().any(|c| c.win.is_some());
    let caption = legend_caption(lo, hi, has_win);
    // Wide enough for the grid and for the legend's caption (10px text, about 5.5px a character).
    let w = (label_w + cell_w * grid.policy_sets.len() as f64 + 10.0)
        .max(label_w + 310.0)
        .max(label_w + caption.chars().count() as f64 * 5.5 + 10.0);
    let h = legend_y + 48.0;
    let mut out = format!(
        r##"<svg class="heatmap" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img"><title>{}</title>"##,
        escape(title)
    );
    column_heads(&mut out, grid, label_w, cell_w, top);
    for (i, scenario) in grid.scenarios.iter().enumerate() {
        let y = top + CELL_H * i as f64;
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text>"##,
            label_w - 8.0,
            y + CELL_H / 2.0 + 4.0,
            escape(scenario),
            escape(&clip(scenario, 40))
        );
        for (j, cell) in grid.cells[i].iter().enumerate() {
            let at = (label_w + cell_w * j as f64, y, cell_w);
            let names = (scenario.as_str(), grid.policy_sets[j].as_str());
            cell_svg(&mut out, at, names, cell.as_ref(), (lo, span));
        }
    }
    legend(&mut out, label_w, legend_y, lo, hi, &caption);
    out.push_str("</svg>");
    out
}

/// The policy sets' names over the columns, the baseline's marked.
fn column_heads(out: &mut String, grid: &Grid, label_w: f64, cell_w: f64, top: f64) {
    for (j, ps) in grid.policy_sets.iter().enumerate() {
        let x = label_w + cell_w * (j as f64 + 0.5);
        let base = grid.baseline.as_deref() == Some(ps.as_str());
        let _ = write!(
            out,
            r##"<text x="{x:.1}" y="{:.1}" class="t" text-anchor="middle"><title>{}</title>{}</text>"##,
            top - 20.0,
            escape(ps),
            escape(&clip(ps, 22))
        );
        if base {
            let _ = write!(
                out,
                r##"<text x="{x:.1}" y="{:.1}" class="s" text-anchor="middle">baseline</text>"##,
                top - 7.0
            );
        }
    }
}

/// One cell of the grid at `(x, y, width)`: coloured by its mean on the scale `(lo, span)`,
/// with its win share (and mean) written in it; an empty frame for a cell never played.
fn cell_svg(
    out: &mut String,
    (x, y, cell_w): (f64, f64, f64),
    (scenario, set): (&str, &str),
    cell: Option<&HeatCell>,
    (lo, span): (f64, f64),
) {
    let Some(c) = cell else {
        let _ = write!(
            out,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="#fff" stroke="#ddd"/>"##,
            cell_w - 2.0,
            CELL_H - 2.0
        );
        return;
    };
    let (fill, dark) = colour((c.mean - lo) / span);
    let ink = if dark { "#111" } else { "#fff" };
    let win = c.win.map(|w| format!("win {:.1}%, ", 100.0 * w)).unwrap_or_default();
    let _ = write!(
        out,
        r##"<g><title>{} / {}: {win}mean team reward {} ({} episodes)</title><rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"/>"##,
        escape(scenario),
        escape(set),
        number(c.mean),
        c.episodes,
        cell_w - 2.0,
        CELL_H - 2.0
    );
    let cx = x + (cell_w - 2.0) / 2.0;
    match c.win {
        Some(w) => {
            let _ = write!(
                out,
                r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" style="fill:{ink};font-weight:600">{:.0}%</text><text x="{cx:.1}" y="{:.1}" text-anchor="middle" style="fill:{ink};font-size:9px">{}</text>"##,
                y + 14.0,
                100.0 * w,
                y + 27.0,
                number(c.mean)
            );
        }
        None => {
            let _ = write!(
                out,
                r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" style="fill:{ink};font-weight:600">{}</text>"##,
                y + CELL_H / 2.0 + 3.0,
                number(c.mean)
            );
        }
    }
    out.push_str("</g>");
}

/// The colour bar under the grid: 60 strips from `lo` to `hi`, with round ticks.
fn legend(out: &mut String, x0: f64, y: f64, lo: f64, hi: f64, caption: &str) {
    let (w, strips) = (300.0, 60);
    let span = if hi > lo { hi - lo } else { 1.0 };
    for k in 0..strips {
        let (fill, _) = colour((f64::from(k) + 0.5) / f64::from(strips));
        let _ = write!(
            out,
            r##"<rect x="{:.2}" y="{y:.1}" width="{:.2}" height="10" fill="{fill}"/>"##,
            x0 + w * f64::from(k) / f64::from(strips),
            w / f64::from(strips) + 0.3
        );
    }
    for v in ticks(lo, hi) {
        let x = x0 + w * (v - lo) / span;
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" class="ax"/><text x="{x:.1}" y="{:.1}" class="s" text-anchor="middle">{}</text>"##,
            y + 10.0,
            y + 14.0,
            y + 25.0,
            number(v)
        );
    }
    let _ = write!(out, r##"<text x="{x0:.1}" y="{:.1}" class="s">{}</text>"##, y + 40.0, escape(caption));
}

/// What the legend says under the colour bar.
fn legend_caption(lo: f64, hi: f64, has_win: bool) -> String {
    let inside =
        if has_win { "in each cell: win rate, mean team reward under it" } else { "in each cell: mean team reward" };
    format!("colour: mean team reward ({} to {}); {inside}", number(lo), number(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_runs_dark_to_light_with_readable_text() {
        assert_eq!(colour(0.0), ("#440154".to_string(), false), "viridis starts dark purple, white text");
        assert_eq!(colour(1.0), ("#fde725".to_string(), true), "and ends yellow, dark text");
        assert_eq!(colour(-3.0), colour(0.0), "clamped");
        assert_eq!(colour(0.5).0, "#21918c");
    }

    #[test]
    fn every_cell_prints_its_win_rate_and_a_missing_one_is_blank() {
        let cell = |mean, win| Some(HeatCell { mean, win: Some(win), episodes: 10 });
        let grid = Grid {
            scenarios: vec!["default".into(), "hard <x>".into()],
            policy_sets: vec!["a".into(), "b".into()],
            cells: vec![vec![cell(1.0, 0.25), cell(3.0, 0.5)], vec![cell(-1.0, 0.13), None]],
            baseline: Some("b".into()),
        };
        let svg = heatmap("t", &grid);
        for text in [">25%</text>", ">50%</text>", ">13%</text>", "hard &lt;x&gt;", ">baseline</text>"] {
            assert!(svg.contains(text), "{text} in {svg}");
        }
        assert_eq!(svg.matches("fill=\"#fff\" stroke=\"#ddd\"").count(), 1, "one cell not played");
        assert!(svg.contains("colour: mean team reward (-1 to 3)"), "the legend's range");
    }
}
