//! [`ApiError`]: a refused request as an HTTP response, `{"error": {"kind", "message"}}` with the
//! §6 status. Kinds and messages come from the rules' [`TrolleyError`], the status of each kind
//! from [`status_of`] here; only bad query strings get a message of their own (their kind is
//! still `malformed_body`, the one 422 kind).

use std::fmt::Display;

use super::dto::view::{ErrorBody, ErrorDetail};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use simfleet::games::trolley::TrolleyError;

/// A refused request.
#[derive(Clone, Debug)]
pub struct ApiError {
    status: StatusCode,
    body: ErrorBody,
    /// `Retry-After` seconds (a rate limit's refusal).
    retry_after: Option<u64>,
}

impl ApiError {
    /// A query string that is missing a required parameter or holds a bad value (422).
    pub fn bad_query(detail: impl Display) -> ApiError {
        let kind = TrolleyError::MalformedBody(String::new());
        ApiError {
            status: status_of(&kind),
            body: ErrorBody {
                error: ErrorDetail { kind: kind.kind(), message: format!("bad query string: {detail}") },
            },
            retry_after: None,
        }
    }

    /// A client over a rate limit (429 `rate_limited`), to retry after `seconds`.
    pub fn rate_limited(what: &str, per_minute: u32, seconds: u64) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            body: ErrorBody {
                error: ErrorDetail {
                    kind: "rate_limited",
                    message: format!(
                        "this address {what} more than {per_minute} times a minute; retry after {seconds} s"
                    ),
                },
            },
            retry_after: Some(seconds),
        }
    }
}

/// The §6 HTTP status of a refusal: 404 for what does not resolve, 422 for a malformed body,
/// 401 for a token, 503 for a full arena, 400 for every rule the request broke.
pub fn status_of(e: &TrolleyError) -> StatusCode {
    match e {
        TrolleyError::GameNotFound | TrolleyError::RoundNotFound | TrolleyError::AgentNotFound => StatusCode::NOT_FOUND,
        TrolleyError::MalformedBody(_) => StatusCode::UNPROCESSABLE_ENTITY,
        TrolleyError::Unauthorized => StatusCode::UNAUTHORIZED,
        TrolleyError::TooManyGames => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    }
}

impl From<TrolleyError> for ApiError {
    fn from(e: TrolleyError) -> ApiError {
        ApiError { status: status_of(&e), body: ErrorBody::from(&e), retry_after: None }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// What handlers return.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_section_6_status() {
        for (e, status) in [
            (TrolleyError::GameNotFound, 404),
            (TrolleyError::RoundNotFound, 404),
            (TrolleyError::AgentNotFound, 404),
            (TrolleyError::MalformedBody("x".into()), 422),
            (TrolleyError::Unauthorized, 401),
            (TrolleyError::TooManyGames, 503),
            (TrolleyError::NameTaken, 400),
            (TrolleyError::InvalidAction("jump".into()), 400),
            (TrolleyError::InvalidConfig { field: "min_agents", reason: "x".into() }, 400),
        ] {
            assert_eq!(status_of(&e).as_u16(), status, "{}", e.kind());
            assert_eq!(ApiError::from(e).into_response().status().as_u16(), status);
        }
        assert_eq!(ApiError::bad_query("x").into_response().status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
}
