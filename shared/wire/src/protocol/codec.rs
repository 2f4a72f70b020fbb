//! Encoding and decoding protocol values: named-field MessagePack maps, so that a field added
//! later (with `#[serde(default)]`) does not break an older reader.

use serde::{Deserialize, Serialize};

use super::DecodeError;

/// Encodes a protocol value as a named-field MessagePack map (`rmp_serde`). A [`JobResult`],
/// which every worker encodes once per job, has a faster encoder of its own with the same bytes:
/// [`JobResult::encode`].
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    // Serialising these plain structs into a Vec cannot fail: no maps with non-string keys, no
    // I/O. A failure would be a bug in a derive, so it is allowed to panic.
    rmp_serde::to_vec_named(value).expect("protocol values always encode")
}

/// Decodes a protocol value.
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, DecodeError> {
    Ok(rmp_serde::from_slice(bytes)?)
}
