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
//!    anything parses it (the body is read there, once, with the limit; rmcp's own
//!    limit is set to the same value and never trips).
//! 4. **JSON-RPC envelope**: a POSTed JSON body that is not a readable JSON-RPC message
//!    is answered with **400** and a JSON-RPC error (-32700, -32600 or -32602, with the
//!    message's `id` when it can be recovered), the same checks stdio makes.
//! 5. **Sessions**: an `initialize` past `--max-sessions` is refused with **503**; a
//!    DELETE of a session that is not open is **404**.
//! 6. **Payload filter** (only with `MCP_MODEL_PAYLOAD_FILTER=1`): every POSTed JSON-RPC
//!    body goes through [`Boundary::inbound`] before rmcp sees it, and every body rmcp
//!    sends goes through [`Boundary::outbound`]: `application/json` bodies whole,
//!    `text/event-stream` bodies event by event. Sitting outside rmcp, it sees the
//!    session path, the standalone GET stream and the stateless 2026-07-28 path alike
//!    (rmcp's per-session hook does not see the last one). With the filter off the
//!    layer is not installed, so the bytes are the unfiltered server's.
//! 7. rmcp's service: sessions in a [`LocalSessionManager`] that closes a session idle
//!    for `session_idle`; 2026-07-28 requests are served statelessly.
//!
//! Binding a non-loopback address without a token is refused (see [`serve`]). Below the
//! layers, the accept loop ([`conn`]) bounds connections: a header-read timeout, an idle
//! timeout, and a connection cap that silent or unauthenticated connections cannot fill.
//!
//! Each layer is its own module ([`origin`], [`auth`], [`body_limit`], [`envelope`],
//! [`sessions`]); the payload
//! filter's HTTP half is [`crate::boundary`]'s `http` module, next to its stdio half.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use http::{StatusCode, header};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use crate::MobileServer;
use crate::boundary::Boundary;

mod auth;
mod body_limit;
mod conn;
mod envelope;
mod origin;
mod sessions;

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
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// How long a session may stay idle before it is closed.
    pub session_idle: Duration,
    /// Most sessions open at once; an `initialize` past it is refused (503).
    pub max_sessions: usize,
    /// How long a connection may take to send a request's headers.
    pub header_timeout: Duration,
    /// How long a connection may stay silent before it is closed.
    pub idle_timeout: Duration,
    /// Most connections open at once (see the `conn` module for who gives way).
    pub max_connections: usize,
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
        max_connections = config.max_connections,
        max_sessions = config.max_sessions,
        "listening on http://{local}/mcp"
    );
    let limits = conn::Limits {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
        max_connections: config.max_connections,
    };
    conn::serve(
        listener,
        app,
        limits,
        Arc::new(auth::BearerToken::new(&config)),
    )
    .await;
    Ok(())
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
    let sessions = Arc::new(sessions);
    let rmcp_config = StreamableHttpServerConfig::default()
        // Host and Origin are checked by the `origin` layer, the one place for that policy.
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(config.max_body_bytes)
        .with_legacy_session_mode(true);
    let service = StreamableHttpService::new(
        move || Ok(server.for_session()),
        sessions.clone(),
        rmcp_config,
    );

    let mut mcp = Router::new().nest_service("/mcp", service);
    if let Some(boundary) = boundary {
        mcp = mcp.layer(middleware::from_fn_with_state(
            boundary,
            crate::boundary::http::layer,
        ));
    }
    // Added innermost first: a request meets the origin check, then the token, then
    // the body limit, the envelope check and the session cap.
    let mcp = mcp
        .layer(middleware::from_fn_with_state(
            Arc::new(sessions::SessionCap {
                sessions,
                max_sessions: config.max_sessions,
            }),
            sessions::layer,
        ))
        .layer(middleware::from_fn(envelope::layer))
        .layer(middleware::from_fn_with_state(
            body_limit::BodyLimit(config.max_body_bytes),
            body_limit::layer,
        ))
        .layer(middleware::from_fn_with_state(
            Arc::new(auth::BearerToken::new(config)),
            auth::layer,
        ))
        .layer(middleware::from_fn_with_state(
            Arc::new(origin::HostOriginCheck::new(config, local, loopback)),
            origin::layer,
        ));
    mcp.route("/healthz", get(healthz))
}

async fn healthz() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

pub(crate) fn json_response(status: StatusCode, value: &Value) -> Response {
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

/// A refusal of the HTTP layers, as a JSON-RPC error with `id: null`.
pub(crate) fn refusal(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": HTTP_LAYER_ERROR, "message": message}
    });
    json_response(status, &body)
}

pub(crate) fn to_body_bytes(message: &Value) -> Bytes {
    // Serializing a `Value` cannot fail (its keys are strings).
    Bytes::from(serde_json::to_vec(message).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

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
