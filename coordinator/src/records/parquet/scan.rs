//! Parquet files in parallel: the row groups are shared out among the threads (each takes the
//! next one not taken), and of each only the needed column chunks are decoded. The string
//! columns are read page by page: a dictionary-encoded page's values are its dictionary
//! indices (the RLE / bit-packed hybrid), so a row group's strings are its dictionary (a few
//! entries) and one `u32` per row, and two rows' keys compare as indices. The numeric columns
//! go through the parquet crate's typed column reader. Each row group gets its own accumulator;
//! they are handed over in row-group order as they are done, and a thread takes a row group
//! only a few ahead of the last one handed over, so memory stays flat however many there are.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::{mpsc, Condvar, Mutex};

use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};
use parquet::column::reader::get_typed_column_reader;
use parquet::data_type::{ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::file::serialized_reader::SerializedFileReader;
use serde_json::Value;

use super::needed::{columns_of, Columns};
use crate::records::error::ImportError;
use crate::records::scan::block::{Accumulate, Need, ScanRow};

/// A row group's accumulator, or (row in the file, message).
type GroupResult<A> = Result<A, (u64, String)>;

const GAME: usize = 0;
const ENGINE_VERSION: usize = 1;
const SCENARIO: usize = 2;
const POLICY_SET: usize = 3;
const OUTCOME: usize = 4;

/// Hands the accumulator of each row group of the Parquet file at `path` to `each`, in
/// row-group order, decoding on `threads` threads.
pub(super) fn scan<A: Accumulate, F: FnMut(A)>(
    path: &Path,
    need: Need,
    threads: usize,
    each: &mut F,
) -> Result<(), ImportError> {
    let name = path.display().to_string();
    let rowerr = |row: u64, message: String| ImportError::Row { path: name.clone(), row, message };
    let file = File::open(path).map_err(|source| ImportError::Io { path: name.clone(), source })?;
    let reader = SerializedFileReader::new(file).map_err(|e| {
        rowerr(
            0,
            format!("{e} (a Parquet file is complete only once its writer finished; was the export interrupted?)"),
        )
    })?;
    let meta = reader.metadata();
    let columns = columns_of(meta, need).map_err(|m| rowerr(0, m))?;
    let groups = reader.num_row_groups();
    let mut first_row = Vec::with_capacity(groups);
    let mut rows = 0u64;
    for g in 0..groups {
        first_row.push(rows);
        rows += meta.row_group(g).num_rows() as u64;
    }
    let threads = threads.min(groups.max(1));
    // (next row group to take, row groups handed over); a thread waits while the next one is
    // more than `ahead` past the handed-over ones, so at most that many wait in memory.
    let ahead = 2 * threads;
    let progress = (Mutex::new((0usize, 0usize)), Condvar::new());
    let (to_main, done) = mpsc::channel::<(usize, GroupResult<A>)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let to_main = to_main.clone();
            let progress = &progress;
            let first_row = &first_row;
            let columns = &columns;
            s.spawn(move || read_groups::<A>(path, columns, (groups, ahead), progress, first_row, &to_main));
        }
        drop(to_main);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let mut failed = None;
        for (g, result) in done.iter() {
            waiting.insert(g, result);
            while let Some(result) = waiting.remove(&next) {
                match result {
                    Ok(acc) if failed.is_none() => each(acc),
                    Ok(_) => {}
                    Err((row, m)) => {
                        failed.get_or_insert(rowerr(row, m));
                        // Stop the threads: nothing after the error is handed over.
                        progress.0.lock().expect("no thread panics holding the lock").0 = groups;
                    }
                }
                next += 1;
                progress.0.lock().expect("no thread panics holding the lock").1 = next;
                progress.1.notify_all();
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

/// What one thread of [`scan`] does: takes the next row group (at most `ahead` past those
/// handed over), reads it into an accumulator and sends it back, until none is left.
fn read_groups<A: Accumulate>(
    path: &Path,
    columns: &Columns,
    (groups, ahead): (usize, usize),
    progress: &(Mutex<(usize, usize)>, Condvar),
    first_row: &[u64],
    to_main: &mpsc::Sender<(usize, GroupResult<A>)>,
) {
    // A reader of its own: the readers of one `File` share its offset (their
    // handles are clones of one descriptor), so threads cannot share one.
    let own = File::open(path)
        .map_err(|e| e.to_string())
        .and_then(|f| SerializedFileReader::new(f).map_err(|e| e.to_string()));
    loop {
        let g = {
            let (lock, wake) = progress;
            let mut p = lock.lock().expect("no thread panics holding the lock");
            while p.0 < groups && p.0 >= p.1 + ahead {
                p = wake.wait(p).expect("no thread panics holding the lock");
            }
            if p.0 >= groups {
                return;
            }
            p.0 += 1;
            p.0 - 1
        };
        let result = own
            .as_ref()
            .map_err(|e| (0, e.clone()))
            .and_then(|reader| reader.get_row_group(g).map_err(|e| (0, e.to_string())))
            .and_then(|rg| row_group::<A>(rg.as_ref(), columns))
            .map_err(|(row, m)| (first_row[g] + row, m));
        if to_main.send((g, result)).is_err() {
            return;
        }
    }
}

/// A row group read whole: every column, record by record, as the row-at-a-time reader
/// decodes them.
fn whole_rows<A: Accumulate>(rg: &dyn RowGroupReader, json_columns: &[String]) -> Result<A, (u64, String)> {
    let mut acc = A::default();
    let rows = rg.get_row_iter(None).map_err(|e| (0, e.to_string()))?;
    for (i, record) in rows.enumerate() {
        let n = i as u64 + 1;
        let record = record.map_err(|e| (n, e.to_string()))?;
        acc.add_whole(super::reader::row_of(&record, json_columns).map_err(|e| (n, e))?);
    }
    Ok(acc)
}

/// One row group's accumulator; errors are (1-based row in the group, message).
fn row_group<A: Accumulate>(rg: &dyn RowGroupReader, columns: &Columns) -> Result<A, (u64, String)> {
    if let Some(json_columns) = &columns.whole {
        return whole_rows(rg, json_columns);
    }
    let n = rg.metadata().num_rows() as usize;
    let err = |e: parquet::errors::ParquetError| (0, e.to_string());
    let mut strings: Vec<Strings> = Vec::with_capacity(5);
    for (i, c) in columns.strings.iter().enumerate() {
        let s = Strings::read(rg.get_column_page_reader(*c).map_err(err)?, n).map_err(|m| {
            (0, format!("column {}: {m}", ["game", "engine_version", "scenario", "policy_set", "outcome"][i]))
        })?;
        strings.push(s);
    }
    let sweep = match columns.sweep {
        Some(c) => Some(
            Strings::read(rg.get_column_page_reader(c).map_err(err)?, n)
                .map_err(|m| (0, format!("column sweep: {m}")))?,
        ),
        None => None,
    };
    let named = |name: &'static str| move |e: parquet::errors::ParquetError| (0, format!("column {name}: {e}"));
    let mut seeds: Vec<i64> = Vec::with_capacity(n);
    get_typed_column_reader::<Int64Type>(rg.get_column_reader(columns.seed).map_err(named("seed"))?)
        .read_records(n, None, None, &mut seeds)
        .map_err(named("seed"))?;
    let mut jobs: Vec<i64> = Vec::new();
    if let Some(c) = columns.job {
        jobs.reserve(n);
        get_typed_column_reader::<Int64Type>(rg.get_column_reader(c).map_err(named("job"))?)
            .read_records(n, None, None, &mut jobs)
            .map_err(named("job"))?;
    }
    let mut lengths: Vec<i32> = Vec::with_capacity(n);
    get_typed_column_reader::<Int32Type>(rg.get_column_reader(columns.length).map_err(named("length"))?)
        .read_records(n, None, None, &mut lengths)
        .map_err(named("length"))?;
    let mut rewards: Vec<f64> = Vec::with_capacity(n);
    get_typed_column_reader::<DoubleType>(rg.get_column_reader(columns.team_reward).map_err(named("team_reward"))?)
        .read_records(n, None, None, &mut rewards)
        .map_err(named("team_reward"))?;
    if seeds.len() != n || lengths.len() != n || (columns.job.is_some() && jobs.len() != n) || rewards.len() != n {
        return Err((0, "a column has fewer values than the row group has rows".into()));
    }
    let llm = match columns.llm {
        None => None,
        Some((c, json_text)) => Some(llm_column(rg, c, n, json_text)?),
    };
    // The key hint: the four dictionary indices packed in 16 bits each, where they fit.
    let packs = strings[..4].iter().all(|s| s.dict.len() <= 1 << 16);
    let mut acc = A::default();
    for i in 0..n {
        let id = |c: usize| strings[c].ids[i] as usize;
        let text = |c: usize| strings[c].dict[id(c)].as_str();
        let key = packs.then(|| (0..4).fold(0u64, |k, c| (k << 16) | id(c) as u64));
        let llm = llm.as_ref().and_then(|v| v.get(i)).and_then(Option::as_ref);
        acc.add(&ScanRow {
            sweep: sweep.as_ref().map_or("", |s| s.dict[s.ids[i] as usize].as_str()),
            game: text(GAME),
            engine_version: text(ENGINE_VERSION),
            scenario: text(SCENARIO),
            policy_set: text(POLICY_SET),
            outcome: text(OUTCOME),
            job: jobs.get(i).map(|&j| j as u64),
            seed: seeds[i] as u64,
            length: u32::try_from(lengths[i]).map_err(|e| (i as u64 + 1, format!("column length: {e}")))?,
            team_reward: rewards[i],
            llm,
            key,
            outcome_key: Some(id(OUTCOME) as u32),
        });
    }
    Ok(acc)
}

/// The `llm` stat of each row (`None` where null), parsed once per row group.
fn llm_column(
    rg: &dyn RowGroupReader,
    c: usize,
    n: usize,
    json_text: bool,
) -> Result<Vec<Option<Value>>, (u64, String)> {
    let err = |e: parquet::errors::ParquetError| (0, e.to_string());
    let mut defs: Vec<i16> = Vec::with_capacity(n);
    let mut values = Vec::new();
    get_typed_column_reader::<ByteArrayType>(rg.get_column_reader(c).map_err(err)?)
        .read_records(n, Some(&mut defs), None, &mut values)
        .map_err(err)?;
    let mut values = values.into_iter();
    let mut out = Vec::with_capacity(n);
    for (i, d) in defs.iter().enumerate() {
        if *d == 0 {
            out.push(None);
            continue;
        }
        let v = values.next().ok_or((i as u64 + 1, "column stats.llm: fewer values than levels".to_string()))?;
        let text = std::str::from_utf8(v.data()).map_err(|e| (i as u64 + 1, format!("column stats.llm: {e}")))?;
        out.push(Some(match json_text {
            true => serde_json::from_str(text).map_err(|e| (i as u64 + 1, format!("column stats.llm: {e}")))?,
            false => Value::String(text.to_string()),
        }));
    }
    Ok(out)
}

/// A required string column of one row group: its distinct values and one index per row.
struct Strings {
    dict: Vec<String>,
    ids: Vec<u32>,
}

impl Strings {
    fn read(mut pages: Box<dyn PageReader>, n: usize) -> Result<Strings, String> {
        let mut s = Strings { dict: Vec::new(), ids: Vec::with_capacity(n) };
        let mut has_dict = false;
        while let Some(page) = pages.get_next_page().map_err(|e| e.to_string())? {
            match page {
                Page::DictionaryPage { buf, num_values, .. } => {
                    s.dict.clear();
                    let mut rest = &buf[..];
                    for _ in 0..num_values {
                        s.dict.push(plain(&mut rest)?.to_string());
                    }
                    has_dict = true;
                }
                Page::DataPage { buf, num_values, encoding, .. } => s.page(&buf, num_values, encoding, has_dict)?,
                Page::DataPageV2 { buf, num_values, encoding, def_levels_byte_len, rep_levels_byte_len, .. } => {
                    let skip = (def_levels_byte_len + rep_levels_byte_len) as usize;
                    s.page(buf.get(skip..).ok_or("a page shorter than its levels")?, num_values, encoding, has_dict)?
                }
            }
        }
        if s.ids.len() != n {
            return Err(format!("{} values for {n} rows", s.ids.len()));
        }
        Ok(s)
    }

    /// A data page of a required column (no levels): dictionary indices, or plain values.
    fn page(&mut self, buf: &[u8], values: u32, encoding: Encoding, has_dict: bool) -> Result<(), String> {
        match encoding {
            Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY if has_dict => {
                let start = self.ids.len();
                let (width, runs) = buf.split_first().ok_or("an empty dictionary page")?;
                hybrid(runs, *width, values as usize, &mut self.ids)?;
                if self.ids[start..].iter().any(|i| *i as usize >= self.dict.len()) {
                    return Err("a dictionary index out of range".into());
                }
                Ok(())
            }
            Encoding::PLAIN => {
                let mut rest = buf;
                for _ in 0..values {
                    let v = plain(&mut rest)?;
                    // Plain pages (a dictionary that grew too big) repeat values in runs: one
                    // entry per run.
                    if self.dict.last().is_none_or(|l| l != v) {
                        self.dict.push(v.to_string());
                    }
                    self.ids.push((self.dict.len() - 1) as u32);
                }
                Ok(())
            }
            other => Err(format!("unsupported encoding {other}")),
        }
    }
}

/// One PLAIN byte array (4-byte little-endian length, bytes) as text.
fn plain<'a>(rest: &mut &'a [u8]) -> Result<&'a str, String> {
    let len = rest.get(..4).ok_or("a truncated value")?;
    let len = u32::from_le_bytes(len.try_into().expect("four bytes")) as usize;
    let bytes = rest.get(4..4 + len).ok_or("a truncated value")?;
    *rest = &rest[4 + len..];
    std::str::from_utf8(bytes).map_err(|e| e.to_string())
}

/// Decodes `n` values of the RLE / bit-packed hybrid encoding of bit width `width` into `out`.
fn hybrid(mut buf: &[u8], width: u8, n: usize, out: &mut Vec<u32>) -> Result<(), String> {
    let width = usize::from(width);
    if width > 32 {
        return Err(format!("bit width {width}"));
    }
    let end = out.len() + n;
    while out.len() < end {
        let mut header = 0u64;
        let mut shift = 0;
        loop {
            let (b, rest) = buf.split_first().ok_or("a truncated run header")?;
            buf = rest;
            header |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        if header & 1 == 0 {
            // A run of one value repeated.
            let bytes = width.div_ceil(8);
            let v = buf.get(..bytes).ok_or("a truncated run")?;
            let value = v.iter().rev().fold(0u32, |a, b| (a << 8) | u32::from(*b));
            buf = &buf[bytes..];
            let count = ((header >> 1) as usize).min(end - out.len());
            out.extend(std::iter::repeat_n(value, count));
        } else {
            // Groups of eight values, `width` bits each, least significant bit first.
            let groups = (header >> 1) as usize;
            let bytes = groups * width;
            let packed = buf.get(..bytes).ok_or("a truncated bit-packed run")?;
            buf = &buf[bytes..];
            let mask = if width == 32 { u64::MAX >> 32 } else { (1u64 << width) - 1 };
            let count = (groups * 8).min(end - out.len());
            for k in 0..count {
                let bit = k * width;
                let mut word = 0u64;
                for (j, b) in packed[bit / 8..packed.len().min(bit / 8 + 5)].iter().enumerate() {
                    word |= u64::from(*b) << (8 * j);
                }
                out.push(((word >> (bit % 8)) & mask) as u32);
            }
        }
    }
    Ok(())
}
