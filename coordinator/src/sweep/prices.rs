//! The sweep file's `[[llm_prices]]`: what 1000 prompt and completion tokens of a model cost,
//! read with the file; the spend they price is [`crate::llm_spend`]'s.

/// One `[[llm_prices]]` entry: what 1000 tokens of `model` cost, in dollars.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmPrice {
    /// The model, as the seats' `model=` names it.
    pub model: String,
    /// Dollars per 1000 prompt tokens.
    pub prompt_per_1k: f64,
    /// Dollars per 1000 completion tokens.
    pub completion_per_1k: f64,
}

impl LlmPrice {
    /// The dollars of `prompt` and `completion` tokens.
    pub fn dollars(&self, prompt: f64, completion: f64) -> f64 {
        (prompt * self.prompt_per_1k + completion * self.completion_per_1k) / 1000.0
    }
}

/// A seat spec's text parameter `key` (`llm?model=x&…` → `x`).
pub fn spec_param<'a>(spec: &'a str, key: &str) -> Option<&'a str> {
    let query = spec.split_once('?').map_or("", |(_, q)| q);
    query.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}
