//! Devices reached over the network: `adb connect HOST:PORT` and `adb disconnect HOST:PORT`
//! asked of an adb server (`host:connect:` / `host:disconnect:`, answered `OKAY` and a
//! sentence: `connected to SERIAL`, `already connected to SERIAL`, `failed to authenticate
//! to SERIAL`, `failed to connect to SERIAL`: adb's `connect_device`, in
//! `transport_local.cpp` of the adb sources). Spoken over the crate's own host protocol
//! (`adb/host.rs`, with timeouts) for the reasons its front door gives. The connected
//! device is then listed by the server under `HOST:PORT`, like any device.
//!
//! Not for: choosing what to connect (a farm, `mobile-mcp`'s `farm` module, does).

use std::net::SocketAddrV4;
use std::time::Duration;

use crate::adb::host;

/// How long the adb server may take to answer a connect (it dials the address).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Asks the adb server at `server` to connect to `target` (`HOST:PORT`); `Err` with the
/// server's sentence or why it could not be asked.
pub async fn connect(server: SocketAddrV4, target: &str) -> Result<(), String> {
    let reply = ask(server, format!("host:connect:{target}")).await?;
    if reply.starts_with("connected to") || reply.starts_with("already connected to") {
        Ok(())
    } else {
        Err(reply.trim().to_string())
    }
}

/// Asks the adb server at `server` to disconnect `target` (`HOST:PORT`).
pub async fn disconnect(server: SocketAddrV4, target: &str) -> Result<(), String> {
    ask(server, format!("host:disconnect:{target}"))
        .await
        .map(drop)
}

async fn ask(server: SocketAddrV4, req: String) -> Result<String, String> {
    tokio::task::spawn_blocking(move || host::request(server, &req, CONNECT_TIMEOUT))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("the adb server at {server}: {e}"))
}
