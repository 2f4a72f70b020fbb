//! `coordinator summary FILE... [--out CELLS]`: the summary table of results files (or
//! directories of shards) read as one table, in any format, records or summary files; with
//! --out, their one-row-per-cell summary file (with a stopping sweep's decisions when its
//! `.stop.json` is beside FILE or given with --stop).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::collector::cell_merge;
use crate::rebuild;
use crate::records::scan::{self, Need};
use crate::records::{summary_file, Input};
use crate::stop::decisions::{self, Decisions};
use crate::summary::{Summary, SummaryScan};
use crate::sweep::Sweep;

/// Print the summary table of results files (.jsonl, .csv, .msgpack or .parquet; records, or
/// the cell rows of a sweep that collected summaries): per game, scenario and policy set, the
/// episodes, mean team reward with 95% CI, outcome shares, mean length, and the best and worst
/// episodes with their seeds (look at one with `coordinator replay`); for cells with `llm`
/// seats, their model calls, failed calls and the share of decisions that fell back. Several
/// files, or a directory of shards, are read as one table, file after file.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results files, or directories of shards (their .jsonl, .csv, .msgpack and .parquet
    /// files, sorted by name); all records or all summary files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Also write one row per cell (the summary file a `collect = "summary"` sweep writes) to
    /// this file; the format follows the extension.
    #[arg(long)]
    out: Option<PathBuf>,
    /// With --out from records: the sweep file they came from. The summary file is then the
    /// one its summary sweep (`--collect summary`) writes: that sweep's id in `sweep`, its jobs
    /// in `jobs`. Without it, the rows keep the records' sweep id and count the records' jobs.
    #[arg(long, value_name = "SWEEP", requires = "out")]
    sweep: Option<PathBuf>,
    /// With --out from a stopping sweep (`[stop]`): the `<stem>.stop.json` its run wrote, when
    /// it is not beside FILE (found there by default). The summary file then carries each cell's
    /// `question`, `decision`, `interval_low`, `interval_high` and `decisions` (docs/records.md).
    #[arg(long, value_name = "STOP_JSON", requires = "out")]
    stop: Vec<PathBuf>,
}

/// Prints the table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let input = Input::open(&args.files)?;
    let summary = summarise(&input)?;
    print!("{}", summary.table());
    // Cells with `llm` seats: their calls, failed calls and fallbacks (records or summary files).
    if summary.has_llm_cells() {
        print!("{}", crate::llm_tally::LlmTally::of_input(&input)?.table());
    }
    if let Some(out) = &args.out {
        let mut rows = match (input.is_cells(), &args.sweep) {
            (true, _) => input.read_cells()?,
            (false, None) => rebuild::rows_of_records(&input)?,
            (false, Some(path)) => rebuild::rows_of_records_as(&input, &Sweep::load(path)?)?,
        };
        // A summary file read back keeps the decisions it carries unless a stop file says again.
        if let Some(d) = Decisions::find(&args.files, &args.stop)? {
            decisions::apply(&mut rows, &d);
            let files: Vec<String> = d.files.iter().map(|f| f.display().to_string()).collect();
            eprintln!("decisions from {}", files.join(", "));
        }
        summary_file::write_cells(out, &rows).with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of every row of `input` (a partial trailing record is skipped, with a warning on
/// stderr), or of every cell of summary files. `watch` prints it too, when it resumed a file.
/// Records are read by the parallel reader: only the columns the table needs, on every core.
pub fn summarise(input: &Input) -> anyhow::Result<Summary> {
    if input.is_cells() {
        return cell_merge::summary_of(&input.read_cells()?);
    }
    let (scan, cut) = scan::scan::<SummaryScan>(input, Need { llm: true, ..Need::default() }, scan::threads())?;
    let summary = scan.finish()?;
    Input::warn_partial(&cut);
    Ok(summary)
}
