//! [`ApiError`]: a refused request as an HTTP response, `{"error": {"kind", "message"}}` with the
//! §6 status. Kinds, statuses and messages come from the rules' [`TrolleyError`]; only bad query
//! strings get a message of their own (their kind is still `malformed_body`, the one 422 kind).

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
        }
    }
}

fn status_of(e: &TrolleyError) -> StatusCode {
    // Every §6 status is a valid status code; 500 would only show a bug in that table.
    StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

impl From<TrolleyError> for ApiError {
    fn from(e: TrolleyError) -> ApiError {
        ApiError { status: status_of(&e), body: ErrorBody::from(&e) }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

/// What handlers return.
pub type ApiResult<T> = Result<T, ApiError>;
