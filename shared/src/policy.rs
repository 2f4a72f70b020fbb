//! Policy spec strings as they appear in sweeps and metric labels.
//!
//! The grammar is [`crate::spec`]; each game gives the names their meaning. What is common to
//! every game lives here: the bounded metric label of a policy.

use std::borrow::Cow;

use crate::spec::Spec;

/// Whether a policy spec string names the `llm` policy.
pub fn is_llm_spec(spec: &str) -> bool {
    spec == "llm" || spec.starts_with("llm?") || spec.starts_with("llm:")
}

/// The `policy` metric label of a spec string: the string as written, except that an `llm`
/// policy is cut to `llm?model=<m>` (its endpoint and other parameters are free text).
pub fn metric_label(spec: &str) -> Cow<'_, str> {
    if is_llm_spec(spec) {
        let model = Spec::parse(spec).ok().and_then(|s| s.get("model").map(str::to_string));
        Cow::Owned(match model {
            Some(m) => format!("llm?model={}", crate::spec::percent_encode(&m)),
            None => "llm".to_string(),
        })
    } else {
        Cow::Borrowed(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llm_labels_drop_the_endpoint() {
        assert_eq!(metric_label("llm?model=m1&endpoint=http://x:1/v1&temperature=0.2"), "llm?model=m1");
        assert_eq!(metric_label("firefighter?exploration_rate=0"), "firefighter?exploration_rate=0");
    }
}
