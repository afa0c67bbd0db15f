//! The adb server's host protocol, for the two requests discovery needs
//! (`host:devices-l`, `host:version`): `XXXX` hex length + request, then `OKAY` + hex
//! length + body, or `FAIL` + hex length + message.
//!
//! Discovery speaks this directly rather than through `adb_client::server::ADBServer`
//! because that type runs `adb start-server` (without `-P`, so against port 5037) before
//! every request to a loopback server, has no timeouts (a wrong listener on the port
//! hangs it), and fails the whole listing on a device state it does not know (such as
//! `no permissions`). Device commands do use `adb_client`.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpStream};
use std::time::Duration;

/// Why a host request failed.
#[derive(Debug)]
pub enum HostError {
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

fn read_hex_len(s: &mut TcpStream) -> Result<usize, HostError> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)
        .map_err(|e| HostError::Protocol(e.to_string()))?;
    let text = std::str::from_utf8(&len).map_err(|_| HostError::Protocol("bad length".into()))?;
    usize::from_str_radix(text, 16).map_err(|_| HostError::Protocol(format!("bad length {text:?}")))
}

/// Sends one host request and returns the reply body.
pub fn request(addr: SocketAddrV4, req: &str, timeout: Duration) -> Result<String, HostError> {
    let mut s =
        TcpStream::connect_timeout(&SocketAddr::V4(addr), timeout.min(Duration::from_secs(3)))
            .map_err(HostError::Unreachable)?;
    s.set_read_timeout(Some(timeout))
        .map_err(HostError::Unreachable)?;
    s.set_write_timeout(Some(timeout))
        .map_err(HostError::Unreachable)?;
    let _ = s.set_nodelay(true);
    s.write_all(format!("{:04x}{req}", req.len()).as_bytes())
        .map_err(HostError::Unreachable)?;
    let mut status = [0u8; 4];
    s.read_exact(&mut status).map_err(|e| match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            HostError::Protocol("it accepted the connection but did not answer in time".into())
        }
        _ => HostError::Unreachable(e),
    })?;
    let len = match &status {
        b"OKAY" => read_hex_len(&mut s)?,
        b"FAIL" => {
            let n = read_hex_len(&mut s)?;
            let mut msg = vec![0; n];
            s.read_exact(&mut msg)
                .map_err(|e| HostError::Protocol(e.to_string()))?;
            return Err(HostError::Failed(
                String::from_utf8_lossy(&msg).into_owned(),
            ));
        }
        other => {
            return Err(HostError::Protocol(format!(
                "it answered {:?}",
                String::from_utf8_lossy(other)
            )));
        }
    };
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
