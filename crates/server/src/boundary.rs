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
//! - a notification is logged and dropped.
//!
//! Two adapters use it: [`FilteringTransport`] (stdio: typed rmcp messages) and the HTTP
//! body layer in [`crate::http`] (Streamable HTTP bodies and SSE frames, which covers
//! the session path and the stateless 2026-07-28 path alike). With the filter off,
//! neither adapter is installed, so the bytes on the wire are the unfiltered server's.

use std::future::Future;

use mcp_payload_filter::{DecodeError, Filter};
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, JsonRpcMessage, JsonRpcResponse, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};

/// JSON-RPC "invalid params".
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
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

    pub fn new() -> Boundary {
        Boundary {
            filter: Filter::global(),
        }
    }

    /// Encodes an outgoing message (or batch) in place.
    pub fn outbound(&self, message: &mut Value) {
        self.filter.encode_message(message);
    }

    /// Encodes a typed outgoing message: through a `Value`, as [`Boundary::outbound`] does,
    /// and back into rmcp's type.
    ///
    /// A tool's result, most of what the filter changes, is read back as `CallToolResult`
    /// alone. Reading back a whole message goes through rmcp's untagged message and result
    /// enums, which try their variants in turn. In the server that took 60–90 µs per
    /// changed message against 3 µs for a message left as it was, and made list apps 8–12%
    /// slower with the filter on (docs/performance.md).
    fn encode_typed(
        &self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> serde_json::Result<TxJsonRpcMessage<RoleServer>> {
        if let JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc,
            id,
            result: ServerResult::CallToolResult(result),
        }) = item
        {
            // The message walk encodes all of `result` like any value.
            let mut value = serde_json::to_value(&result)?;
            self.filter.encode_value(&mut value);
            let result = serde_json::from_value::<CallToolResult>(value)?;
            return Ok(JsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc,
                id,
                result: ServerResult::CallToolResult(result),
            }));
        }
        let mut value = serde_json::to_value(&item)?;
        self.outbound(&mut value);
        serde_json::from_value(value)
    }

    /// Decodes an incoming message. A batch (JSON array) is decoded element by element;
    /// its failing elements are answered or dropped as single messages would be.
    pub fn inbound(&self, message: Value) -> Inbound {
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
            tracing::warn!(error = %e, "notification dropped by the payload filter");
            Inbound::Drop
        }
    }
}

impl Default for Boundary {
    fn default() -> Self {
        Self::new()
    }
}

/// Errors of [`FilteringTransport`].
#[derive(Debug, thiserror::Error)]
pub enum FilterTransportError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Inner(E),
    #[error("payload filter could not re-encode a message: {0}")]
    Codec(#[from] serde_json::Error),
}

/// A transport wrapper that applies the [`Boundary`] to every message in both
/// directions (used for stdio, where rmcp hands us typed messages).
pub struct FilteringTransport<T: Transport<RoleServer>> {
    inner: T,
    boundary: Boundary,
    /// A reply the boundary itself owes the client. rmcp polls `receive` inside a
    /// `select!` and drops it when another branch fires, so the reply is kept here, not in
    /// the `receive` future, and finished by the next `receive`: it is never lost.
    pending: Option<PendingSend<T::Error>>,
}

type PendingSend<E> = std::pin::Pin<Box<dyn Future<Output = Result<(), E>> + Send>>;

impl<T: Transport<RoleServer>> FilteringTransport<T> {
    pub fn new(inner: T, boundary: Boundary) -> Self {
        FilteringTransport {
            inner,
            boundary,
            pending: None,
        }
    }

    fn owe(&mut self, reply: TxJsonRpcMessage<RoleServer>) {
        self.pending = Some(Box::pin(self.inner.send(reply)));
    }
}

impl<T> Transport<RoleServer> for FilteringTransport<T>
where
    T: Transport<RoleServer>,
    T::Error: Send,
{
    type Error = FilterTransportError<T::Error>;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let boundary = self.boundary;
        // Most messages hold nothing to encode: one serialization and a scan of it decide
        // that, and the message goes out as it is, without the walk over a `Value` copy.
        let prepared = match serde_json::to_string(&item) {
            Ok(text) if !boundary.filter.encodes(&text) => Ok(self.inner.send(item)),
            _ => boundary.encode_typed(item).map(|m| self.inner.send(m)),
        };
        async move {
            match prepared {
                Ok(f) => f.await.map_err(FilterTransportError::Inner),
                Err(e) => Err(FilterTransportError::Codec(e)),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(pending) = self.pending.as_mut() {
                let sent = pending.await;
                self.pending = None;
                if sent.is_err() {
                    return None;
                }
            }
            let msg = self.inner.receive().await?;
            // No token prefix anywhere: nothing to decode, and no key can collide.
            if serde_json::to_string(&msg).is_ok_and(|t| !self.boundary.filter.may_decode(&t)) {
                return Some(msg);
            }
            let value = match serde_json::to_value(&msg) {
                Ok(v) => v,
                Err(e) => {
                    tracing::warn!(error = %e, "could not re-read an incoming message; passed unfiltered");
                    return Some(msg);
                }
            };
            match self.boundary.inbound(value) {
                Inbound::Pass(v) => match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(v)
                {
                    Ok(m) => return Some(m),
                    Err(e) => {
                        tracing::warn!(error = %e, "a decoded message no longer parses; dropped");
                        if let Some(reply) =
                            error_for(&msg, &format!("the decoded message is invalid: {e}"))
                        {
                            self.owe(reply);
                        }
                    }
                },
                Inbound::Reply(r) => {
                    match serde_json::from_value::<TxJsonRpcMessage<RoleServer>>(r) {
                        Ok(reply) => self.owe(reply),
                        Err(e) => {
                            tracing::warn!(error = %e, "could not build a filter error reply")
                        }
                    }
                }
                Inbound::Drop => {}
                Inbound::PassAndReply(..) => {
                    // rmcp's stdio codec hands over single messages, never batches.
                    tracing::warn!("unexpected batch on a typed transport; dropped");
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let f = self.inner.close();
        async move { f.await.map_err(FilterTransportError::Inner) }
    }
}

fn error_for(
    msg: &RxJsonRpcMessage<RoleServer>,
    text: &str,
) -> Option<TxJsonRpcMessage<RoleServer>> {
    let rmcp::model::JsonRpcMessage::Request(r) = msg else {
        return None;
    };
    Some(TxJsonRpcMessage::<RoleServer>::error(
        rmcp::ErrorData::invalid_params(text.to_string(), None),
        Some(r.id.clone()),
    ))
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

    #[test]
    fn a_typed_tool_result_is_encoded_as_the_message_walk_encodes_it() {
        let b = Boundary::new();
        let tool_result = json!({"jsonrpc":"2.0","id":30,"result":{
            "content":[{"type":"text","text":"Found these apps on device: Qwen (com.alibaba.qwen)"}],
            "structuredContent":{"apps":[{"packageName":"com.alibaba.qwen","qwenName":"Qwen"}]},
            "isError":false,
            "_meta":{"note":"alibaba"}}});
        let other = json!({"jsonrpc":"2.0","id":31,"result":{"tools":[{"name":"t","description":"qwen tool","inputSchema":{"type":"object"}}]}});
        for (message, is_tool_result) in [(tool_result, true), (other, false)] {
            let typed: TxJsonRpcMessage<RoleServer> = serde_json::from_value(message).unwrap();
            let tool = matches!(&typed, JsonRpcMessage::Response(r)
                if matches!(r.result, ServerResult::CallToolResult(_)));
            assert_eq!(tool, is_tool_result);
            let mut walked = serde_json::to_value(&typed).unwrap();
            b.outbound(&mut walked);
            let fast = serde_json::to_value(b.encode_typed(typed).unwrap()).unwrap();
            assert_eq!(fast, walked);
            let text = fast.to_string().to_lowercase();
            assert!(
                !text.contains("qwen") && !text.contains("alibaba"),
                "{text}"
            );
            assert!(text.contains("__mcp_ref_"), "{text}");
        }
    }
}
