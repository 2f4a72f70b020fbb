//! `coordinator summary FILE [--out CELLS]`: the summary table of a results file, in any format,
//! records or summary file; with --out, its one-row-per-cell summary file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::cell_table;
use crate::records::{self, cells};
use crate::summary::Summary;

/// Print the summary table of a results file (.jsonl, .csv, .msgpack or .parquet; records, or
/// the cell rows of a sweep that collected summaries): per game, scenario and policy set, the
/// episodes, mean team reward with 95% CI, outcome shares, mean length, and the best and worst
/// episodes with their seeds (look at one with `coordinator replay`).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results file.
    file: PathBuf,
    /// Also write one row per cell (the summary file a `collect = "summary"` sweep writes) to
    /// this file; the format follows the extension.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Prints the table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    print!("{}", summarise(&args.file)?.table());
    if let Some(out) = &args.out {
        let rows = match cells::is_cell_file(&args.file)? {
            true => cells::read_cells(&args.file)?,
            false => cell_table::rows_of_records(&args.file)?,
        };
        cells::write_cells(out, &rows).with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of every row of `file` (a partial trailing record is skipped, with a warning on
/// stderr), or of every cell of a summary file. `watch` prints it too, when it resumed a file.
pub fn summarise(file: &Path) -> anyhow::Result<Summary> {
    if cells::is_cell_file(file)? {
        return cell_table::summary_of(&cells::read_cells(file)?);
    }
    let mut summary = Summary::default();
    let mut mixed = None;
    let cut = records::for_each_row(file, |_, row| {
        if mixed.is_none() {
            if let Err(e) = summary.add_row(&row) {
                mixed = Some(e);
            }
        }
    })?;
    if let Some(e) = mixed {
        return Err(e.into());
    }
    if cut.is_some() {
        eprintln!("warning: {} ends with a partial record, which was skipped", file.display());
    }
    Ok(summary)
}
