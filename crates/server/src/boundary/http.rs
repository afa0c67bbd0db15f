//! The payload filter's HTTP half: a layer that decodes every POSTed JSON-RPC body with
//! [`Boundary::inbound`] before rmcp sees it, and encodes every body rmcp sends with
//! [`Boundary::outbound`]: `application/json` bodies whole, `text/event-stream` bodies
//! event by event. Sitting outside rmcp, it sees the session path, the standalone GET
//! stream and the stateless 2026-07-28 path alike.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http::{HeaderMap, Method, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;

use super::{Boundary, Inbound};
use crate::http::{json_response, refusal, to_body_bytes};

/// The layer: decodes the POSTed message, encodes whatever comes back.
pub(crate) async fn layer(
    State(boundary): State<Boundary>,
    request: Request,
    next: Next,
) -> Response {
    let request = if request.method() == Method::POST {
        let (mut parts, body) = request.into_parts();
        // The body-limit layer has already read the body within the limit.
        let bytes = match body.collect().await {
            Ok(c) => c.to_bytes(),
            Err(e) => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    &format!("Bad Request: cannot read the request body: {e}"),
                );
            }
        };
        let bytes = match serde_json::from_slice::<Value>(&bytes) {
            // Not JSON: rmcp answers it as it answers any malformed body.
            Err(_) => bytes,
            Ok(message) => match boundary.inbound(message) {
                Inbound::Pass(message) => to_body_bytes(&message),
                Inbound::Reply(reply) => return reply_response(&parts.headers, &reply),
                Inbound::Drop => return StatusCode::ACCEPTED.into_response(),
                // rmcp does not take batches (it refuses them as unparsable), so the
                // rejected members' replies have nowhere to go; the rest is handed on
                // and refused by rmcp as the unfiltered server would refuse it.
                Inbound::PassAndReply(message, _) => to_body_bytes(&message),
            },
        };
        parts.headers.remove(header::CONTENT_LENGTH);
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    let response = next.run(request).await;
    encode_response(boundary, response).await
}
/// The filter's own answer to a request (already encoded): JSON when the client takes
/// it, else one SSE event.
fn reply_response(request_headers: &HeaderMap, reply: &Value) -> Response {
    let accept = request_headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect::<Vec<_>>();
    let json_ok = accept.is_empty()
        || accept
            .iter()
            .any(|a| a == "application/json" || a == "application/*" || a == "*/*");
    if json_ok {
        json_response(StatusCode::OK, reply)
    } else {
        let text = serde_json::to_string(reply).unwrap_or_default();
        (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            format!("data: {text}\n\n"),
        )
            .into_response()
    }
}

/// Encodes a response body from rmcp: JSON whole, SSE event by event, and any other
/// body (rmcp's plain-text errors, which may repeat what the client sent, such as an
/// `MCP-Protocol-Version` header) as text. A body that is not UTF-8 text is replaced by
/// an empty one: nothing leaves unfiltered.
async fn encode_response(boundary: Boundary, response: Response) -> Response {
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    match content_type.as_str() {
        "application/json" => {
            let (mut parts, body) = response.into_parts();
            let bytes = match body.collect().await {
                Ok(c) => c.to_bytes(),
                Err(e) => {
                    tracing::warn!(error = %e, "could not read a JSON response body");
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
            };
            let bytes = match serde_json::from_slice::<Value>(&bytes) {
                Ok(mut message) => {
                    boundary.outbound(&mut message);
                    to_body_bytes(&message)
                }
                Err(_) => bytes,
            };
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(bytes))
        }
        "text/event-stream" => {
            let (mut parts, body) = response.into_parts();
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, encode_sse_body(boundary, body))
        }
        _ => encode_text_response(boundary, response).await,
    }
}

/// Encodes a body that is neither JSON nor SSE as text (read whole: rmcp's other bodies
/// are one-line errors).
async fn encode_text_response(boundary: Boundary, response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = match body.collect().await {
        Ok(c) => c.to_bytes(),
        Err(e) => {
            tracing::warn!(error = %e, "could not read a response body");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let bytes = match std::str::from_utf8(&bytes) {
        Ok(text) => match boundary.filter.encode_str(text) {
            std::borrow::Cow::Borrowed(_) => bytes,
            std::borrow::Cow::Owned(encoded) => Bytes::from(encoded),
        },
        Err(_) => {
            tracing::warn!("a response body that is not text was dropped by the filter");
            Bytes::new()
        }
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(bytes))
}

/// Wraps an SSE body so that every event's `data` is encoded as it streams by.
fn encode_sse_body(boundary: Boundary, body: Body) -> Body {
    let state = (body.into_data_stream(), SseEncoder::new(boundary), false);
    let stream = futures_util::stream::unfold(state, |(mut inner, mut encoder, done)| async move {
        if done {
            return None;
        }
        loop {
            match inner.next().await {
                Some(Ok(chunk)) => {
                    let out = encoder.push(&chunk);
                    if !out.is_empty() {
                        return Some((Ok::<Bytes, axum::Error>(out), (inner, encoder, false)));
                    }
                }
                Some(Err(e)) => return Some((Err(e), (inner, encoder, true))),
                None => {
                    let out = encoder.finish();
                    return (!out.is_empty()).then(|| (Ok(out), (inner, encoder, true)));
                }
            }
        }
    });
    Body::from_stream(stream)
}

/// Incremental SSE rewriter: lines are collected until the blank line that ends an
/// event; then the event's `data` (its `data:` lines joined by `\n`) is parsed as JSON,
/// encoded, and written back as one `data:` line in the place of the first one. Every
/// other line (`id:`, `event:`, `retry:`, `:` comments such as keep-alives) is written
/// back byte for byte, in order. An event whose data is not JSON (a priming event's
/// empty data) is written back unchanged. Lines end at `\n` (a preceding `\r` is kept);
/// rmcp never ends lines with a lone `\r`.
struct SseEncoder {
    boundary: Boundary,
    /// Bytes of a line not yet terminated.
    partial: BytesMut,
    /// Complete lines of the current event, with their terminators.
    lines: Vec<Bytes>,
}

impl SseEncoder {
    fn new(boundary: Boundary) -> SseEncoder {
        SseEncoder {
            boundary,
            partial: BytesMut::new(),
            lines: Vec::new(),
        }
    }

    /// Takes the next chunk; returns the bytes of the events it completed.
    fn push(&mut self, chunk: &[u8]) -> Bytes {
        let mut out = BytesMut::new();
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..=pos]);
            rest = &rest[pos + 1..];
            let line = self.partial.split().freeze();
            if line_content(&line).is_empty() {
                self.flush_event(&mut out);
                out.extend_from_slice(&line);
            } else {
                self.lines.push(line);
            }
        }
        self.partial.extend_from_slice(rest);
        out.freeze()
    }

    /// The end of the stream: whatever is left, unchanged (an event without its
    /// closing blank line is never dispatched by a client anyway).
    fn finish(&mut self) -> Bytes {
        let mut out = BytesMut::new();
        for line in self.lines.drain(..) {
            out.extend_from_slice(&line);
        }
        out.extend_from_slice(&self.partial.split());
        out.freeze()
    }

    fn flush_event(&mut self, out: &mut BytesMut) {
        let lines = std::mem::take(&mut self.lines);
        let mut data: Option<String> = None;
        let mut first_data = None;
        for (i, line) in lines.iter().enumerate() {
            if let Some(value) = data_value(line_content(line)) {
                let value = String::from_utf8_lossy(value);
                match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(&value);
                    }
                    None => {
                        data = Some(value.into_owned());
                        first_data = Some(i);
                    }
                }
            }
        }
        let encoded = data
            .and_then(|d| serde_json::from_str::<Value>(&d).ok())
            .map(|mut message| {
                self.boundary.outbound(&mut message);
                serde_json::to_string(&message).unwrap_or_default()
            });
        match (encoded, first_data) {
            (Some(json), Some(first)) => {
                for (i, line) in lines.iter().enumerate() {
                    if i == first {
                        out.extend_from_slice(b"data: ");
                        out.extend_from_slice(json.as_bytes());
                        out.extend_from_slice(line_terminator(line));
                    } else if data_value(line_content(line)).is_none() {
                        out.extend_from_slice(line);
                    }
                }
            }
            _ => {
                for line in &lines {
                    out.extend_from_slice(line);
                }
            }
        }
    }
}

/// A line without its `\n` or `\r\n`.
fn line_content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn line_terminator(line: &[u8]) -> &[u8] {
    &line[line_content(line).len()..]
}

/// The value of a `data` field line (`data`, `data:x`, `data: x`), else `None`.
fn data_value(content: &[u8]) -> Option<&[u8]> {
    if content == b"data" {
        return Some(b"");
    }
    let value = content.strip_prefix(b"data:")?;
    Some(value.strip_prefix(b" ").unwrap_or(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term_free(bytes: &[u8]) -> bool {
        !mcp_payload_filter::Filter::global().contains_term(&String::from_utf8_lossy(bytes))
    }

    #[test]
    fn sse_events_are_encoded_across_chunk_boundaries() {
        let input = b": keep-alive\n\nid: 0\nretry: 3000\ndata:\n\nid: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"qwen here\"}}\n\n";
        for split in 0..input.len() {
            let mut enc = SseEncoder::new(Boundary::new());
            let mut out = Vec::new();
            out.extend_from_slice(&enc.push(&input[..split]));
            out.extend_from_slice(&enc.push(&input[split..]));
            out.extend_from_slice(&enc.finish());
            let text = String::from_utf8(out.clone()).unwrap();
            assert!(term_free(&out), "{text}");
            assert!(
                text.starts_with(
                    ": keep-alive\n\nid: 0\nretry: 3000\ndata:\n\nid: 1\nevent: message\ndata: {"
                ),
                "{text}"
            );
            assert!(text.ends_with("}}\n\n"), "{text}");
            assert!(text.contains("__mcp_ref_7177656e__ here"), "{text}");
        }
    }

    #[test]
    fn multi_line_data_and_crlf_are_handled() {
        let mut enc = SseEncoder::new(Boundary::new());
        let out = enc.push(b"id: 7\r\ndata: {\"id\":1,\r\ndata: \"result\":\"qwen\"}\r\n\r\n");
        assert_eq!(
            String::from_utf8(out.to_vec()).unwrap(),
            "id: 7\r\ndata: {\"id\":1,\"result\":\"__mcp_ref_7177656e__\"}\r\n\r\n"
        );
    }

    #[test]
    fn non_json_data_and_unterminated_events_pass_unchanged() {
        let mut enc = SseEncoder::new(Boundary::new());
        let out = enc.push(b"data: not json\n\ndata: {\"x\":1}");
        assert_eq!(&out[..], b"data: not json\n\n");
        assert_eq!(&enc.finish()[..], b"data: {\"x\":1}");
    }
}
