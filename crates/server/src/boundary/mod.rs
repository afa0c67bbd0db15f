//! The filter boundary: where the model-visible payload filter meets the wire.
//!
//! With `MCP_MODEL_PAYLOAD_FILTER=1` (exactly `1`), every JSON-RPC message the server
//! sends is encoded and every message it receives is decoded, before rmcp deserializes
//! anything, so tool arguments are validated as the real values. The decision of what
//! happens to a message that cannot be decoded (its keys collide once decoded) lives
//! here, once, for every transport:
//! - a request is answered with JSON-RPC `-32602` and never reaches the service;
//! - a response from the client becomes an error response for the same id, so the
//!   server request waiting on it fails at once instead of hanging;
//! - a notification keeps what carries the client's intent, which never needs the
//!   colliding keys, and the rest is logged and dropped: `notifications/cancelled`
//!   passes on with its `requestId` alone (the filter never decodes that one, so it is
//!   the client's own), so the call is still cancelled instead of running to its
//!   deadline; `notifications/initialized` and `notifications/roots/list_changed` pass
//!   on without params; any other notification is dropped. Resolving the collision by
//!   keeping one member would silently choose between two values the client sent.
//!
//! Before any of that, on stdio, [`LineTransport`] checks every line's JSON-RPC framing
//! (module `framing`, shared with HTTP) and answers unreadable lines with their `id`.
//!
//! Two adapters use it: [`FilteringTransport`] (`stdio`: typed rmcp messages) and the
//! HTTP body layer (`http`: Streamable HTTP bodies and SSE frames, which covers the
//! session path and the stateless 2026-07-28 path alike). With the filter off,
//! neither adapter is installed, so the bytes on the wire are the unfiltered server's.

use mcp_payload_filter::{DecodeError, Filter};
use serde_json::{Value, json};

pub(crate) mod framing;
pub(crate) mod http;
mod lines;
mod stdio;

pub use lines::LineTransport;
pub use stdio::{FilterTransportError, FilteringTransport};

/// JSON-RPC "invalid params".
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// What to do with one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Inbound {
    /// Decoded; hand it to the service.
    Pass(Value),
    /// Do not hand it on; send this (already encoded) message back to the client.
    Reply(Value),
    /// Do not hand it on; nothing to answer.
    Drop,
    /// A batch some of whose members were rejected: hand on the rest, answer those.
    PassAndReply(Value, Value),
}

/// The payload filter applied to whole JSON-RPC messages.
#[derive(Clone, Copy)]
pub struct Boundary {
    filter: &'static Filter,
}

impl std::fmt::Debug for Boundary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Boundary")
    }
}

impl Boundary {
    /// The boundary, when `MCP_MODEL_PAYLOAD_FILTER` is exactly `1`.
    pub fn from_env() -> Option<Boundary> {
        let v = std::env::var(mcp_payload_filter::ENV_VAR).ok();
        mcp_payload_filter::enabled_from_env_value(v.as_deref()).then(Boundary::new)
    }

    /// The boundary, regardless of `MCP_MODEL_PAYLOAD_FILTER`.
    pub fn new() -> Boundary {
        Boundary {
            filter: Filter::global(),
        }
    }

    /// Encodes an outgoing message (or batch) in place.
    pub(crate) fn outbound(&self, message: &mut Value) {
        self.filter.encode_message(message);
    }

    /// Decodes an incoming message. A batch (JSON array) is decoded element by element;
    /// its failing elements are answered or dropped as single messages would be.
    pub(crate) fn inbound(&self, message: Value) -> Inbound {
        match message {
            Value::Array(items) => {
                let mut pass = Vec::new();
                let mut replies = Vec::new();
                for item in items {
                    match self.inbound_one(item) {
                        Inbound::Pass(v) => pass.push(v),
                        Inbound::Reply(r) => replies.push(r),
                        Inbound::Drop => {}
                        Inbound::PassAndReply(p, r) => {
                            pass.push(p);
                            replies.push(r);
                        }
                    }
                }
                match (pass.is_empty(), replies.is_empty()) {
                    (false, true) => Inbound::Pass(Value::Array(pass)),
                    (false, false) => {
                        Inbound::PassAndReply(Value::Array(pass), Value::Array(replies))
                    }
                    (true, false) => Inbound::Reply(Value::Array(replies)),
                    (true, true) => Inbound::Drop,
                }
            }
            other => self.inbound_one(other),
        }
    }

    fn inbound_one(&self, mut message: Value) -> Inbound {
        match self.filter.decode_message(&mut message) {
            Ok(()) => Inbound::Pass(message),
            Err(e) => self.reject(&message, &e),
        }
    }

    fn reject(&self, message: &Value, e: &DecodeError) -> Inbound {
        let id = message.get("id").cloned();
        let is_request = message.get("method").is_some() && id.is_some();
        let is_response = message.get("method").is_none()
            && (message.get("result").is_some() || message.get("error").is_some());
        let text = format!("{e}; send arguments whose keys stay distinct once decoded");
        if is_request || is_response {
            let Some(id) = id else {
                return Inbound::Drop;
            };
            if is_response {
                tracing::warn!(error = %e, "client response rejected by the payload filter");
                // Looped back to the service as the client's error, so the waiting
                // server request fails now instead of timing out.
                return Inbound::Pass(json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": INVALID_PARAMS, "message": text}
                }));
            }
            let mut reply = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": INVALID_PARAMS, "message": text}
            });
            self.outbound(&mut reply);
            Inbound::Reply(reply)
        } else {
            notification_kept(message, e)
        }
    }
}

/// What is kept of a notification whose keys collide once decoded: the part that carries
/// the client's intent, which never needs the colliding keys.
fn notification_kept(message: &Value, e: &DecodeError) -> Inbound {
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let request_id = message.pointer("/params/requestId");
    match (method, request_id) {
        // The filter never decodes `requestId`, so it is the client's own; without the
        // rest (`reason`), the cancellation still stops the call instead of letting it
        // run to its deadline.
        ("notifications/cancelled", Some(id)) => {
            tracing::warn!(error = %e, "cancellation passed on without its other params (keys collide once decoded)");
            Inbound::Pass(json!({
                "jsonrpc": "2.0",
                "method": method,
                "params": {"requestId": id}
            }))
        }
        // Their method is their whole meaning; the params are only `_meta`.
        ("notifications/initialized" | "notifications/roots/list_changed", _) => {
            tracing::warn!(error = %e, method, "notification passed on without params (keys collide once decoded)");
            Inbound::Pass(json!({"jsonrpc": "2.0", "method": method}))
        }
        _ => {
            tracing::warn!(error = %e, method, "notification dropped by the payload filter (keys collide once decoded)");
            Inbound::Drop
        }
    }
}

impl Default for Boundary {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_request_is_answered_with_invalid_params() {
        let b = Boundary::new();
        let msg = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"qwen":1,"__mcp_ref_7177656e__":2}}});
        match b.inbound(msg) {
            Inbound::Reply(r) => {
                assert_eq!(r["id"], 7);
                assert_eq!(r["error"]["code"], INVALID_PARAMS);
                assert!(r["error"]["message"].as_str().unwrap().contains("collide"));
                assert!(!r.to_string().to_lowercase().contains("qwen"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn colliding_notification_is_dropped_and_response_becomes_error() {
        let b = Boundary::new();
        let n = json!({"jsonrpc":"2.0","method":"notifications/x","params":{"qwen":1,"__mcp_ref_7177656e__":2}});
        assert_eq!(b.inbound(n), Inbound::Drop);
        let c = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-1","qwen":1,"__mcp_ref_7177656e__":2}});
        assert_eq!(
            b.inbound(c),
            Inbound::Pass(
                json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-1"}})
            )
        );
        let r = json!({"jsonrpc":"2.0","id":"s-1","result":{"qwen":1,"__mcp_ref_7177656e__":2}});
        match b.inbound(r) {
            Inbound::Pass(v) => {
                assert_eq!(v["id"], "s-1");
                assert_eq!(v["error"]["code"], INVALID_PARAMS);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tokens_are_decoded_before_the_service_sees_them() {
        let b = Boundary::new();
        let msg = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mobile_launch_app","arguments":{"packageName":"com.ali__mcp_ref_62616261__.qwen"}}});
        let Inbound::Pass(v) = b.inbound(msg) else {
            panic!()
        };
        assert_eq!(v["params"]["arguments"]["packageName"], "com.alibaba.qwen");
    }
}
