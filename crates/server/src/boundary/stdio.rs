//! The payload filter's stdio half: [`FilteringTransport`], a transport wrapper that
//! applies the [`Boundary`] to the typed rmcp messages of a stdio session.

use std::future::Future;

use rmcp::RoleServer;
use rmcp::model::{CallToolResult, JsonRpcMessage, JsonRpcResponse, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use super::{Boundary, Inbound};

impl Boundary {
    /// Encodes a typed outgoing message: through a `Value`, as [`Boundary::outbound`] does,
    /// and back into rmcp's type.
    ///
    /// A tool's result, most of what the filter changes, is read back as `CallToolResult`
    /// alone. Reading back a whole message goes through rmcp's untagged message and result
    /// enums, which try their variants in turn: many times slower than a message left as
    /// it was, enough to slow every filtered tool call (docs/performance.md).
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
}

/// Errors of [`FilteringTransport`].
#[derive(Debug, thiserror::Error)]
pub enum FilterTransportError<E: std::error::Error + 'static> {
    /// The wrapped transport failed.
    #[error(transparent)]
    Inner(E),
    /// A message could not be re-encoded.
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
    /// Wraps `inner`, filtering both directions through `boundary`.
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
    use serde_json::json;

    use super::*;

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
