//! Streamable HTTP (`--listen`): rmcp's [`StreamableHttpService`] at `/mcp`, wrapped in
//! the safety layers, plus `GET /healthz`.
//!
//! A request to `/mcp` passes these layers, outermost first; each one either answers
//! the request itself or hands it on unchanged:
//!
//! 1. **Host and Origin** (DNS-rebinding protection): the `Host` must be a loopback name
//!    (`localhost`, `127.0.0.1`, `[::1]`, any port), the bound IP address, or an
//!    `--allowed-host`; an `Origin`, when present, must be an `--allowed-origin`, or a
//!    loopback origin when the server is bound to loopback. Otherwise **403**. This is
//!    the only Host/Origin check: rmcp's own is switched off so that the policy and its
//!    messages live here.
//! 2. **Bearer token** (when one is configured): `Authorization: Bearer <token>`,
//!    compared in constant time (SHA-256 digests of both sides, compared with
//!    `subtle`, so neither content nor length leaks). Otherwise **401** with
//!    `WWW-Authenticate: Bearer` and a JSON-RPC error body.
//! 3. **Body size**: a body larger than `max_body_bytes` is refused with **413** before
//!    anything parses it (the body is read here, once, with the limit; rmcp's own
//!    limit is set to the same value and never trips).
//! 4. **Payload filter** (only with `MCP_MODEL_PAYLOAD_FILTER=1`): every POSTed JSON-RPC
//!    body goes through [`Boundary::inbound`] before rmcp sees it, and every body rmcp
//!    sends goes through [`Boundary::outbound`]: `application/json` bodies whole,
//!    `text/event-stream` bodies event by event. Sitting outside rmcp, it sees the
//!    session path, the standalone GET stream and the stateless 2026-07-28 path alike
//!    (rmcp's per-session hook does not see the last one). With the filter off the
//!    layer is not installed, so the bytes are the unfiltered server's.
//! 5. rmcp's service: sessions in a [`LocalSessionManager`] that closes a session idle
//!    for `session_idle`; 2026-07-28 requests are served statelessly.
//!
//! Binding a non-loopback address without a token is refused (see [`serve`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use http_body_util::BodyExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::MobileServer;
use crate::boundary::{Boundary, Inbound};

/// How `--listen` serves.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `[HOST:]PORT`; HOST defaults to 127.0.0.1.
    pub listen: String,
    /// Bearer token every request must carry; required for a non-loopback bind.
    pub auth_token: Option<String>,
    /// Extra accepted Host header values (loopback names are always accepted).
    pub allowed_hosts: Vec<String>,
    /// Accepted browser origins; any other Origin header is refused.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub session_idle: Duration,
}

/// JSON-RPC error code of the HTTP layers' own refusals (auth, Host, Origin, size).
const HTTP_LAYER_ERROR: i64 = -32001;

/// Binds `config.listen` and serves until the future is dropped.
///
/// # Errors
///
/// An unparsable or unbindable address, an empty token, or a non-loopback address
/// without a token (the message says how to set `MOBILE_MCP_AUTH`).
pub async fn serve(
    server: MobileServer,
    config: HttpConfig,
    boundary: Option<Boundary>,
) -> anyhow::Result<()> {
    let addrs = resolve_listen(&config.listen).await?;
    let loopback = addrs.iter().all(|a| a.ip().is_loopback());
    if matches!(&config.auth_token, Some(t) if t.is_empty()) {
        anyhow::bail!("--listen {}: the bearer token is empty", config.listen);
    }
    if !loopback && config.auth_token.is_none() {
        anyhow::bail!(
            "refusing to listen on {} without a bearer token: anyone who can reach that address \
             could drive your devices. Set MOBILE_MCP_AUTH to a long random secret (for example \
             `export MOBILE_MCP_AUTH=$(openssl rand -hex 32)`) or pass --auth-token-file PATH; \
             clients then send `Authorization: Bearer <secret>`. Also pass --allowed-host with \
             the name clients use to reach this machine. Or listen on loopback only, e.g. \
             --listen 127.0.0.1:{}",
            config.listen,
            addrs.first().map_or(0, SocketAddr::port)
        );
    }
    let listener = tokio::net::TcpListener::bind(addrs.as_slice())
        .await
        .with_context(|| format!("--listen {}: cannot bind", config.listen))?;
    let local = listener.local_addr().context("bound address")?;
    let app = router(server, &config, boundary, local, loopback);
    tracing::info!(
        payload_filter = boundary.is_some(),
        auth = config.auth_token.is_some(),
        "listening on http://{local}/mcp"
    );
    axum::serve(listener, app)
        .await
        .context("the HTTP server stopped with an error")
}

/// The whole application: `/mcp` behind the layers, and `/healthz`.
fn router(
    server: MobileServer,
    config: &HttpConfig,
    boundary: Option<Boundary>,
    local: SocketAddr,
    loopback: bool,
) -> Router {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(config.session_idle);
    let rmcp_config = StreamableHttpServerConfig::default()
        // Host and Origin are checked by `Guard`, the one place for that policy.
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(config.max_body_bytes)
        .with_legacy_session_mode(true);
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(sessions), rmcp_config);

    let mut mcp = Router::new().nest_service("/mcp", service);
    if let Some(boundary) = boundary {
        mcp = mcp.layer(middleware::from_fn_with_state(boundary, filter_layer));
    }
    let guard = Arc::new(Guard::new(config, local, loopback));
    let mcp = mcp.layer(middleware::from_fn_with_state(guard, guard_layer));
    mcp.route("/healthz", get(healthz))
}

async fn healthz() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        to_body_bytes(value),
    )
        .into_response()
}

// ---------------------------------------------------------------------------------
// Address parsing

/// `PORT`, `HOST:PORT` or `[IPV6]:PORT`; `localhost` means 127.0.0.1.
async fn resolve_listen(listen: &str) -> anyhow::Result<Vec<SocketAddr>> {
    let listen = listen.trim();
    let bad = || {
        anyhow::anyhow!(
            "--listen {listen}: expected PORT, HOST:PORT or [IPV6]:PORT (e.g. 8080, 127.0.0.1:8080, [::1]:8080)"
        )
    };
    if let Ok(port) = listen.parse::<u16>() {
        return Ok(vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)]);
    }
    if let Ok(addr) = listen.parse::<SocketAddr>() {
        return Ok(vec![addr]);
    }
    let (host, port) = listen.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(bad());
    }
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)]);
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .with_context(|| format!("--listen {listen}: cannot resolve {host}"))?
        .collect();
    anyhow::ensure!(
        !addrs.is_empty(),
        "--listen {listen}: {host} has no address"
    );
    Ok(addrs)
}

// ---------------------------------------------------------------------------------
// Layers 1–3: Host/Origin, bearer token, body size

/// One accepted `Host` value: a host and, if given, the only port accepted with it.
#[derive(Debug, Clone, PartialEq)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

/// One accepted `Origin`: scheme, host and port (`None` = any port).
#[derive(Debug, Clone, PartialEq)]
enum OriginRule {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The request checks of layers 1–3; built once from the config.
struct Guard {
    hosts: Vec<HostRule>,
    origins: Vec<OriginRule>,
    token_digest: Option<[u8; 32]>,
    max_body_bytes: usize,
}

impl Guard {
    fn new(config: &HttpConfig, local: SocketAddr, loopback: bool) -> Guard {
        let mut hosts: Vec<HostRule> = LOOPBACK_NAMES
            .iter()
            .map(|h| HostRule {
                host: (*h).to_string(),
                port: None,
            })
            .collect();
        if !local.ip().is_unspecified() && !local.ip().is_loopback() {
            hosts.push(HostRule {
                host: normalize_host(&local.ip().to_string()),
                port: Some(local.port()),
            });
        }
        for h in &config.allowed_hosts {
            match parse_host_rule(h) {
                Some(rule) => hosts.push(rule),
                None => {
                    tracing::warn!(host = %h, "--allowed-host: not a host or host:port; ignored")
                }
            }
        }
        let mut origins = Vec::new();
        if loopback {
            for scheme in ["http", "https"] {
                for host in LOOPBACK_NAMES {
                    origins.push(OriginRule::Tuple {
                        scheme: scheme.to_string(),
                        host: host.to_string(),
                        port: None,
                    });
                }
            }
        }
        for o in &config.allowed_origins {
            match parse_origin_rule(o) {
                Some(rule) => origins.push(rule),
                None => {
                    tracing::warn!(origin = %o, "--allowed-origin: not scheme://host[:port]; ignored")
                }
            }
        }
        Guard {
            hosts,
            origins,
            token_digest: config.auth_token.as_deref().map(digest),
            max_body_bytes: config.max_body_bytes,
        }
    }

    fn host_allowed(&self, headers: &HeaderMap, uri: &http::Uri) -> bool {
        let authority = match headers.get(header::HOST) {
            Some(v) => v
                .to_str()
                .ok()
                .and_then(|s| s.parse::<http::uri::Authority>().ok()),
            None => uri.authority().cloned(),
        };
        let Some(authority) = authority else {
            return false;
        };
        let host = normalize_host(authority.host());
        let port = authority.port_u16();
        self.hosts
            .iter()
            .any(|r| r.host == host && r.port.is_none_or(|p| Some(p) == port))
    }

    fn origin_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::ORIGIN) else {
            // Not a browser (or a same-origin GET): nothing to check.
            return true;
        };
        let Some(origin) = value.to_str().ok().and_then(parse_origin) else {
            return false;
        };
        self.origins.iter().any(|rule| match (rule, &origin) {
            (OriginRule::Null, OriginRule::Null) => true,
            (
                OriginRule::Tuple { scheme, host, port },
                OriginRule::Tuple {
                    scheme: s,
                    host: h,
                    port: p,
                },
            ) => scheme == s && host == h && port.is_none_or(|port| Some(port) == *p),
            _ => false,
        })
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.token_digest else {
            return true;
        };
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            });
        // Always hash and compare, so a missing header takes the same path as a wrong one.
        let got = digest(presented.unwrap_or(""));
        presented.is_some() & bool::from(got.ct_eq(expected))
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

fn parse_host_rule(value: &str) -> Option<HostRule> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let authority: http::uri::Authority = value.parse().ok()?;
    Some(HostRule {
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

/// An `Origin` header value, with the scheme's default port filled in.
fn parse_origin(value: &str) -> Option<OriginRule> {
    let value = value.trim();
    if value == "null" {
        return Some(OriginRule::Null);
    }
    let uri: http::Uri = value.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let port = authority.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(OriginRule::Tuple {
        host: normalize_host(authority.host()),
        scheme,
        port,
    })
}

/// An `--allowed-origin`: `scheme://host[:port]`; `:*` accepts any port, and a missing
/// port means the scheme's default port (as a browser would send it).
fn parse_origin_rule(value: &str) -> Option<OriginRule> {
    let value = value.trim().trim_end_matches('/');
    if let Some(base) = value.strip_suffix(":*") {
        return match parse_origin(base)? {
            OriginRule::Tuple { scheme, host, .. } => Some(OriginRule::Tuple {
                scheme,
                host,
                port: None,
            }),
            OriginRule::Null => None,
        };
    }
    parse_origin(value)
}

/// A refusal of the HTTP layers, as a JSON-RPC error with `id: null`.
fn refusal(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": HTTP_LAYER_ERROR, "message": message}
    });
    json_response(status, &body)
}

/// Layers 1–3. Reads a POST body once, with the size limit, and hands it on buffered.
async fn guard_layer(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if !guard.host_allowed(request.headers(), request.uri()) {
        tracing::warn!(host = ?request.headers().get(header::HOST), "refused: Host not allowed");
        return refusal(
            StatusCode::FORBIDDEN,
            "Forbidden: this Host is not allowed (DNS-rebinding protection); start the server with --allowed-host NAME to accept it",
        );
    }
    if !guard.origin_allowed(request.headers()) {
        tracing::warn!(origin = ?request.headers().get(header::ORIGIN), "refused: Origin not allowed");
        return refusal(
            StatusCode::FORBIDDEN,
            "Forbidden: this Origin is not allowed; start the server with --allowed-origin SCHEME://HOST[:PORT] to accept it",
        );
    }
    if !guard.authorized(request.headers()) {
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"mobile-mcp\""),
        );
        return response;
    }
    let too_large = || {
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "Payload Too Large: the request body exceeds {} bytes (--max-body-bytes)",
                guard.max_body_bytes
            ),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > guard.max_body_bytes as u64) {
        return too_large();
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match read_limited(body, guard.max_body_bytes).await {
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

// ---------------------------------------------------------------------------------
// Layer 4: the payload filter

/// Layer 4: decodes the POSTed message, encodes whatever comes back.
async fn filter_layer(State(boundary): State<Boundary>, request: Request, next: Next) -> Response {
    let request = if request.method() == Method::POST {
        let (mut parts, body) = request.into_parts();
        // The guard layer has already read the body within the limit.
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

fn to_body_bytes(message: &Value) -> Bytes {
    // Serializing a `Value` cannot fail (its keys are strings).
    Bytes::from(serde_json::to_vec(message).unwrap_or_default())
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

/// Encodes a response body from rmcp: JSON whole, SSE event by event, anything else
/// (rmcp's plain-text errors) as it is.
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
        _ => response,
    }
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

    fn guard(hosts: &[&str], origins: &[&str], token: Option<&str>, local: &str) -> Guard {
        let local: SocketAddr = local.parse().unwrap();
        Guard::new(
            &HttpConfig {
                listen: local.to_string(),
                auth_token: token.map(str::to_string),
                allowed_hosts: hosts.iter().map(|s| s.to_string()).collect(),
                allowed_origins: origins.iter().map(|s| s.to_string()).collect(),
                max_body_bytes: 10,
                session_idle: Duration::from_secs(1),
            },
            local,
            local.ip().is_loopback(),
        )
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_are_loopback_names_bound_ip_and_allowed_ones() {
        let g = guard(
            &["phone-lab.example:9000", "Box.Local"],
            &[],
            None,
            "10.1.2.3:8080",
        );
        let uri = http::Uri::from_static("/mcp");
        for ok in [
            "localhost:1",
            "127.0.0.1",
            "[::1]:80",
            "10.1.2.3:8080",
            "phone-lab.example:9000",
            "box.local:1",
        ] {
            assert!(g.host_allowed(&headers(&[("host", ok)]), &uri), "{ok}");
        }
        for bad in [
            "evil.example",
            "10.1.2.3:9",
            "phone-lab.example:9001",
            "127.0.0.1.evil.example",
        ] {
            assert!(!g.host_allowed(&headers(&[("host", bad)]), &uri), "{bad}");
        }
        assert!(!g.host_allowed(&HeaderMap::new(), &uri));
    }

    #[test]
    fn origins_are_checked_and_loopback_ones_accepted_on_loopback() {
        let g = guard(
            &[],
            &["https://app.example", "http://tool.example:*"],
            None,
            "127.0.0.1:1",
        );
        assert!(g.origin_allowed(&HeaderMap::new()));
        for ok in [
            "http://localhost:6274",
            "https://127.0.0.1",
            "http://[::1]:3000",
            "https://app.example:443",
            "http://tool.example:81",
        ] {
            assert!(g.origin_allowed(&headers(&[("origin", ok)])), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "https://app.example:8443",
            "null",
            "garbage",
        ] {
            assert!(!g.origin_allowed(&headers(&[("origin", bad)])), "{bad}");
        }
        let public = guard(&[], &[], Some("t"), "0.0.0.0:1");
        assert!(!public.origin_allowed(&headers(&[("origin", "http://localhost:1")])));
    }

    #[test]
    fn bearer_token_must_match_exactly() {
        let g = guard(&[], &[], Some("s3cret"), "127.0.0.1:1");
        assert!(g.authorized(&headers(&[("authorization", "Bearer s3cret")])));
        assert!(g.authorized(&headers(&[("authorization", "bearer s3cret")])));
        for bad in [
            "Bearer s3cre",
            "Bearer s3cret2",
            "Basic s3cret",
            "s3cret",
            "Bearer ",
        ] {
            assert!(!g.authorized(&headers(&[("authorization", bad)])), "{bad}");
        }
        assert!(!g.authorized(&HeaderMap::new()));
        assert!(guard(&[], &[], None, "127.0.0.1:1").authorized(&HeaderMap::new()));
    }

    #[tokio::test]
    async fn listen_addresses() {
        let one = |s: &'static str| async move { resolve_listen(s).await.map(|v| v[0]) };
        assert_eq!(
            one("8080").await.unwrap(),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            one("localhost:8080").await.unwrap(),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            one("[::1]:8080").await.unwrap(),
            "[::1]:8080".parse().unwrap()
        );
        assert_eq!(
            one("0.0.0.0:1").await.unwrap(),
            "0.0.0.0:1".parse().unwrap()
        );
        assert!(one("nope").await.is_err());
        assert!(one("host:99999").await.is_err());
    }
}
