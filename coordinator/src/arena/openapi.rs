//! `GET /api/openapi.json`: the arena's OpenAPI 3.1 document. The repository's
//! `docs/arena.openapi.json` is compiled in, so the served bytes are the file's; a test checks
//! that every route of [`routes`](super::routes) is documented.

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

/// The document, byte for byte as in `docs/arena.openapi.json`.
pub const DOCUMENT: &str = include_str!("../../../docs/arena.openapi.json");

/// Serves [`DOCUMENT`].
pub async fn document() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], DOCUMENT)
}
