//! The idle timeout (`--idle-timeout`) is each connection's own: a connection opened
//! after the server has been up longer than the timeout is served, and a connection
//! that goes quiet is still closed once the timeout has passed since its last bytes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use super::*;

/// One request on a new connection; the response's status line, or what went wrong.
fn one_exchange(addr: &str, request: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes())
        .map_err(|e| format!("write: {e}"))?;
    let mut buf = Vec::new();
    match s.read_to_end(&mut buf) {
        Ok(_) => {}
        Err(e) if !buf.is_empty() => eprintln!("read after {} bytes: {e}", buf.len()),
        Err(e) => return Err(format!("read: {e}")),
    }
    let text = String::from_utf8_lossy(&buf);
    match text.lines().next() {
        Some(status) if !status.is_empty() => Ok(status.to_string()),
        _ => Err("closed with nothing sent".to_string()),
    }
}

#[tokio::test]
async fn connections_opened_after_the_idle_timeout_are_served() {
    bounded(async {
        let server = Server::start(&["--idle-timeout", "1"], &[]);
        let addr = format!("127.0.0.1:{}", server.port());
        // The server is now older than its idle timeout.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let body = initialize(1).to_string();
        let init = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let health = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        let (addr2, init2, health2) = (addr.clone(), init.clone(), health.clone());
        let results = tokio::task::spawn_blocking(move || {
            (0..40)
                .map(|i| one_exchange(&addr2, if i % 2 == 0 { &health2 } else { &init2 }))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        let failed: Vec<_> = results
            .iter()
            .enumerate()
            .filter(|(_, r)| !matches!(r, Ok(s) if s.starts_with("HTTP/1.1 200")))
            .collect();
        assert!(
            failed.is_empty(),
            "{} of {} new connections failed after the idle timeout: {failed:?}",
            failed.len(),
            results.len()
        );
    })
    .await;
}

#[tokio::test]
async fn a_quiet_connection_is_closed_after_the_idle_timeout() {
    bounded(async {
        let server = Server::start(&["--idle-timeout", "2", "--header-timeout", "600"], &[]);
        let addr = format!("127.0.0.1:{}", server.port());
        tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(&addr).unwrap();
            // A kept-alive exchange, then silence.
            s.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
                .unwrap();
            s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
            assert!(
                String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"),
                "{}",
                String::from_utf8_lossy(&got)
            );
            let quiet_since = Instant::now();
            // The rest of the response (if any), then the close.
            loop {
                match s.read(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => continue,
                    Err(e) => panic!("not closed: {e} after {:?}", quiet_since.elapsed()),
                }
            }
            let waited = quiet_since.elapsed();
            assert!(
                waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
                "closed after {waited:?}"
            );
        })
        .await
        .unwrap();
    })
    .await;
}
