//! A summary file in Parquet: one row group, the flat columns typed (text, integers, floats,
//! nullable where optional), the aggregate and the paired differences as compact JSON text.

use std::fs::File;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;

use crate::records::error::ExportError;
use crate::records::summary_row::{columns, Cell, CellRow, Kind, COLUMNS};

/// Writes `rows` to `file`.
pub(super) fn write_parquet(file: File, rows: &[CellRow]) -> Result<(), ExportError> {
    let columns = columns(rows);
    let fields: String = columns
        .iter()
        .map(|(name, kind)| match kind {
            Kind::Text => format!("required binary {name} (UTF8);"),
            Kind::OptText => format!("optional binary {name} (UTF8);"),
            Kind::Int => format!("required int64 {name} (INTEGER(64, false));"),
            Kind::Float => format!("required double {name};"),
            Kind::OptFloat => format!("optional double {name};"),
        })
        .collect();
    let schema = Arc::new(parquet::schema::parser::parse_message_type(&format!("message cell {{ {fields} }}"))?);
    let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
    let mut writer = SerializedFileWriter::new(file, schema, props)?;
    let values: Vec<Vec<Cell>> = rows.iter().map(|r| r.values(columns.len() > COLUMNS.len())).collect();
    let mut group = writer.next_row_group()?;
    let mut i = 0;
    while let Some(mut col) = group.next_column()? {
        let column = values.iter().map(|v| &v[i]);
        match columns[i].1 {
            kind @ (Kind::Text | Kind::OptText) => {
                let opt: Vec<Option<&String>> = column
                    .map(|c| match c {
                        Cell::Text(s) => s.as_ref(),
                        _ => unreachable!("a text column holds text"),
                    })
                    .collect();
                let data: Vec<ByteArray> = opt.iter().flatten().map(|s| ByteArray::from(s.as_str())).collect();
                let levels: Vec<i16> = opt.iter().map(|x| i16::from(x.is_some())).collect();
                let def = (kind == Kind::OptText).then_some(&levels[..]);
                col.typed::<ByteArrayType>().write_batch(&data, def, None)?;
            }
            Kind::Int => {
                let data: Vec<i64> = column
                    .map(|c| match c {
                        // Stored as the bits of the u64, as the records' `seed` column.
                        Cell::Int(n) => *n as i64,
                        _ => unreachable!("an integer column holds integers"),
                    })
                    .collect();
                col.typed::<Int64Type>().write_batch(&data, None, None)?;
            }
            Kind::Float | Kind::OptFloat => {
                let opt: Vec<Option<f64>> = column
                    .map(|c| match c {
                        Cell::Float(x) => *x,
                        _ => unreachable!("a float column holds floats"),
                    })
                    .collect();
                let data: Vec<f64> = opt.iter().flatten().copied().collect();
                let levels: Vec<i16> = opt.iter().map(|x| i16::from(x.is_some())).collect();
                let def = (columns[i].1 == Kind::OptFloat).then_some(&levels[..]);
                col.typed::<DoubleType>().write_batch(&data, def, None)?;
            }
        }
        col.close()?;
        i += 1;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}

/// Every row of the Parquet summary file `file`, or the message of the first error and the
/// (0-based) row it is at.
pub(super) fn read_cells(file: File) -> Result<Vec<CellRow>, (usize, String)> {
    let reader = SerializedFileReader::new(file).map_err(|e| (0, e.to_string()))?;
    let iter = reader.get_row_iter(None).map_err(|e| (0, e.to_string()))?;
    let mut rows = Vec::new();
    for (i, row) in iter.enumerate() {
        let row = row.map_err(|e| (i, e.to_string()))?;
        let get = |k: &str| {
            row.get_column_iter().find(|(name, _)| name.as_str() == k).and_then(|(_, f)| match f {
                Field::Str(s) => Some(s.clone()),
                Field::Long(n) => Some((*n as u64).to_string()),
                Field::ULong(n) => Some(n.to_string()),
                Field::Double(x) => Some(x.to_string()),
                _ => None,
            })
        };
        rows.push(CellRow::rebuild(get).map_err(|e| (i, e))?);
    }
    Ok(rows)
}

/// Whether `file` is a Parquet file with an `aggregate` column (a summary file).
pub(super) fn has_aggregate(file: File) -> bool {
    match SerializedFileReader::new(file) {
        Ok(r) => r.metadata().file_metadata().schema_descr().columns().iter().any(|c| c.name() == "aggregate"),
        Err(_) => false,
    }
}
