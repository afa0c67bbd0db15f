//! The accept loop cannot be starved: silent connections give way to an authorized
//! client, and a connection that sends no headers is closed after the header timeout.
//! Kept small: 200 silent loopback connections against `--max-connections 64` show the
//! same displacement as a thousand against the default cap would, in a fraction of the
//! sockets.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use super::*;

const TOKEN: &str = "starvation-test-token";

#[tokio::test]
async fn authorized_client_is_served_while_silent_connections_are_open() {
    bounded(async {
        // A header timeout far longer than the test: the client must be served because
        // silent connections give way, not because they time out.
        let server = Server::start(
            &["--max-connections", "64", "--header-timeout", "600"],
            &[("MOBILE_MCP_AUTH", TOKEN)],
        );
        let addr = format!("127.0.0.1:{}", server.port());
        let silent: Vec<TcpStream> = (0..200)
            .map(|_| TcpStream::connect(&addr).expect("connect"))
            .collect();
        // An unauthenticated request holds no slot either.
        let r = send(post(&server.mcp(), &initialize(1))).await;
        assert_eq!(r.status, 401);
        let started = Instant::now();
        let (session, _) = Session::open(&server.mcp(), Some(TOKEN)).await;
        let list = session
            .send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
            .await;
        assert_eq!(list.status, 200, "{list:?}");
        assert!(tool_names(&list).len() >= 20);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "served after {:?}",
            started.elapsed()
        );
        // The server holds no more than the cap: most silent connections were closed.
        let closed = silent.into_iter().filter(closed_now).count();
        assert!(
            closed >= 200 - 64,
            "only {closed} of 200 silent connections closed"
        );
    })
    .await;
}

/// Whether the peer has closed `s` (a read returns end of stream or a reset).
fn closed_now(s: &TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    match (&*s).read(&mut [0u8; 1]) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

#[tokio::test]
async fn connection_without_headers_is_closed_after_the_header_timeout() {
    bounded(async {
        let server = Server::start(&["--header-timeout", "2"], &[]);
        let addr = format!("127.0.0.1:{}", server.port());
        let started = Instant::now();
        let silent = TcpStream::connect(&addr).expect("connect");
        // Half a request head, never finished.
        (&silent)
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
            .unwrap();
        silent
            .set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        let mut buf = Vec::new();
        let r = (&silent).read_to_end(&mut buf);
        let waited = started.elapsed();
        assert!(r.is_ok() || closed_now(&silent), "{r:?}");
        assert!(
            waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
            "closed after {waited:?}"
        );
        // The server still serves.
        let (_, init) = Session::open(&server.mcp(), None).await;
        assert_eq!(init.status, 200);
    })
    .await;
}
