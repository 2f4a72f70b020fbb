//! The columns a Parquet scan needs ([`Need`]), found in a file's schema: where each is, and
//! how the `stats.llm` column is stored.

use parquet::basic::Type as Physical;

use crate::records::scan::block::Need;

/// The positions of the needed columns in the file's schema.
pub(super) struct Columns {
    pub(super) strings: [usize; 5],
    /// `sweep`, if needed.
    pub(super) sweep: Option<usize>,
    /// `job`, if the file has one.
    pub(super) job: Option<usize>,
    pub(super) seed: usize,
    pub(super) length: usize,
    pub(super) team_reward: usize,
    /// `stats.llm`, if needed and present, and whether it holds JSON text.
    pub(super) llm: Option<(usize, bool)>,
    /// Whole rows ([`Need::whole`]): the columns the writer stored as JSON text.
    pub(super) whole: Option<Vec<String>>,
}

/// Where the columns `need` asks for are in the file of `meta`.
pub(super) fn columns_of(meta: &parquet::file::metadata::ParquetMetaData, need: Need) -> Result<Columns, String> {
    let schema = meta.file_metadata().schema_descr();
    let find = |col: &str| -> Result<usize, String> {
        schema.columns().iter().position(|c| c.name() == col).ok_or_else(|| format!("no column {col}"))
    };
    let json_text = super::reader::json_columns(meta.file_metadata()).iter().any(|c| c == "stats.llm");
    let llm = schema
        .columns()
        .iter()
        .position(|c| c.name() == "stats.llm" && c.physical_type() == Physical::BYTE_ARRAY)
        .filter(|_| need.llm)
        .map(|i| (i, json_text));
    Ok(Columns {
        strings: [find("game")?, find("engine_version")?, find("scenario")?, find("policy_set")?, find("outcome")?],
        sweep: if need.sweep { Some(find("sweep")?) } else { None },
        job: schema.columns().iter().position(|c| c.name() == "job" && c.physical_type() == Physical::INT64),
        seed: find("seed")?,
        length: find("length")?,
        team_reward: find("team_reward")?,
        llm,
        whole: need.whole.then(|| super::reader::json_columns(meta.file_metadata())),
    })
}
