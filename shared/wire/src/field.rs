//! Typed values of named fields: scenario overrides and policy parameters.
//!
//! Every parser here returns a [`JobError`] of kind `invalid_job` that names the field path
//! (`scenario.<field>`, `policy_set[<seat>].<param>`) and the value as written, so a person can
//! find and fix it.

use crate::protocol::JobError;

/// The field path of a scenario field.
pub fn scenario_path(field: &str) -> String {
    format!("scenario.{field}")
}

/// The field path of a policy parameter of seat `seat`.
pub fn policy_path(seat: usize, param: &str) -> String {
    format!("policy_set[{seat}].{param}")
}

/// A finite decimal number.
pub fn finite(path: &str, raw: &str) -> Result<f64, JobError> {
    match raw.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(JobError::invalid(path, raw, "must be a finite number")),
        Err(_) => Err(JobError::invalid(path, raw, "not a number")),
    }
}

/// A finite number within `[lo, hi]`.
pub fn within(path: &str, raw: &str, lo: f64, hi: f64) -> Result<f64, JobError> {
    let v = finite(path, raw)?;
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(JobError::invalid(path, raw, format!("must be within [{lo}, {hi}]")))
    }
}

/// A probability-like number in `[0, 1]`.
pub fn unit(path: &str, raw: &str) -> Result<f64, JobError> {
    within(path, raw, 0.0, 1.0)
}

/// A decimal integer within `lo..=hi`.
pub fn int(path: &str, raw: &str, lo: i64, hi: i64) -> Result<i64, JobError> {
    let v: i64 = raw.parse().map_err(|_| JobError::invalid(path, raw, "not an integer"))?;
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(JobError::invalid(path, raw, format!("must be within {lo}..={hi}")))
    }
}

/// `true` or `false`.
pub fn boolean(path: &str, raw: &str) -> Result<bool, JobError> {
    match raw {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(JobError::invalid(path, raw, "must be true or false")),
    }
}

/// One of `choices`; returns its index.
pub fn choice(path: &str, raw: &str, choices: &[&str]) -> Result<usize, JobError> {
    choices
        .iter()
        .position(|c| *c == raw)
        .ok_or_else(|| JobError::invalid(path, raw, format!("must be one of {}", choices.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_path_and_value() {
        let e = unit("scenario.prob_house_catches_fire", "1.5").unwrap_err();
        assert_eq!(e.to_string(), "invalid scenario.prob_house_catches_fire = 1.5: must be within [0, 1]");
        assert!(finite("x", "NaN").is_err());
        assert!(finite("x", "inf").is_err());
        assert_eq!(int("x", "7", 4, 10).unwrap(), 7);
        assert!(int("x", "7.5", 4, 10).is_err());
        assert_eq!(choice("x", "b", &["a", "b"]).unwrap(), 1);
        assert!(boolean("x", "yes").is_err());
    }
}
