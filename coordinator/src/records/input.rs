//! [`Input`]: the results files an analysis command (`summary`, `report`, `rank`, `compare`)
//! reads as one table. The command line names files or directories of shards (what a fleet of
//! writers or several sweeps leave); a directory stands for the results files in it, those with
//! a known extension, sorted by name. Every file is either a records file or a summary file, and
//! one table cannot mix the two: a records file's rows are episodes, a summary file's are cells.

use std::fmt;
use std::path::{Path, PathBuf};

use super::any_format::AnyFormat;
use super::error::ImportError;
use super::reader;
use super::row::Row;
use super::summary_file::{self, CellRow};

/// The files of one analysis, in reading order, all records or all summaries.
#[derive(Clone, Debug)]
pub struct Input {
    files: Vec<PathBuf>,
    cells: bool,
    /// How the command line named them, for messages.
    named: String,
}

impl Input {
    /// The files `paths` name: each file itself, each directory its results files sorted by name.
    /// An error names a directory without results files, a file of unknown format, and the
    /// first pair of files that mixes records with summaries.
    pub fn open(paths: &[PathBuf]) -> Result<Input, ImportError> {
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                let shards = shards_in(path)?;
                if shards.is_empty() {
                    return Err(ImportError::NoShards(path.display().to_string()));
                }
                files.extend(shards);
            } else {
                AnyFormat::of(path)?;
                files.push(path.clone());
            }
        }
        let Some(first) = files.first() else {
            return Err(ImportError::NoShards(String::new()));
        };
        let cells = summary_file::is_cell_file(first)?;
        for file in &files[1..] {
            if summary_file::is_cell_file(file)? != cells {
                let (summary, records) = if cells { (first, file) } else { (file, first) };
                return Err(ImportError::Mixed {
                    summary: summary.display().to_string(),
                    records: records.display().to_string(),
                });
            }
        }
        let named = paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
        Ok(Input { files, cells, named })
    }

    /// One file (a resumed `watch` summarising its output).
    pub fn file(path: &Path) -> Result<Input, ImportError> {
        Input::open(&[path.to_path_buf()])
    }

    /// The files, in reading order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Whether the files are summary files (one row per cell), not records.
    pub fn is_cells(&self) -> bool {
        self.cells
    }

    /// Calls `f` with every row of every file, file after file; stops at the first error. A
    /// partial trailing record of a file is skipped, and the files that had one are returned.
    pub fn for_each_row(&self, f: impl FnMut(Row)) -> Result<Vec<PathBuf>, ImportError> {
        self.for_each_row_of(None, f)
    }

    /// [`Input::for_each_row`], reading only `columns` where the format allows (Parquet: see
    /// [`reader::for_each_row_of`]); `f` must use only the fields it asked for.
    pub fn for_each_row_of(
        &self,
        columns: Option<&[&str]>,
        mut f: impl FnMut(Row),
    ) -> Result<Vec<PathBuf>, ImportError> {
        let mut cut = Vec::new();
        for file in &self.files {
            if reader::for_each_row_of(file, columns, |_, row| f(row))?.is_some() {
                cut.push(file.clone());
            }
        }
        Ok(cut)
    }

    /// Every row of every summary file, file after file.
    pub fn read_cells(&self) -> Result<Vec<CellRow>, ImportError> {
        let mut rows = Vec::new();
        for file in &self.files {
            rows.extend(summary_file::read_cells(file)?);
        }
        Ok(rows)
    }

    /// Warns on stderr of each file whose partial trailing record [`Input::for_each_row`] skipped.
    pub fn warn_partial(cut: &[PathBuf]) {
        for file in cut {
            eprintln!("warning: {} ends with a partial record, which was skipped", file.display());
        }
    }
}

impl fmt::Display for Input {
    /// The paths as given on the command line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.named)
    }
}

/// The files of `dir` with a results extension, sorted by name; subdirectories and other files
/// (a report beside its shards) are not read.
fn shards_in(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let ioerr = ImportError::io(dir);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(ioerr)? {
        let path = entry.map_err(ioerr)?.path();
        if path.is_file() && AnyFormat::of(&path).is_ok() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}
