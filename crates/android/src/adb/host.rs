//! The adb server's host protocol, spoken directly for what this crate does not ask of
//! `adb_client`: discovery's requests (`host:devices-l`, `host:version`) and the framing of
//! the shell requests in [`super::shell`]. A request is `XXXX` hex length + request;
//! the answer `OKAY` (a host query then sends hex length + body), or `FAIL` + hex length +
//! message.
//!
//! Discovery speaks this directly rather than through `adb_client::server::ADBServer`
//! because that type runs `adb start-server` (without `-P`, so against port 5037) before
//! every request to a loopback server, has no timeouts (a wrong listener on the port
//! hangs it), and fails the whole listing on a device state it does not know (such as
//! `no permissions`). Files and installs use `adb_client`.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpStream};
use std::time::Duration;

/// Why a host request failed.
#[derive(Debug)]
pub(crate) enum HostError {
    /// Nothing answered (refused, timed out): no server there.
    Unreachable(io::Error),
    /// The server answered `FAIL` with this message.
    Failed(String),
    /// Something answered but did not speak the adb host protocol.
    Protocol(String),
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Unreachable(e) => write!(f, "no adb server answered ({e})"),
            HostError::Failed(m) => write!(f, "the adb server refused: {m}"),
            HostError::Protocol(m) => write!(f, "the listener is not an adb server ({m})"),
        }
    }
}

/// What the server answered one request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    Okay,
    Fail(String),
    /// Neither: not an adb server, or out of step with it.
    Other([u8; 4]),
}

/// The largest request four hex digits of length can frame.
const MAX_REQUEST: usize = 0xffff;

/// An error when `req` is too long to frame.
pub(crate) fn fits(req: &str) -> io::Result<()> {
    if req.len() > MAX_REQUEST {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the request is {} bytes, more than an adb request can carry ({MAX_REQUEST})",
                req.len()
            ),
        ));
    }
    Ok(())
}

/// Sends one request on `s` and reads the server's `OKAY` or `FAIL`. A `FAIL` whose length
/// or message is cut short or malformed is an `InvalidData` error (a status cut short is
/// the read's own error); a request too long to frame is refused before anything is sent.
pub(crate) fn exchange(s: &mut TcpStream, req: &str) -> io::Result<Reply> {
    fits(req)?;
    s.write_all(format!("{:04x}{req}", req.len()).as_bytes())?;
    let mut status = [0u8; 4];
    s.read_exact(&mut status)?;
    match &status {
        b"OKAY" => Ok(Reply::Okay),
        b"FAIL" => {
            let cut = |e: io::Error| io::Error::new(io::ErrorKind::InvalidData, e);
            let n = read_hex_len(s)?;
            let mut msg = vec![0; n];
            s.read_exact(&mut msg).map_err(cut)?;
            Ok(Reply::Fail(String::from_utf8_lossy(&msg).into_owned()))
        }
        _ => Ok(Reply::Other(status)),
    }
}

/// Reads four hex digits of length.
fn read_hex_len(s: &mut TcpStream) -> io::Result<usize> {
    let bad = |m: String| io::Error::new(io::ErrorKind::InvalidData, m);
    let mut len = [0u8; 4];
    s.read_exact(&mut len).map_err(|e| bad(e.to_string()))?;
    std::str::from_utf8(&len)
        .ok()
        .and_then(|t| usize::from_str_radix(t, 16).ok())
        .ok_or_else(|| bad(format!("bad length {:?}", String::from_utf8_lossy(&len))))
}

/// Sends one host request and returns the reply body.
pub(crate) fn request(
    addr: SocketAddrV4,
    req: &str,
    timeout: Duration,
) -> Result<String, HostError> {
    let mut s =
        TcpStream::connect_timeout(&SocketAddr::V4(addr), timeout.min(Duration::from_secs(3)))
            .map_err(HostError::Unreachable)?;
    s.set_read_timeout(Some(timeout))
        .map_err(HostError::Unreachable)?;
    s.set_write_timeout(Some(timeout))
        .map_err(HostError::Unreachable)?;
    let _ = s.set_nodelay(true);
    let protocol = |e: io::Error| match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            HostError::Protocol("it accepted the connection but did not answer in time".into())
        }
        io::ErrorKind::InvalidData => HostError::Protocol(e.to_string()),
        _ => HostError::Unreachable(e),
    };
    match exchange(&mut s, req).map_err(protocol)? {
        Reply::Okay => {}
        Reply::Fail(m) => return Err(HostError::Failed(m)),
        Reply::Other(status) => {
            return Err(HostError::Protocol(format!(
                "it answered {:?}",
                String::from_utf8_lossy(&status)
            )));
        }
    }
    let len = read_hex_len(&mut s).map_err(protocol)?;
    let mut body = vec![0; len];
    s.read_exact(&mut body)
        .map_err(|e| HostError::Protocol(e.to_string()))?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn serve(reply: &'static [u8]) -> SocketAddrV4 {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 64];
            let _ = s.read(&mut buf);
            let _ = s.write_all(reply);
            std::thread::sleep(Duration::from_millis(200));
        });
        addr
    }

    #[test]
    fn okay_fail_and_strangers() {
        let a = serve(b"OKAY0005hello");
        assert_eq!(
            request(a, "host:devices-l", Duration::from_secs(2)).unwrap(),
            "hello"
        );
        let a = serve(b"FAIL0004nope");
        assert!(
            matches!(request(a, "host:x", Duration::from_secs(2)), Err(HostError::Failed(m)) if m == "nope")
        );
        let a = serve(b"HTTP/1.1 400");
        assert!(matches!(
            request(a, "host:x", Duration::from_secs(2)),
            Err(HostError::Protocol(_))
        ));
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(dead) = l.local_addr().unwrap() else {
            unreachable!()
        };
        drop(l);
        assert!(matches!(
            request(dead, "host:x", Duration::from_secs(2)),
            Err(HostError::Unreachable(_))
        ));
    }

    #[test]
    fn silent_listener_times_out() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(a) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let t = std::time::Instant::now();
        let r = request(a, "host:x", Duration::from_millis(300));
        assert!(matches!(r, Err(HostError::Protocol(_))), "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(3));
        drop(l);
    }
}
