//! The one layout of the coordinator's terminal tables (`summary`, the end of `run` and `watch`,
//! `status`, `rank`): a header, a rule of dashes under each column, the rows; columns two spaces
//! apart, text left-aligned, numbers right-aligned, no borders, no trailing spaces, so that a
//! table pastes into a notebook or an issue as it is.
//!
//! comfy-table lays it out, measuring cells by their display width (a wide character takes two
//! columns), and never wraps: a table wider than the terminal stays one line per row.

use comfy_table::presets::NOTHING;
use comfy_table::{CellAlignment, Table};

/// How a column's cells (its heading too) are aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// Spaces between two columns.
const GAP: u16 = 2;

fn layout(head: &[&str], align: &[Align], rows: &[&[String]]) -> Table {
    let mut table = Table::new();
    table.load_style(NOTHING).set_header(head).add_rows(rows.iter().map(|r| r.to_vec()));
    let n = head.len();
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i + 1 < n { GAP } else { 0 }));
        column.set_cell_alignment(match align[i] {
            Align::Left => CellAlignment::Left,
            Align::Right => CellAlignment::Right,
        });
    }
    table
}

/// `rows` under `head`, one line each, every line ending in a newline. `align` has one entry
/// per column, as every row has one cell per column.
pub fn render<R: AsRef<[String]>>(head: &[&str], align: &[Align], rows: &[R]) -> String {
    debug_assert_eq!(head.len(), align.len(), "one alignment per column");
    let rows: Vec<&[String]> = rows.iter().map(AsRef::as_ref).collect();
    // The rule is a row of its own, as wide as each column's widest cell: measured first.
    let widths = layout(head, align, &rows).column_max_content_widths();
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(usize::from(*w))).collect();
    let table = layout(head, align, &std::iter::once(rule.as_slice()).chain(rows).collect::<Vec<_>>());
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_by_display_width() {
        let rows = [["bucket_brigade".to_string(), "1.5".to_string()], ["火事".to_string(), "-12.25".to_string()]];
        let table = render(&["game", "mean"], &[Align::Left, Align::Right], &rows);
        let expected = "\
game              mean
--------------  ------
bucket_brigade     1.5
火事            -12.25
";
        assert_eq!(table, expected);
    }

    #[test]
    fn no_rows_is_the_header_and_its_rule() {
        assert_eq!(
            render::<Vec<String>>(&["sweep", "status"], &[Align::Left; 2], &[]),
            "sweep  status\n-----  ------\n"
        );
    }
}
