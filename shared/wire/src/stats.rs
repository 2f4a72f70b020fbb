//! An episode record's stats: the game's extra figures (each spec lists them), a JSON object
//! whose keys keep their order.
//!
//! Most games build the object as a [`StatsMap`]. A game whose record dominates its episode's
//! cost can instead hand over typed stats: a struct of its own that implements [`TypedStats`]
//! and serializes to exactly the bytes the equivalent map would (MessagePack and JSON alike),
//! without building a tree of JSON values, a hundred small allocations, per episode. Reading
//! stats as a map ([`Stats::as_map`]) builds that map once, on first use; records decoded from MessagePack
//! or JSON are always maps.
//!
//! Stats added after the game built them ([`Stats::add`]: an outside seat's `outside`, the
//! coordinator's `modules`) follow the game's own keys and leave typed stats typed: their
//! bytes are the map's with the key appended, without building the map.
//!
//! The protocol names no game: typed stats travel as a trait object. The paths every episode
//! takes are the game's own, monomorphic code: [`TypedStats::to_map`] (reading the stats as a
//! map, which the exports do), [`TypedStats::write_msgpack`] (a result encoded by
//! `protocol::encode`) and [`TypedStats::for_each_number`] with [`TypedStats::llm_tokens`] (a
//! summary job's aggregate, `crate::aggregate`). Any other serializer goes through `erased_serde`, correct but about twice
//! as slow, which only tests and one-off conversions use.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Stats as a JSON object.
pub type StatsMap = serde_json::Map<String, Value>;

/// A game's typed stats. Implemented by the game's own stats struct, whose `Serialize` must
/// write one JSON object (string keys), the same as the map the game's spec lists: a test per
/// game compares the bytes. The two methods can be [`map_of`] and [`write_msgpack_of`] of `self`,
/// written out per game so that they are compiled for its type; the games whose records are
/// encoded by the hundred thousand per second write `write_msgpack` field by field
/// (`crate::msgpack`), as serde's per-field calls cost a large share of a short episode.
pub trait TypedStats: erased_serde::Serialize + fmt::Debug + Send + Sync + 'static {
    /// The map these stats stand for.
    fn to_map(&self) -> StatsMap;

    /// Appends the MessagePack of these stats (named fields), the bytes of [`TypedStats::to_map`]'s
    /// map.
    fn write_msgpack(&self, out: &mut Vec<u8>);

    /// Calls `f` with each top-level stat that is a number in [`TypedStats::to_map`]'s map, in
    /// its order, as `Value::as_f64` reads it (a non-finite float is `null` there, so not a
    /// number): what a summary aggregates per episode ([`Stats::for_each_number`]). This
    /// default builds the map; the games whose summaries are aggregated by the hundred thousand
    /// per second read their fields instead (a test per game compares the two).
    fn for_each_number(&self, f: &mut dyn FnMut(&str, f64)) {
        for_each_number_of(&self.to_map(), f);
    }

    /// The prompt + completion tokens of the episode's `llm` seats, `None` without one: what
    /// [`crate::aggregate::llm_tokens`] reads from the map's `llm` stat. This default builds the
    /// map.
    fn llm_tokens(&self) -> Option<u64> {
        crate::aggregate::llm_tokens(self.to_map().get("llm"))
    }
}

/// [`TypedStats::for_each_number`] of a map.
fn for_each_number_of(map: &StatsMap, f: &mut dyn FnMut(&str, f64)) {
    for (key, value) in map {
        if let Some(v) = value.as_f64() {
            f(key, v);
        }
    }
}

/// The map a typed stats value serializes to ([`TypedStats::to_map`]).
pub fn map_of<T: Serialize + ?Sized>(value: &T) -> StatsMap {
    match serde_json::to_value(value) {
        Ok(Value::Object(m)) => m,
        // Typed stats are structs of numbers, strings, lists and maps with string keys.
        other => unreachable!("typed stats serialize to a JSON object, not {other:?}"),
    }
}

/// Appends the named-field MessagePack of `value` to `out` ([`TypedStats::write_msgpack`]).
pub fn write_msgpack_of<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Into a Vec, with string keys only: cannot fail (see `protocol::encode`).
    rmp_serde::encode::write_named(out, value).expect("typed stats always encode");
}

/// For the games' tests: the numbers and `llm` tokens typed stats read from their fields equal
/// those of their map, bit for bit and in order.
#[cfg(any(test, feature = "test-support"))]
pub fn assert_numbers_like_map(typed: &dyn TypedStats) {
    let map = typed.to_map();
    let (mut from_map, mut from_fields) = (Vec::new(), Vec::new());
    for_each_number_of(&map, &mut |k, v| from_map.push((k.to_owned(), v.to_bits())));
    typed.for_each_number(&mut |k, v| from_fields.push((k.to_owned(), v.to_bits())));
    assert_eq!(from_fields, from_map, "numbers of {map:?}");
    assert_eq!(typed.llm_tokens(), crate::aggregate::llm_tokens(map.get("llm")), "llm tokens of {map:?}");
}

erased_serde::serialize_trait_object!(TypedStats);

#[derive(Clone)]
enum Repr {
    Map(StatsMap),
    /// Shared, not boxed: cloning a record does not copy its stats.
    Typed {
        typed: Arc<dyn TypedStats>,
        /// Added stats ([`Stats::add`]), after the game's own keys; shared, as the coordinator
        /// adds one value to every record of a job.
        added: Vec<(&'static str, Arc<Value>)>,
        map: OnceLock<StatsMap>,
    },
}

/// The map of typed stats with their added stats.
fn map_with(typed: &dyn TypedStats, added: &[(&'static str, Arc<Value>)]) -> StatsMap {
    let mut map = typed.to_map();
    for (key, value) in added {
        map.insert((*key).to_string(), Value::clone(value));
    }
    map
}

/// Adds `more` to the count of the MessagePack map whose header starts at `out[start]`,
/// rewriting the header in the shortest form for the new count (what `rmp` writes for it).
fn grow_map_header(out: &mut Vec<u8>, start: usize, more: usize) {
    let (count, len) = match out[start] {
        b @ 0x80..=0x8f => (usize::from(b & 0x0f), 1),
        0xde => (usize::from(u16::from_be_bytes([out[start + 1], out[start + 2]])), 3),
        0xdf => (u32::from_be_bytes([out[start + 1], out[start + 2], out[start + 3], out[start + 4]]) as usize, 5),
        b => unreachable!("typed stats write one map, not a value marked {b:#x}"),
    };
    let count = count + more;
    match len {
        // The header keeps its length (what every record of a game with fewer than 16 stats
        // meets): rewritten in place, as it is on the path of every record.
        1 if count < 16 => out[start] = 0x80 | count as u8,
        3 if count <= 0xffff => out[start + 1..start + 3].copy_from_slice(&(count as u16).to_be_bytes()),
        5 => out[start + 1..start + 5].copy_from_slice(&(count as u32).to_be_bytes()),
        _ => {
            let mut header = Vec::with_capacity(5);
            crate::msgpack::map_len(&mut header, count);
            out.splice(start..start + len, header);
        }
    }
}

/// The stats of one episode record.
#[derive(Clone)]
pub struct Stats(Repr);

impl Stats {
    /// Typed stats; read as a map only when asked.
    pub fn typed(typed: impl TypedStats) -> Stats {
        Stats(Repr::Typed { typed: Arc::new(typed), added: Vec::new(), map: OnceLock::new() })
    }

    /// Adds stat `key` after the game's own (replacing an added one of that key): what an
    /// outside seat's `outside` stat and the coordinator's `modules` are. Typed stats stay
    /// typed, so adding a stat to every record does not build every record's map. `key` must
    /// not be one of the game's own stats.
    pub fn add(&mut self, key: &'static str, value: impl Into<Arc<Value>>) {
        match &mut self.0 {
            Repr::Map(m) => {
                m.insert(key.to_string(), Arc::unwrap_or_clone(value.into()));
            }
            Repr::Typed { typed, added, map } => {
                debug_assert!(!typed.to_map().contains_key(key), "{key} is one of the game's own stats");
                *map = OnceLock::new();
                match added.iter_mut().find(|(k, _)| *k == key) {
                    Some(entry) => entry.1 = value.into(),
                    None => added.push((key, value.into())),
                }
            }
        }
    }

    /// Stat `key` if it was added ([`Stats::add`]), without building typed stats' map; for
    /// stats that are a map (read from a file), the map's `key`.
    pub fn added(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Repr::Map(m) => m.get(key),
            Repr::Typed { added, .. } => added.iter().find(|(k, _)| *k == key).map(|(_, v)| &**v),
        }
    }

    /// The typed stats, if these are typed.
    pub fn as_typed(&self) -> Option<&dyn TypedStats> {
        match &self.0 {
            Repr::Map(_) => None,
            Repr::Typed { typed, .. } => Some(&**typed),
        }
    }

    /// The stats as a map, owned.
    pub fn into_map(self) -> StatsMap {
        match self.0 {
            Repr::Map(m) => m,
            Repr::Typed { typed, added, map } => map.into_inner().unwrap_or_else(|| map_with(&*typed, &added)),
        }
    }

    /// Calls `f` with each top-level stat that is a number, in the map's order, as
    /// `Value::as_f64` reads it: the same as iterating the map, without building it for typed
    /// stats (a trolley episode's map is ~250 JSON values, and building it per episode made a
    /// job that collects a summary cost ten times its play).
    pub fn for_each_number(&self, mut f: impl FnMut(&str, f64)) {
        match self.built_map() {
            Ok(m) => for_each_number_of(m, &mut f),
            Err((typed, added)) => {
                typed.for_each_number(&mut f);
                for (key, value) in added {
                    if let Some(v) = value.as_f64() {
                        f(key, v);
                    }
                }
            }
        }
    }

    /// The prompt + completion tokens of the `llm` seats, `None` without one: the same as
    /// [`crate::aggregate::llm_tokens`] of the map's `llm` stat, without building it.
    pub fn llm_tokens(&self) -> Option<u64> {
        match self.built_map() {
            Ok(m) => crate::aggregate::llm_tokens(m.get("llm")),
            Err((typed, added)) => match added.iter().find(|(k, _)| *k == "llm") {
                Some((_, llm)) => crate::aggregate::llm_tokens(Some(llm)),
                None => typed.llm_tokens(),
            },
        }
    }

    /// The map if there is one already (a map, or typed stats read as one), else the typed
    /// stats and their added ones.
    #[allow(clippy::type_complexity)]
    fn built_map(&self) -> Result<&StatsMap, (&dyn TypedStats, &[(&'static str, Arc<Value>)])> {
        match &self.0 {
            Repr::Map(m) => Ok(m),
            Repr::Typed { typed, added, map } => map.get().ok_or((&**typed, added.as_slice())),
        }
    }

    /// Appends the named-field MessagePack of these stats to `out`: what `protocol::encode`
    /// writes for them, through the game's own code when they are typed.
    pub fn write_msgpack(&self, out: &mut Vec<u8>) {
        match &self.0 {
            Repr::Map(m) => write_msgpack_of(m, out),
            Repr::Typed { typed, added, .. } => {
                let start = out.len();
                typed.write_msgpack(out);
                if !added.is_empty() {
                    grow_map_header(out, start, added.len());
                    for (key, value) in added {
                        crate::msgpack::str(out, key);
                        write_msgpack_of(&**value, out);
                    }
                }
            }
        }
    }
}

impl Default for Stats {
    fn default() -> Stats {
        Stats(Repr::Map(StatsMap::new()))
    }
}

impl From<StatsMap> for Stats {
    fn from(map: StatsMap) -> Stats {
        Stats(Repr::Map(map))
    }
}

impl Stats {
    /// The stats as a map. Typed stats build it on the first call (for a trolley episode about
    /// 250 JSON values) and keep it; [`Stats::for_each_number`], [`Stats::llm_tokens`] and
    /// [`Stats::write_msgpack`] read typed stats without it.
    pub fn as_map(&self) -> &StatsMap {
        match &self.0 {
            Repr::Map(m) => m,
            Repr::Typed { typed, added, map } => map.get_or_init(|| map_with(&**typed, added)),
        }
    }

    /// The stats as a map to change; typed stats become a map first.
    pub fn as_map_mut(&mut self) -> &mut StatsMap {
        if let Repr::Typed { .. } = self.0 {
            let map = std::mem::take(self).into_map();
            self.0 = Repr::Map(map);
        }
        match &mut self.0 {
            Repr::Map(m) => m,
            Repr::Typed { .. } => unreachable!("just made a map"),
        }
    }
}

impl PartialEq for Stats {
    fn eq(&self, other: &Stats) -> bool {
        self.as_map() == other.as_map()
    }
}

impl fmt::Debug for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_map().fmt(f)
    }
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Map(m) => m.serialize(serializer),
            Repr::Typed { typed, added, .. } if added.is_empty() => (**typed).serialize(serializer),
            // With added stats: as the map (a path the hot encoders do not take).
            Repr::Typed { .. } => self.as_map().serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Stats {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Stats, D::Error> {
        StatsMap::deserialize(deserializer).map(Stats::from)
    }
}
