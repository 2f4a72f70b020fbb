//! The fields of a JSON line the scan reads ([`JsonRow`]): what the hand-written line scan
//! ([`super::line`]) fills, and `serde_json` where that scan declines, so both give one type.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// The fields of a JSON line a scan reads; the parser skips the others.
#[derive(Debug, Deserialize, PartialEq)]
pub struct JsonRow<'a> {
    #[serde(borrow)]
    pub sweep: Cow<'a, str>,
    #[serde(borrow)]
    pub game: Cow<'a, str>,
    #[serde(borrow)]
    pub engine_version: Cow<'a, str>,
    #[serde(borrow)]
    pub scenario: Cow<'a, str>,
    #[serde(borrow)]
    pub policy_set: Cow<'a, str>,
    #[serde(borrow)]
    pub outcome: Cow<'a, str>,
    #[serde(default)]
    pub job: Option<u64>,
    pub seed: u64,
    pub length: u32,
    pub team_reward: f64,
    #[serde(default)]
    pub stats: JsonStats,
}

#[derive(Debug, Default, Deserialize, PartialEq)]
pub struct JsonStats {
    #[serde(default)]
    pub llm: Option<Value>,
}
