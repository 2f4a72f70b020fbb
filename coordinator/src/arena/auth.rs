//! Bearer tokens (§12): each agent's token, issued at registration, and the optional admin
//! token that guards `/advance`.
//!
//! Tokens are compared in time independent of where they differ, so response times do not
//! reveal how much of a guessed token was right.

use axum::http::header::AUTHORIZATION;
use axum::http::HeaderMap;
use simfleet::games::trolley::TrolleyError;

/// The token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive, as
/// RFC 7235 says), if there is one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether two tokens are equal, in time that depends only on their lengths.
pub fn same(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks the admin token, when the server has one; without one, admin calls are open.
pub fn admin(expected: Option<&str>, headers: &HeaderMap) -> Result<(), TrolleyError> {
    match (expected, bearer(headers)) {
        (None, _) => Ok(()),
        (Some(expected), Some(given)) if same(expected, given) => Ok(()),
        _ => Err(TrolleyError::Unauthorized),
    }
}

/// The admin token from the environment variable `var` (`coordinator arena --admin-token-env`):
/// an unset or empty variable is an error, not an open server the operator did not ask for.
pub fn admin_token_from_env(var: &str) -> Result<String, String> {
    match std::env::var(var) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_string()),
        Ok(_) => Err(format!("the admin token variable {var} is empty")),
        Err(e) => Err(format!("cannot read the admin token from {var}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn bearer_tokens_are_parsed_and_compared() {
        assert_eq!(bearer(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer(&headers("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(&headers("Basic abc")), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd") && !same("abc", "ab") && !same("", "a"));
        assert!(admin(None, &HeaderMap::new()).is_ok());
        assert!(admin(Some("s3"), &headers("Bearer s3")).is_ok());
        assert_eq!(admin(Some("s3"), &headers("Bearer s4")), Err(TrolleyError::Unauthorized));
        assert_eq!(admin(Some("s3"), &HeaderMap::new()), Err(TrolleyError::Unauthorized));
    }
}
