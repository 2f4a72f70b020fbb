//! `coordinator compare FILE... [--baseline NAME]`: paired comparisons of every policy set with a
//! baseline on their shared seeds ([`crate::compare`]), optionally also as CSV or JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::compare;
use crate::compare::decided::{self, Decided};
use crate::compare::CompareError;
use crate::records::Input;
use crate::stop::decisions::Decisions;

/// Compare every policy set with a baseline, seed by seed. Every policy set of a cell plays the
/// same seeds (common random numbers), so per game and scenario each policy set is paired with
/// the baseline on the seeds both played: the mean difference of team reward and of win rate
/// (policy set − baseline) with 95% t intervals, the number of pairs, how many times narrower
/// the paired interval is than the unpaired one on the same episodes, and the paired t-test's
/// p-value with Holm's correction across every comparison shown. Seeds only one side played are
/// left out and counted.
///
/// The file is read twice on every core; memory holds the baseline's values per seed and a
/// bit per episode, not the episodes.
///
/// Reads records files (any export format: .jsonl, .csv, .msgpack, .parquet) and summary files
/// (a sweep with collect = "summary"): summary jobs play every policy set of a (game, scenario)
/// of one [[cells]] entry on the same seeds and keep the moments of the per-seed differences, so
/// the table of a summary file is the one its records would give (to rounding).
///
/// Results of a stopping sweep (`[stop]`, its `<stem>.stop.json` beside them) add, for each
/// comparison the sweep asked, its decision (better, worse, equivalent, capped) and the
/// anytime-valid interval it rests on.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results files (.jsonl, .csv, .msgpack or .parquet), or directories of shards (their
    /// results files, sorted by name), read as one table.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The policy set every other is compared with [default: a stopping sweep's `baseline`;
    /// else `random` if there is one, else the sweep's first policy set: that of the cell with
    /// the first job].
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Also write the comparisons here: CSV (.csv) or a JSON array (.json), one record per
    /// comparison.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The `<stem>.stop.json` of the stopping sweep (`[stop]`) the results come from, when it is
    /// not beside FILE (found there by default): the table then shows the sweep's decision and
    /// anytime-valid interval of each comparison it asked (same baseline), and --out has them
    /// in `decision`, `interval_low`, `interval_high`.
    #[arg(long, value_name = "STOP_JSON")]
    stop: Vec<PathBuf>,
}

/// Prints the table (and writes the file).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let input = Input::open(&args.files)?;
    let decisions = Decisions::find(&args.files, &args.stop)?;
    // A stopping sweep's comparisons are those with its baseline: the default here too.
    let baseline = args.baseline.as_deref().or_else(|| decisions.as_ref().and_then(Decisions::baseline));
    let comparisons = if input.is_cells() {
        let rows = input.read_cells()?;
        match (compare::summaries::compare_rows(&rows, baseline), &decisions) {
            // A stopping sweep's summary rows hold no pairs: its decisions are still worth showing.
            (Err(CompareError::NotPaired), Some(d)) if baseline == d.baseline() => {
                return decisions_only(d, args.out.as_deref(), &input);
            }
            (compared, _) => compared.with_context(|| format!("cannot compare {input}"))?,
        }
    } else {
        let compared = compare::pairing::compare_input(&input, baseline, crate::records::scan::BLOCK)
            .with_context(|| format!("cannot compare {input}"))?;
        Input::warn_partial(&compared.partial);
        if compared.duplicates > 0 {
            eprintln!(
                "warning: {} episode(s) repeat a (cell, seed) already read; the first of each was kept",
                compared.duplicates
            );
        }
        compared.comparisons
    };
    let decided = decisions.as_ref().map(|d| Decided::of(&comparisons, d));
    print!("{}", compare::table::table(&comparisons, decided.as_ref()));
    if let Some(out) = args.out {
        compare::table::write(&comparisons, decided.as_ref(), &out)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        println!("comparisons written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The decisions of a stopping sweep whose summary file holds no paired differences.
fn decisions_only(d: &Decisions, out: Option<&std::path::Path>, input: &Input) -> anyhow::Result<ExitCode> {
    let shown = decided::decisions_only(d, out)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.map_or(String::new(), |o| o.display().to_string())))?;
    let Some(text) = shown else {
        return Err(anyhow::Error::new(CompareError::NotPaired).context(format!("cannot compare {input}")));
    };
    print!("{text}");
    if let Some(out) = out {
        println!("decisions written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
