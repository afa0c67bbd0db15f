//! The floor: a bare `adb_client` round trip through the adb server, and the loopback proxy
//! that counts how many adb server connections each of our tools opens.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::stats::{Stats, stats};

/// A loopback TCP proxy in front of the adb server that counts the connections made through
/// it: one per adb request (a host query, or `host:transport` + a service such as `shell:`).
pub(crate) struct CountingProxy {
    pub(crate) addr: std::net::SocketAddrV4,
    pub(crate) count: Arc<std::sync::atomic::AtomicUsize>,
    pub(crate) task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    pub(crate) async fn start(target: std::net::SocketAddrV4) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let std::net::SocketAddr::V4(addr) = listener.local_addr()? else {
            anyhow::bail!("loopback listener is not IPv4");
        };
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                seen.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Ok(CountingProxy { addr, count, task })
    }

    pub(crate) fn connections(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A tool's floor in adb round trips: each phone command is one (the floor's `shell:true`
/// is one phone command), and each adb server connection that reaches no phone is half of
/// one (a query the server answers from its own table, such as `host:devices-l`, or
/// `adb_client`'s features query before each of its shells). Each connection carries at
/// most one phone service, so the connections beyond the phone's commands are those
/// queries. Without a connection count, the phone's commands alone.
pub(crate) fn floor_round_trips(phone_commands: usize, connections: Option<usize>) -> f64 {
    let host_queries = connections.map_or(0, |n| n.saturating_sub(phone_commands));
    phone_commands as f64 + host_queries as f64 / 2.0
}

/// Median wall time of a bare `adb_client` `shell:true` round trip through the adb server.
pub(crate) fn adb_floor(
    addr: std::net::SocketAddrV4,
    serial: &str,
    n: usize,
    warmup: usize,
) -> Result<Stats> {
    use adb_client::ADBDeviceExt;
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + warmup {
        let mut out = Vec::new();
        let t0 = Instant::now();
        let mut d = adb_client::server_device::ADBServerDevice::new(serial.to_string(), Some(addr));
        d.shell_command(&"true", Some(&mut out), None)
            .map_err(|e| anyhow::anyhow!("adb_client shell true: {e}"))?;
        if i >= warmup {
            samples.push(t0.elapsed());
        }
    }
    stats(&samples).context("no samples")
}

#[cfg(test)]
mod tests {
    use super::floor_round_trips;

    #[test]
    fn round_trips_are_phone_commands_and_half_a_trip_per_host_query() {
        assert_eq!(floor_round_trips(1, Some(1)), 1.0); // one shell, one connection
        assert_eq!(floor_round_trips(1, Some(2)), 1.5); // adb_client's features query first
        assert_eq!(floor_round_trips(0, Some(1)), 0.5); // host:devices-l
        assert_eq!(floor_round_trips(2, Some(2)), 2.0);
        assert_eq!(floor_round_trips(2, None), 2.0);
    }
}
