//! Layer 3, the body size: a body larger than `max_body_bytes` is refused with **413**
//! before anything parses it. A POST body is read here, once, with the limit, and handed
//! on buffered (rmcp's own limit is set to the same value and never trips).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http::{Method, StatusCode, header};

use super::refusal;

/// The largest request body accepted, in bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimit(pub(super) usize);

/// The layer: refuses a body over the limit, by its declared length or as it is read.
pub(super) async fn layer(
    State(BodyLimit(max_body_bytes)): State<BodyLimit>,
    request: Request,
    next: Next,
) -> Response {
    let too_large = || {
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "Payload Too Large: the request body exceeds {} bytes (--max-body-bytes)",
                max_body_bytes
            ),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_body_bytes as u64) {
        return too_large();
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match read_limited(body, max_body_bytes).await {
        Ok(Some(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(None) => too_large(),
        Err(e) => refusal(
            StatusCode::BAD_REQUEST,
            &format!("Bad Request: cannot read the request body: {e}"),
        ),
    }
}

/// The whole body, or `None` as soon as it grows past `limit`.
async fn read_limited(body: Body, limit: usize) -> Result<Option<Bytes>, axum::Error> {
    let mut stream = body.into_data_stream();
    let mut collected = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if chunk.len() > limit.saturating_sub(collected.len()) {
            return Ok(None);
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(Some(collected.freeze()))
}
