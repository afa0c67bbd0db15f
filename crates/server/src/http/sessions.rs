//! Layer 5, sessions: the number of open sessions is capped (`--max-sessions`; an
//! `initialize` past it is refused with **503** and a JSON-RPC error carrying its `id`),
//! and a DELETE of a session that is not open (already deleted, expired, or never
//! created) is **404**, as the Streamable HTTP spec answers any request for an unknown
//! session, instead of rmcp's 202.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{Method, StatusCode};
use http_body_util::BodyExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;

use super::{json_response, refusal};
use crate::boundary::framing;

/// The session store rmcp uses, and how many sessions it may hold.
pub(super) struct SessionCap {
    pub(super) sessions: Arc<LocalSessionManager>,
    pub(super) max_sessions: usize,
}

/// JSON-RPC error code of a refusal for lack of capacity (server-defined range).
const SERVER_BUSY: i64 = -32000;

/// The layer: refuses an `initialize` past the cap and a DELETE of an unknown session.
pub(super) async fn layer(
    State(cap): State<Arc<SessionCap>>,
    request: Request,
    next: Next,
) -> Response {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if request.method() == Method::DELETE {
        if let Some(id) = &session {
            let open = cap.sessions.sessions.read().await.contains_key(id.as_str());
            if !open {
                return refusal(
                    StatusCode::NOT_FOUND,
                    "Not Found: no such session (it was closed or has expired)",
                );
            }
        }
        return next.run(request).await;
    }
    if request.method() != Method::POST || session.is_some() {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // Already read by the body limit: a copy of bytes in memory.
    let bytes = match body.collect().await {
        Ok(c) => c.to_bytes(),
        Err(_) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "Bad Request: the body could not be read",
            );
        }
    };
    let message: Option<Value> = serde_json::from_slice(&bytes).ok();
    let initialize = message
        .as_ref()
        .is_some_and(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
    if initialize && cap.sessions.sessions.read().await.len() >= cap.max_sessions {
        tracing::warn!(max = cap.max_sessions, "refused: too many open sessions");
        let id = message
            .and_then(|m| m.get("id").cloned())
            .unwrap_or(Value::Null);
        return json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &framing::error(
                id,
                SERVER_BUSY,
                &format!(
                    "Service Unavailable: {} sessions are open (--max-sessions); close one (HTTP DELETE) or wait for one to expire",
                    cap.max_sessions
                ),
            ),
        );
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
