//! Remote adb: a loopback listener that forwards each connection to the device's adbd,
//! marking the device active whenever bytes pass (STF's `plugins/connect.js` keeps the
//! group alive on `userActivity`). Dropping the [`Remote`] closes the listener and every
//! connection through it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A running forwarder.
pub(crate) struct Remote {
    /// `HOST:PORT`, what `adb connect` takes.
    pub(crate) url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Remote {
    fn drop(&mut self) {
        // The accept task owns the connections' JoinSet: aborting it ends them all.
        self.task.abort();
    }
}

/// Starts forwarding a new loopback port to `adbd`.
pub(crate) async fn start(
    adbd: SocketAddr,
    active: Arc<Mutex<Instant>>,
) -> std::io::Result<Remote> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = listener.local_addr()?.to_string();
    let task = tokio::spawn(async move {
        let mut conns = tokio::task::JoinSet::new();
        while let Ok((inbound, _)) = listener.accept().await {
            let active = active.clone();
            conns.spawn(async move {
                let Ok(outbound) = TcpStream::connect(adbd).await else {
                    return;
                };
                let (ri, wi) = inbound.into_split();
                let (ro, wo) = outbound.into_split();
                tokio::join!(pump(ri, wo, &active), pump(ro, wi, &active));
            });
            // Reap finished connections so the set does not grow.
            while conns.try_join_next().is_some() {}
        }
    });
    Ok(Remote { url, task })
}

/// Copies one direction until EOF or an error, touching `active` on every chunk.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    active: &Mutex<Instant>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        *active.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
