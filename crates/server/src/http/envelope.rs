//! Layer 4, the JSON-RPC envelope: a POSTed `application/json` body that is not a
//! readable JSON-RPC message is answered here, with **400** and the JSON-RPC error
//! [`crate::boundary::framing`] chooses (-32700 parse error, -32600 invalid request,
//! -32602 invalid params, with the message's `id` when it can be recovered), instead of
//! rmcp's 415 carrying the deserializer's text. Any other request passes unchanged.

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{Method, StatusCode, header};
use http_body_util::BodyExt;

use super::json_response;
use crate::boundary::framing::{self, Framed, INVALID_REQUEST};

/// The layer: answers an unreadable JSON-RPC body, hands on the rest.
pub(super) async fn layer(request: Request, next: Next) -> Response {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(e, _)| e);
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    if request.method() != Method::POST || !json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // The body limit before this layer has read the body already: this is a copy of
    // bytes in memory, never a wait on the client.
    let Ok(collected) = body.collect().await else {
        return json_response(
            StatusCode::BAD_REQUEST,
            &framing::error(
                serde_json::Value::Null,
                INVALID_REQUEST,
                "the body could not be read",
            ),
        );
    };
    let bytes = collected.to_bytes();
    match framing::check(&bytes) {
        Framed::Message(_) | Framed::Batch => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Framed::Reply(reply) => json_response(StatusCode::BAD_REQUEST, &reply),
        Framed::Drop => json_response(
            StatusCode::BAD_REQUEST,
            &framing::error(
                serde_json::Value::Null,
                INVALID_REQUEST,
                "Invalid Request: the notification cannot be read",
            ),
        ),
    }
}
