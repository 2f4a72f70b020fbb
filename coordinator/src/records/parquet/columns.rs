//! Column buffers of one Parquet row group: values plus definition and repetition levels, in the
//! shape the low-level column writer takes them.

use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::Result;
use parquet::file::writer::SerializedColumnWriter;
use serde_json::Value;

use super::schema::StatKind;

/// The values of one column.
#[derive(Debug)]
pub enum Values {
    /// `int64`.
    Int64(Vec<i64>),
    /// `int32`.
    Int32(Vec<i32>),
    /// `double`.
    Double(Vec<f64>),
    /// `boolean`.
    Bool(Vec<bool>),
    /// `string`.
    Bytes(Vec<ByteArray>),
}

/// One column of a row group being buffered.
#[derive(Debug)]
pub struct Column {
    /// The non-null values.
    pub values: Values,
    def: Vec<i16>,
    rep: Vec<i16>,
    max_def: i16,
    repeated: bool,
}

/// A stats value that does not fit its column's type.
#[derive(Debug)]
pub struct Misfit;

impl Column {
    /// A column with `values`, `max_def` definition levels, repeated or not.
    pub fn new(values: Values, max_def: i16, repeated: bool) -> Column {
        Column { values, def: Vec::new(), rep: Vec::new(), max_def, repeated }
    }

    /// A required text column.
    pub fn text() -> Column {
        Column::new(Values::Bytes(Vec::new()), 0, false)
    }

    /// The column of a stats key of `kind`.
    pub fn stat(kind: StatKind) -> Column {
        let values = match kind {
            StatKind::Int | StatKind::IntList => Values::Int64(Vec::new()),
            StatKind::Float | StatKind::FloatList => Values::Double(Vec::new()),
            StatKind::Bool => Values::Bool(Vec::new()),
            StatKind::Text | StatKind::TextList | StatKind::Json => Values::Bytes(Vec::new()),
        };
        if kind.is_list() {
            Column::new(values, 3, true)
        } else {
            Column::new(values, 1, false)
        }
    }

    /// Appends a required text value, sharing the buffer of the previous value when equal
    /// (sweep, game, scenario and policy set repeat for thousands of rows).
    pub fn push_text(&mut self, s: &str) {
        let Values::Bytes(v) = &mut self.values else { unreachable!("push_text on a text column") };
        match v.last() {
            Some(last) if last.data() == s.as_bytes() => {
                let again = last.clone();
                v.push(again);
            }
            _ => v.push(ByteArray::from(s)),
        }
    }

    /// Appends a required `int64`.
    pub fn push_i64(&mut self, x: i64) {
        let Values::Int64(v) = &mut self.values else { unreachable!("push_i64 on another column") };
        v.push(x);
    }

    /// Appends a required `int32`.
    pub fn push_i32(&mut self, x: i32) {
        let Values::Int32(v) = &mut self.values else { unreachable!("push_i32 on another column") };
        v.push(x);
    }

    /// Appends a required `boolean`.
    pub fn push_bool(&mut self, x: bool) {
        let Values::Bool(v) = &mut self.values else { unreachable!("push_bool on another column") };
        v.push(x);
    }

    /// Appends a required `double`.
    pub fn push_f64(&mut self, x: f64) {
        let Values::Double(v) = &mut self.values else { unreachable!("push_f64 on another column") };
        v.push(x);
    }

    /// Appends a required list of doubles (`agent_rewards`: max definition level 1).
    pub fn push_doubles(&mut self, xs: &[f64]) {
        let Values::Double(v) = &mut self.values else { unreachable!("push_doubles on a double column") };
        if xs.is_empty() {
            self.def.push(0);
            self.rep.push(0);
        }
        for (i, x) in xs.iter().enumerate() {
            self.def.push(1);
            self.rep.push(i16::from(i > 0));
            v.push(*x);
        }
    }

    /// Appends one stats value (`None` when the record lacks the key).
    pub fn push_stat(&mut self, kind: StatKind, value: Option<&Value>) -> Result<(), Misfit> {
        let value = value.filter(|v| !v.is_null());
        if !kind.is_list() {
            let Some(v) = value else {
                self.def.push(0);
                return Ok(());
            };
            self.push_scalar(kind, v)?;
            self.def.push(1);
            return Ok(());
        }
        match value {
            None => {
                self.def.push(0);
                self.rep.push(0);
            }
            Some(Value::Array(items)) if items.is_empty() => {
                self.def.push(1);
                self.rep.push(0);
            }
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.rep.push(i16::from(i > 0));
                    if item.is_null() {
                        self.def.push(2);
                    } else {
                        self.push_scalar(kind, item)?;
                        self.def.push(3);
                    }
                }
            }
            Some(_) => return Err(Misfit),
        }
        Ok(())
    }

    fn push_scalar(&mut self, kind: StatKind, v: &Value) -> Result<(), Misfit> {
        match (&mut self.values, kind) {
            (Values::Bytes(out), StatKind::Json) => {
                out.push(ByteArray::from(serde_json::to_vec(v).expect("a JSON value always serialises")));
            }
            (Values::Bytes(out), _) => out.push(ByteArray::from(v.as_str().ok_or(Misfit)?)),
            (Values::Int64(out), _) => out.push(v.as_i64().ok_or(Misfit)?),
            (Values::Double(out), _) => out.push(v.as_f64().ok_or(Misfit)?),
            (Values::Bool(out), _) => out.push(v.as_bool().ok_or(Misfit)?),
            (Values::Int32(_), _) => return Err(Misfit),
        }
        Ok(())
    }

    /// Writes the buffered values to `writer` and empties the buffer (keeping its capacity).
    pub fn write_to(&mut self, writer: &mut SerializedColumnWriter<'_>) -> Result<()> {
        let def = (self.max_def > 0).then_some(&self.def[..]);
        let rep = self.repeated.then_some(&self.rep[..]);
        match &mut self.values {
            Values::Int64(v) => {
                writer.typed::<Int64Type>().write_batch(v, def, rep)?;
                v.clear();
            }
            Values::Int32(v) => {
                writer.typed::<Int32Type>().write_batch(v, def, rep)?;
                v.clear();
            }
            Values::Double(v) => {
                writer.typed::<DoubleType>().write_batch(v, def, rep)?;
                v.clear();
            }
            Values::Bool(v) => {
                writer.typed::<BoolType>().write_batch(v, def, rep)?;
                v.clear();
            }
            Values::Bytes(v) => {
                writer.typed::<ByteArrayType>().write_batch(v, def, rep)?;
                v.clear();
            }
        }
        self.def.clear();
        self.rep.clear();
        Ok(())
    }

    /// Approximate bytes held, to bound a row group's memory.
    pub fn bytes(&self) -> usize {
        let values = match &self.values {
            Values::Int64(v) => v.len() * 8,
            Values::Int32(v) => v.len() * 4,
            Values::Double(v) => v.len() * 8,
            Values::Bool(v) => v.len(),
            Values::Bytes(v) => v.len() * 40,
        };
        values + (self.def.len() + self.rep.len()) * 2
    }
}
