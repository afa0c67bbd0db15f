//! JSON-RPC framing checks shared by stdio and HTTP: one incoming message (a stdio line
//! or a POST body) is either a well-formed JSON-RPC 2.0 message the service can read, or
//! it is answered here with the error JSON-RPC 2.0 defines for it, carrying the message's
//! `id` whenever one can be recovered:
//!
//! - not JSON at all (invalid UTF-8, a lone surrogate escape, `NaN`, nesting deeper than
//!   the parser allows, two messages on one line): **-32700** parse error;
//! - JSON, but not a JSON-RPC 2.0 envelope (no `"jsonrpc": "2.0"`, an `id` that is not a
//!   string or number, a `method` that is not a string, neither a method nor a result):
//!   **-32600** invalid request;
//! - a well-formed request whose `params` the service cannot read: **-32602** invalid
//!   params.
//!
//! The `id` is recovered from the raw bytes by a small scanner that finds the top-level
//! object's `"id"` member, so a fault elsewhere in the message (a broken emoji in an
//! argument) does not lose it. A notification (no `id`) that cannot be read gets no reply,
//! as JSON-RPC 2.0 says, only a log line; a parse error with no recoverable `id` is
//! answered with `"id": null`.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::{Value, json};

use super::INVALID_PARAMS;

/// JSON-RPC "parse error".
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "invalid request".
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// The client requests MCP defines (rmcp's typed `ClientRequest` variants).
const MCP_REQUESTS: &[&str] = &[
    "ping",
    "initialize",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/directory/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// The verdict on one incoming message.
#[derive(Debug)]
pub(crate) enum Framed {
    /// A message the service can read.
    Message(Box<ClientJsonRpcMessage>),
    /// A JSON array (a batch); left to the caller.
    Batch,
    /// Not readable: answer with this error response.
    Reply(Value),
    /// Not readable and nothing to answer (a notification).
    Drop,
}

/// Checks one incoming message.
pub(crate) fn check(bytes: &[u8]) -> Framed {
    let value = match std::str::from_utf8(bytes) {
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => return parse_error(bytes, &format!("Parse error: {e}")),
        },
        Err(_) => return parse_error(bytes, "Parse error: the message is not valid UTF-8"),
    };
    let Value::Object(map) = &value else {
        if value.is_array() {
            return Framed::Batch;
        }
        return Framed::Reply(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a JSON-RPC message is an object",
        ));
    };
    let id = map.get("id");
    let reply_id = match id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    let invalid = |why: &str| Framed::Reply(error(reply_id.clone(), INVALID_REQUEST, why));
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("Invalid Request: \"jsonrpc\" must be \"2.0\"");
    }
    if id.is_some_and(|v| !(v.is_string() || v.is_i64() || v.is_u64())) {
        return invalid("Invalid Request: \"id\" must be a string or an integer");
    }
    let method = map.get("method");
    if method.is_some_and(|m| !m.is_string()) {
        return invalid("Invalid Request: \"method\" must be a string");
    }
    let is_response = method.is_none() && (map.contains_key("result") || map.contains_key("error"));
    if method.is_none() && !is_response {
        return invalid(
            "Invalid Request: a message needs a \"method\", a \"result\" or an \"error\"",
        );
    }
    if is_response && id.is_none() {
        return invalid("Invalid Request: a response needs an \"id\"");
    }
    if let Some(params) = map.get("params")
        && !(params.is_object() || params.is_array())
    {
        return match id {
            Some(_) => Framed::Reply(error(
                reply_id,
                INVALID_PARAMS,
                "Invalid params: \"params\" must be an object",
            )),
            None => dropped("notification params are not an object"),
        };
    }
    let (has_method, has_id) = (method.is_some(), id.is_some());
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        // rmcp reads a request whose params do not fit its method as a custom request;
        // for a method MCP defines, that is JSON-RPC's "invalid params".
        Ok(JsonRpcMessage::Request(r)) if matches!(&r.request, ClientRequest::CustomRequest(c) if MCP_REQUESTS.contains(&c.method.as_str())) => {
            Framed::Reply(error(
                reply_id,
                INVALID_PARAMS,
                "Invalid params: the params do not match what the method takes",
            ))
        }
        Ok(message) => Framed::Message(Box::new(message)),
        Err(e) if has_method && has_id => Framed::Reply(error(
            reply_id,
            INVALID_PARAMS,
            &format!("Invalid params: {e}"),
        )),
        Err(e) if has_method => dropped(&e.to_string()),
        Err(e) => {
            tracing::warn!(error = %e, "an unreadable client response; dropped");
            Framed::Drop
        }
    }
}

fn dropped(why: &str) -> Framed {
    tracing::warn!(error = %why, "an unreadable notification; dropped");
    Framed::Drop
}

fn parse_error(bytes: &[u8], message: &str) -> Framed {
    tracing::warn!(error = %message, "an incoming message is not JSON");
    Framed::Reply(error(
        recover_id(bytes).unwrap_or(Value::Null),
        PARSE_ERROR,
        message,
    ))
}

/// A JSON-RPC error response.
pub(crate) fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `id` member (a string or a number) of the first top-level object in `bytes`, found
/// without parsing the rest, so a fault elsewhere does not hide it.
pub(crate) fn recover_id(bytes: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0;
    // At depth 1, whether the next string is a key (after `{` or `,`).
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1 && bytes[i] == b'{';
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return None;
                }
            }
            b',' if depth == 1 => expect_key = true,
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 1 && expect_key && &bytes[i..=end] == b"\"id\"" {
                    return id_after_colon(&bytes[end + 1..]);
                }
                expect_key = false;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn id_after_colon(rest: &[u8]) -> Option<Value> {
    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest[colon] != b':' {
        return None;
    }
    let rest = &rest[colon + 1..];
    let value = serde_json::Deserializer::from_slice(rest)
        .into_iter::<Value>()
        .next()?
        .ok()?;
    (value.is_string() || value.is_number()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(bytes: &[u8]) -> Value {
        match check(bytes) {
            Framed::Reply(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ids_are_recovered_around_faults() {
        for (line, id) in [
            (
                &br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"\ud800"}}"#[..],
                json!(7),
            ),
            (
                &br#"{"params":{"id":1},"id":"k","method":"x"}"#[..],
                json!("k"),
            ),
            (&b"{\"id\" : 3, \"v\": NaN}"[..], json!(3)),
            (&b"{\"a\":\"\xff\",\"id\":4}"[..], json!(4)),
            (&br#"{"id":5}{"id":6}"#[..], json!(5)),
        ] {
            assert_eq!(
                recover_id(line),
                Some(id),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(recover_id(br#"{"a":{"id":1}}"#), None);
        assert_eq!(recover_id(br#"{"a":"\"id\":1"}"#), None);
        assert_eq!(recover_id(b"not json"), None);
    }

    #[test]
    fn bad_messages_get_the_codes_json_rpc_defines() {
        let r = reply(br#"{"jsonrpc":"2.0","id":7,"method":"ping","x":NaN}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(7), json!(PARSE_ERROR))
        );
        assert_eq!(reply(b"garbage")["id"], Value::Null);
        let r = reply(br#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(8), json!(INVALID_REQUEST))
        );
        let r = reply(br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(9), json!(INVALID_PARAMS))
        );
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Framed::Message(_)
        ));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#),
            Framed::Drop
        ));
    }
}
