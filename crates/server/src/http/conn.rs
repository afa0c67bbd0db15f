//! The accept loop of `--listen`: bounded connections that cannot starve the server.
//!
//! - **Header-read timeout** (`--header-timeout`): a connection must send a complete
//!   request head within this time of opening (and of its previous response ending), or
//!   it is closed (hyper's HTTP/1 `header_read_timeout`).
//! - **Idle timeout** (`--idle-timeout`): a connection with no bytes in either direction
//!   for this long is closed gracefully: at once when no request is in flight, otherwise
//!   once its response ends. Each connection's clock starts when it is accepted, so a
//!   server that has been up for longer than the timeout still serves new connections.
//!   (An open SSE stream is not idle: rmcp sends keep-alive comments on it.)
//! - **Connection cap** (`--max-connections`): past it, a new connection displaces the
//!   oldest connection that has not yet made an authorized request (one that sent nothing,
//!   or only requests refused for the token); when every open connection has been
//!   authorized, the new one is closed at once. Silent or unauthenticated connections
//!   therefore never lock out an authorized client, and the server's file descriptors
//!   stay bounded by the cap.
//! - **Early refusal**: a response refusing the token (401) or the Host/Origin (403) carries
//!   `Connection: close`, so the connection ends after it and its body is never read.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use http::{HeaderValue, StatusCode, header};
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;

use super::auth::BearerToken;

/// The connection limits of `--listen`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) header_timeout: Duration,
    pub(super) idle_timeout: Duration,
    pub(super) max_connections: usize,
}

/// One open connection, as the accept loop sees it.
struct Slot {
    /// Has made at least one request that carried the token (or any request, when no
    /// token is configured).
    trusted: AtomicBool,
    /// Set when the connection is displaced; its task then drops it.
    evict: tokio::sync::Notify,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Table {
    slots: Mutex<VecDeque<Arc<Slot>>>,
}

impl Table {
    /// Admits a new connection, displacing the oldest untrusted one at the cap;
    /// `None` when every slot is held by a trusted connection.
    fn admit(&self, max: usize) -> Option<Arc<Slot>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.len() >= max {
            let victim = slots
                .iter()
                .position(|s| !s.trusted.load(Ordering::Relaxed))?;
            if let Some(slot) = slots.remove(victim) {
                slot.evict.notify_one();
            }
        }
        let slot = Arc::new(Slot {
            trusted: AtomicBool::new(false),
            evict: tokio::sync::Notify::new(),
        });
        slots.push_back(slot.clone());
        Some(slot)
    }

    fn remove(&self, slot: &Arc<Slot>) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = slots.iter().position(|s| Arc::ptr_eq(s, slot)) {
            slots.remove(i);
        }
    }
}

/// Accepts and serves connections on `listener` until the future is dropped.
pub(super) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    token: Arc<BearerToken>,
) {
    let table = Arc::new(Table::default());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was accepted:
                // wait a moment rather than spin, and keep serving.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = table.admit(limits.max_connections) else {
            tracing::warn!(
                max = limits.max_connections,
                "refused a connection: every slot holds an authorized client (--max-connections)"
            );
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let token = token.clone();
        let table = table.clone();
        tokio::spawn(async move {
            serve_one(stream, app, limits, token, &slot).await;
            table.remove(&slot);
        });
    }
}

async fn serve_one(
    stream: TcpStream,
    app: Router,
    limits: Limits,
    token: Arc<BearerToken>,
    slot: &Arc<Slot>,
) {
    // The connection's own clock: accepting it is its first activity.
    let epoch = Instant::now();
    let activity = Arc::new(AtomicU64::new(0));
    let io = Tracked {
        inner: TokioIo::new(stream),
        activity: activity.clone(),
        epoch,
    };
    let trusted_slot = slot.clone();
    let service =
        hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
            let authorized = token.authorized(request.headers());
            if authorized {
                trusted_slot.trusted.store(true, Ordering::Relaxed);
            }
            // A `Router` is always ready; calling it directly spares a `ready` round.
            let mut app = app.clone();
            let response =
                tower_service::Service::call(&mut app, request.map(axum::body::Body::new));
            async move {
                let mut response = response.await?;
                if !authorized
                    || matches!(
                        response.status(),
                        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
                    )
                {
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                Ok::<_, std::convert::Infallible>(response)
            }
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    let mut closing = false;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            () = slot.evict.notified() => {
                tracing::debug!("connection displaced by a newer one (--max-connections)");
                return;
            }
            () = idle(&activity, epoch, limits.idle_timeout), if !closing => {
                tracing::debug!("closing an idle connection (--idle-timeout)");
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}

/// Resolves once `activity` (milliseconds since `epoch`) is `limit` in the past.
async fn idle(activity: &AtomicU64, epoch: Instant, limit: Duration) {
    loop {
        let last = epoch + Duration::from_millis(activity.load(Ordering::Relaxed));
        let due = last + limit;
        if Instant::now() >= due {
            return;
        }
        tokio::time::sleep_until(due.into()).await;
    }
}

/// The connection's socket, recording when bytes last moved.
struct Tracked {
    inner: TokioIo<TcpStream>,
    activity: Arc<AtomicU64>,
    epoch: Instant,
}

impl Tracked {
    fn touch(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.activity.store(ms, Ordering::Relaxed);
    }
}

impl Read for Tracked {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if r.is_ready() {
            self.touch();
        }
        r
    }
}

impl Write for Tracked {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_write(cx, buf);
        if r.is_ready() {
            self.touch();
        }
        r
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
