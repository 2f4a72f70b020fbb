//! The Parquet schema of an episode row: one column per scalar field, `agent_rewards` as a
//! `list<double>`, and one nullable column `stats.<key>` per stats key of the sweep's games.
//!
//! Stats values are JSON in the engines, so each stats column's Parquet type is inferred from
//! the values of the first row group ([`StatKind::infer`]): integers → `int64`, numbers with a
//! fraction → `double`, booleans, text → `string`, arrays of those → `list<…>`. Objects, mixed
//! arrays and keys with no value in the first row group are written as compact JSON text in a
//! `string` column, listed in the file's key-value metadata under [`JSON_COLUMNS_KEY`]. (The
//! Parquet `JSON` logical type would say so in the schema, but polars reads it as bytes.)

use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::errors::Result;
use parquet::schema::types::{Type, TypePtr};
use serde_json::Value;

/// The Parquet type of one stats column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatKind {
    /// `int64`.
    Int,
    /// `double`.
    Float,
    /// `boolean`.
    Bool,
    /// `string`.
    Text,
    /// `list<int64>`.
    IntList,
    /// `list<double>`.
    FloatList,
    /// `list<string>`.
    TextList,
    /// Compact JSON text in a `string` column.
    Json,
}

/// Key-value metadata key whose value lists the JSON-text columns, comma-separated.
pub const JSON_COLUMNS_KEY: &str = "simfleet.json_columns";

/// What the values seen so far say about a column's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Nothing,
    /// Only empty arrays: a list of something not yet known.
    EmptyList,
    Kind(StatKind),
}

fn scalar_kind(v: &Value) -> Option<StatKind> {
    match v {
        Value::Number(n) if n.is_i64() => Some(StatKind::Int),
        Value::Number(_) => Some(StatKind::Float),
        Value::Bool(_) => Some(StatKind::Bool),
        Value::String(_) => Some(StatKind::Text),
        _ => None,
    }
}

fn join(a: StatKind, b: StatKind) -> StatKind {
    use StatKind::*;
    match (a, b) {
        _ if a == b => a,
        (Int, Float) | (Float, Int) => Float,
        (IntList, FloatList) | (FloatList, IntList) => FloatList,
        _ => Json,
    }
}

fn value_kind(v: &Value) -> Seen {
    match v {
        Value::Null => Seen::Nothing,
        Value::Array(items) => {
            let mut kind = None;
            for item in items.iter().filter(|i| !i.is_null()) {
                let k = match scalar_kind(item) {
                    Some(StatKind::Int) => StatKind::IntList,
                    Some(StatKind::Float) => StatKind::FloatList,
                    Some(StatKind::Text) => StatKind::TextList,
                    _ => return Seen::Kind(StatKind::Json),
                };
                kind = Some(kind.map_or(k, |prev| join(prev, k)));
            }
            kind.map_or(Seen::EmptyList, Seen::Kind)
        }
        Value::Object(_) => Seen::Kind(StatKind::Json),
        v => Seen::Kind(scalar_kind(v).unwrap_or(StatKind::Json)),
    }
}

impl StatKind {
    /// The kind that holds every value of `values` (nulls and absent values are ignored).
    pub fn infer<'a>(values: impl IntoIterator<Item = &'a Value>) -> StatKind {
        let mut seen = Seen::Nothing;
        for v in values {
            seen = match (seen, value_kind(v)) {
                (s, Seen::Nothing) | (Seen::Nothing, s) => s,
                (Seen::EmptyList, Seen::EmptyList) => Seen::EmptyList,
                (Seen::EmptyList, Seen::Kind(k)) | (Seen::Kind(k), Seen::EmptyList) => {
                    if matches!(k, StatKind::IntList | StatKind::FloatList | StatKind::TextList) {
                        Seen::Kind(k)
                    } else {
                        Seen::Kind(StatKind::Json)
                    }
                }
                (Seen::Kind(a), Seen::Kind(b)) => Seen::Kind(join(a, b)),
            };
            if seen == Seen::Kind(StatKind::Json) {
                break;
            }
        }
        match seen {
            Seen::Kind(k) => k,
            Seen::Nothing | Seen::EmptyList => StatKind::Json,
        }
    }

    /// Whether the column is a list.
    pub fn is_list(self) -> bool {
        matches!(self, StatKind::IntList | StatKind::FloatList | StatKind::TextList)
    }

    /// Human name, for errors.
    pub fn describe(self) -> &'static str {
        match self {
            StatKind::Int => "integers",
            StatKind::Float => "numbers",
            StatKind::Bool => "booleans",
            StatKind::Text => "text",
            StatKind::IntList => "lists of integers",
            StatKind::FloatList => "lists of numbers",
            StatKind::TextList => "lists of text",
            StatKind::Json => "JSON",
        }
    }

    fn physical(self) -> (Physical, Option<LogicalType>) {
        match self {
            StatKind::Int | StatKind::IntList => (Physical::INT64, None),
            StatKind::Float | StatKind::FloatList => (Physical::DOUBLE, None),
            StatKind::Bool => (Physical::BOOLEAN, None),
            StatKind::Text | StatKind::TextList | StatKind::Json => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        }
    }
}

fn primitive(name: &str, physical: Physical, logical: Option<LogicalType>, rep: Repetition) -> Result<TypePtr> {
    Ok(Arc::new(Type::primitive_type_builder(name, physical).with_repetition(rep).with_logical_type(logical).build()?))
}

/// The standard three-level Parquet list: `<rep> group name (LIST) { repeated group list {
/// <element_rep> <type> element; } }`.
fn list(name: &str, rep: Repetition, element: TypePtr) -> Result<TypePtr> {
    let inner =
        Type::group_type_builder("list").with_repetition(Repetition::REPEATED).with_fields(vec![element]).build()?;
    Ok(Arc::new(
        Type::group_type_builder(name)
            .with_repetition(rep)
            .with_logical_type(Some(LogicalType::List))
            .with_fields(vec![Arc::new(inner)])
            .build()?,
    ))
}

/// A column of text.
fn text(name: &str) -> Result<TypePtr> {
    primitive(name, Physical::BYTE_ARRAY, Some(LogicalType::String), Repetition::REQUIRED)
}

fn unsigned(name: &str, physical: Physical, bits: i8) -> Result<TypePtr> {
    let logical = LogicalType::Integer(parquet::basic::IntType { bit_width: bits, is_signed: false });
    primitive(name, physical, Some(logical), Repetition::REQUIRED)
}

/// The file schema: the fixed columns, then `stats.<key>` for each `(key, kind)`.
pub fn schema(stats: &[(&str, StatKind)]) -> Result<TypePtr> {
    let mut fields = vec![
        text("sweep")?,
        unsigned("job", Physical::INT64, 64)?,
        text("game")?,
        text("engine_version")?,
        text("scenario")?,
        text("policy_set")?,
        unsigned("seed", Physical::INT64, 64)?,
        text("outcome")?,
        unsigned("length", Physical::INT32, 32)?,
        primitive("truncated", Physical::BOOLEAN, None, Repetition::REQUIRED)?,
        primitive("team_reward", Physical::DOUBLE, None, Repetition::REQUIRED)?,
        list(
            "agent_rewards",
            Repetition::REQUIRED,
            primitive("element", Physical::DOUBLE, None, Repetition::REQUIRED)?,
        )?,
        text("trajectory_hash")?,
    ];
    for (key, kind) in stats {
        let name = format!("stats.{key}");
        let (physical, logical) = kind.physical();
        fields.push(if kind.is_list() {
            list(&name, Repetition::OPTIONAL, primitive("element", physical, logical, Repetition::OPTIONAL)?)?
        } else {
            primitive(&name, physical, logical, Repetition::OPTIONAL)?
        });
    }
    Ok(Arc::new(Type::group_type_builder("episode").with_fields(fields).build()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn infer(values: &[Value]) -> StatKind {
        StatKind::infer(values)
    }

    #[test]
    fn kinds_follow_the_values() {
        assert_eq!(infer(&[json!(3), json!(null), json!(4)]), StatKind::Int);
        assert_eq!(infer(&[json!(3), json!(0.5)]), StatKind::Float);
        assert_eq!(infer(&[json!("no_fires")]), StatKind::Text);
        assert_eq!(infer(&[json!(true)]), StatKind::Bool);
        assert_eq!(infer(&[json!([]), json!([1, 2])]), StatKind::IntList);
        assert_eq!(infer(&[json!([1]), json!([1.5])]), StatKind::FloatList);
        assert_eq!(infer(&[json!(["a", null])]), StatKind::TextList);
        assert_eq!(infer(&[json!({"a": 1})]), StatKind::Json);
        assert_eq!(infer(&[json!([{"a": 1}])]), StatKind::Json);
        assert_eq!(infer(&[json!(1), json!("x")]), StatKind::Json);
        assert_eq!(infer(&[json!([]), json!(1)]), StatKind::Json);
        assert_eq!(infer(&[json!(null)]), StatKind::Json);
        assert_eq!(infer(&[]), StatKind::Json);
    }

    #[test]
    fn schema_has_one_leaf_per_column() {
        let s = schema(&[("houses_saved", StatKind::Int), ("agent_lies", StatKind::IntList)]).unwrap();
        let descr = parquet::schema::types::SchemaDescriptor::new(s);
        let leaves: Vec<String> = descr.columns().iter().map(|c| c.path().string()).collect();
        assert_eq!(leaves.len(), 15, "{leaves:?}");
        assert_eq!(leaves[11], "agent_rewards.list.element");
        assert_eq!(descr.column(11).max_def_level(), 1);
        assert_eq!(descr.column(11).max_rep_level(), 1);
        assert_eq!(descr.column(13).max_def_level(), 1);
        assert_eq!(descr.column(14).max_def_level(), 3);
    }
}
