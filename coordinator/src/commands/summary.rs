//! `coordinator summary FILE`: the summary table of a results file, in any format.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::records;
use crate::summary::Summary;

/// Print the summary table of a results file (.jsonl, .csv, .msgpack or .parquet): per game,
/// scenario and policy set, the episodes, mean team reward with 95% CI, outcome shares and
/// mean length.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results file.
    file: PathBuf,
}

/// Prints the table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    print!("{}", summarise(&args.file)?.table());
    Ok(ExitCode::SUCCESS)
}

/// The summary of every row of `file` (a partial trailing record is skipped, with a warning on
/// stderr). `watch` prints it too, when it resumed a file.
pub fn summarise(file: &Path) -> anyhow::Result<Summary> {
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
