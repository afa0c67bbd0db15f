//! One shell command through an adb server, in one connection: `host:transport:SERIAL`,
//! then `shell:CMD`, then the output until the server closes the stream.
//!
//! Why not `adb_client`'s `ADBServerDevice::shell_command`: before every command it asks
//! the server for the device's features, on a connection of its own
//! (`host:transport:SERIAL` + `host:features`), to choose between the shell protocols v1
//! and v2, and only then opens the shell's connection: a second connection and round trip
//! per command (docs/performance.md has the measurements). The adb server answers it from
//! its own table, so the query is pure overhead on every phone command, and on a phone
//! command the round trip is most of a tool's latency.
//!
//! v1 is enough for what this crate asks of a shell: stdout and stderr arrive as one
//! stream (this crate never asked for stderr apart) and the exit status is never read
//! (errors are recognised in the output, by [`super::output`]). A `shell:` service with
//! a command runs without a terminal since Android 7, as v2's `raw` does; devices before
//! that have no `shell_v2`, so `adb_client` used v1 on them as well. Everything else
//! (file transfer, installs) stays with `adb_client`.
//!
//! A call takes at most `limit` bytes of output ([`super::cap`]): past it, the call hangs up
//! as below and says the output was [`Fit::Cut`].
//!
//! A call can be hung up from another thread ([`Hangup`]): its connection is closed, the
//! server closes the device's stream, and adbd ends the command. The caller uses that when
//! it stops waiting (a passed deadline, a cancelled tool call), so a command that hangs on
//! the phone does not keep running there, nor keep a blocking thread here.
//!
//! The requests are framed by [`super::host::exchange`]. A `FAIL` becomes
//! `RustADBError::ADBRequestFailed` with the server's message, as `adb_client` reports it,
//! so [`crate::device::adb_error`] reads both alike.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddrV4, TcpStream};
use std::sync::{Mutex, MutexGuard};

use adb_client::RustADBError;

use super::cap::Fit;
use super::host::{Reply, exchange, fits};
use super::transport::AdbResult;

/// Ends one shell call from another thread (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Hangup(Mutex<Line>);

#[derive(Debug, Default)]
enum Line {
    /// Not connected yet, or finished.
    #[default]
    Idle,
    /// A second handle on the call's connection.
    Open(TcpStream),
    /// Hung up: the call ends, or does not start.
    Ended,
}

impl Hangup {
    fn line(&self) -> MutexGuard<'_, Line> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Closes the call's connection, or makes a call not yet connected end at once.
    /// Harmless after the call finished.
    pub(crate) fn hang_up(&self) {
        if let Line::Open(conn) = std::mem::replace(&mut *self.line(), Line::Ended) {
            let _ = conn.shutdown(Shutdown::Both);
        }
    }

    fn is_hung_up(&self) -> bool {
        matches!(*self.line(), Line::Ended)
    }

    /// Registers the call's connection; an error when the call was hung up already.
    fn attach(&self, conn: &TcpStream) -> AdbResult<()> {
        let mut line = self.line();
        if matches!(*line, Line::Ended) {
            return Err(hung_up());
        }
        *line = Line::Open(conn.try_clone()?);
        Ok(())
    }

    fn detach(&self) {
        let mut line = self.line();
        if matches!(*line, Line::Open(_)) {
            *line = Line::Idle;
        }
    }
}

fn hung_up() -> RustADBError {
    RustADBError::IOError(io::Error::new(
        io::ErrorKind::Interrupted,
        "the shell command was stopped (its caller stopped waiting)",
    ))
}

/// Runs `cmd` (already quoted shell text) on `serial` through the server at `server`,
/// writing its output to `out` as it arrives, until the command ends, `hangup` is used, or
/// `limit` bytes were written (then the connection is closed, which ends the command).
pub(crate) fn shell(
    server: SocketAddrV4,
    serial: &str,
    cmd: &str,
    out: &mut dyn Write,
    limit: usize,
    hangup: &Hangup,
) -> AdbResult<Fit> {
    let service = format!("shell:{cmd}");
    fits(&service)?;
    if hangup.is_hung_up() {
        return Err(hung_up());
    }
    let mut conn = TcpStream::connect(server)?;
    conn.set_nodelay(true)?;
    hangup.attach(&conn)?;
    let done = converse(&mut conn, serial, &service, out, limit);
    hangup.detach();
    // Closing the connection (here, before returning) is what stops a cut command.
    drop(conn);
    if hangup.is_hung_up() {
        // What arrived before is not the whole output.
        return Err(hung_up());
    }
    done
}

fn converse(
    conn: &mut TcpStream,
    serial: &str,
    service: &str,
    out: &mut dyn Write,
    limit: usize,
) -> AdbResult<Fit> {
    request(conn, &format!("host:transport:{serial}"))?;
    request(conn, service)?;
    let mut buf = [0u8; 64 * 1024];
    let mut left = limit;
    loop {
        match conn.read(&mut buf) {
            Ok(0) => return Ok(Fit::Whole),
            Ok(n) if n > left => {
                out.write_all(&buf[..left])?;
                return Ok(Fit::Cut);
            }
            Ok(n) => {
                out.write_all(&buf[..n])?;
                left -= n;
            }
            Err(e) => match e.kind() {
                io::ErrorKind::Interrupted => {}
                // A device that goes away mid-stream ends the output, as in adb_client's v1.
                io::ErrorKind::UnexpectedEof | io::ErrorKind::BrokenPipe => {
                    return Ok(Fit::Whole);
                }
                _ => return Err(e.into()),
            },
        }
    }
}

/// Sends one request and reads the server's `OKAY`; anything else is the error.
fn request(conn: &mut TcpStream, req: &str) -> AdbResult<()> {
    match exchange(conn, req)? {
        Reply::Okay => Ok(()),
        Reply::Fail(msg) => Err(RustADBError::ADBRequestFailed(msg)),
        Reply::Other(got) => Err(RustADBError::IOError(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the adb server sent {:?} where OKAY or FAIL belongs",
                String::from_utf8_lossy(&got)
            ),
        ))),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::net::{Ipv4Addr, TcpListener};
    use std::thread::JoinHandle;

    /// A one-connection adb server: answers each expected request with its reply, then
    /// writes `tail` and closes. Returns the requests it read, in order, and how many more
    /// connections arrived while it waited briefly for them.
    fn server(
        replies: Vec<&'static [u8]>,
        tail: Vec<u8>,
    ) -> (SocketAddrV4, JoinHandle<(Vec<String>, usize)>) {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = match l.local_addr().unwrap() {
            std::net::SocketAddr::V4(a) => a,
            _ => unreachable!(),
        };
        let h = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let mut seen = Vec::new();
            for reply in replies {
                let mut len = [0u8; 4];
                c.read_exact(&mut len).unwrap();
                let len = usize::from_str_radix(std::str::from_utf8(&len).unwrap(), 16).unwrap();
                let mut req = vec![0u8; len];
                c.read_exact(&mut req).unwrap();
                seen.push(String::from_utf8(req).unwrap());
                c.write_all(reply).unwrap();
            }
            c.write_all(&tail).unwrap();
            drop(c);
            l.set_nonblocking(true).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            let more = std::iter::from_fn(|| l.accept().ok()).count();
            (seen, more)
        });
        (addr, h)
    }

    #[test]
    fn a_command_is_one_connection_two_requests_and_the_whole_output() {
        // More output than one read buffer holds.
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let (addr, h) = server(vec![b"OKAY", b"OKAY"], big.clone());
        let mut out = Vec::new();
        shell(
            addr,
            "emulator-5554",
            "'screencap' '-p'",
            &mut out,
            usize::MAX,
            &Hangup::default(),
        )
        .unwrap();
        let (seen, more) = h.join().unwrap();
        assert_eq!(
            seen,
            ["host:transport:emulator-5554", "shell:'screencap' '-p'"]
        );
        assert_eq!(more, 0, "no features query or second connection");
        assert_eq!(out, big);
    }

    #[test]
    fn a_refusal_carries_the_servers_message() {
        let (addr, h) = server(vec![b"FAIL0018device 'ghost' not found"], Vec::new());
        let mut out = Vec::new();
        let e = shell(addr, "ghost", "true", &mut out, 1024, &Hangup::default()).unwrap_err();
        assert!(
            matches!(&e, RustADBError::ADBRequestFailed(m) if m == "device 'ghost' not found"),
            "{e:?}"
        );
        assert_eq!(h.join().unwrap().0, ["host:transport:ghost"]);
        assert!(out.is_empty());
    }

    #[test]
    fn a_garbled_reply_is_an_error_not_output() {
        let (addr, h) = server(vec![b"OKAY", b"HUH?"], b"ignored".to_vec());
        let mut out = Vec::new();
        let e = shell(addr, "s", "true", &mut out, 1024, &Hangup::default()).unwrap_err();
        assert!(e.to_string().contains("HUH?"), "{e}");
        assert!(out.is_empty());
        h.join().unwrap();
    }

    /// Accepts one connection and answers `OKAY` to its two requests (the transport
    /// switch and the shell), as an adb server does before the command's output.
    fn accept_shell(l: &TcpListener) -> std::net::TcpStream {
        let (mut c, _) = l.accept().unwrap();
        for _ in 0..2 {
            let mut len = [0u8; 4];
            c.read_exact(&mut len).unwrap();
            let len = usize::from_str_radix(std::str::from_utf8(&len).unwrap(), 16).unwrap();
            c.read_exact(&mut vec![0u8; len]).unwrap();
            c.write_all(b"OKAY").unwrap();
        }
        c
    }

    /// A server that accepts the shell and then sends `line` again and again, as a
    /// `logcat` without `-d` or a broken server does, until the client hangs up or
    /// `give_up` bytes were sent (so a test without a cap still ends). Reports the bytes
    /// it sent.
    pub(crate) fn endless_server(
        line: &'static [u8],
        give_up: usize,
    ) -> (SocketAddrV4, JoinHandle<usize>) {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let std::net::SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let h = std::thread::spawn(move || {
            let mut c = accept_shell(&l);
            let chunk = line.repeat((64 * 1024 / line.len()).max(1));
            let mut sent = 0;
            while sent < give_up && c.write_all(&chunk).is_ok() {
                sent += chunk.len();
            }
            sent
        });
        (addr, h)
    }

    #[test]
    fn endless_output_is_cut_at_the_limit_and_the_command_stopped() {
        const LIMIT: usize = 1 << 20;
        const GIVE_UP: usize = 512 << 20;
        let (addr, server) = endless_server(b"I/tag: again and again\n", GIVE_UP);
        let mut out = Vec::new();
        let fit = shell(addr, "s", "'logcat'", &mut out, LIMIT, &Hangup::default()).unwrap();
        assert_eq!(fit, Fit::Cut);
        assert_eq!(out.len(), LIMIT, "exactly what fits is kept");
        let sent = server.join().unwrap();
        // The server's writes failed once the call hung up: it sent the limit and what the
        // sockets' buffers held, far from its own stop.
        assert!(sent < 64 << 20, "the server sent {sent} bytes");
    }

    #[test]
    fn output_that_ends_below_the_limit_is_whole() {
        let (addr, h) = server(vec![b"OKAY", b"OKAY"], vec![b'x'; 1000]);
        let mut out = Vec::new();
        let fit = shell(addr, "s", "true", &mut out, 1000, &Hangup::default()).unwrap();
        assert_eq!(fit, Fit::Whole);
        assert_eq!(out.len(), 1000);
        h.join().unwrap();
    }

    /// A server that accepts the shell, sends `partial` and then nothing; it reports how
    /// long after its last write it saw the connection close.
    pub(crate) fn silent_server(
        partial: &'static [u8],
    ) -> (SocketAddrV4, JoinHandle<std::time::Duration>) {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let std::net::SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let h = std::thread::spawn(move || {
            let mut c = accept_shell(&l);
            c.write_all(partial).unwrap();
            let t = std::time::Instant::now();
            c.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            // Blocks until the client closes (0) or the 10 s guard passes (an error).
            let _ = c.read(&mut [0u8; 1]);
            t.elapsed()
        });
        (addr, h)
    }

    #[test]
    fn hanging_up_closes_the_connection_and_fails_the_call() {
        let (addr, server) = silent_server(b"half of the out");
        let hangup = std::sync::Arc::new(Hangup::default());
        let h2 = hangup.clone();
        let call = std::thread::spawn(move || {
            let mut out = Vec::new();
            let r = shell(addr, "s", "'sleep' '100'", &mut out, 1024, &h2);
            (r, out)
        });
        std::thread::sleep(std::time::Duration::from_millis(200));
        hangup.hang_up();
        let closed_after = server.join().unwrap();
        assert!(
            closed_after < std::time::Duration::from_secs(5),
            "the server saw the close only after {closed_after:?}"
        );
        let (r, out) = call.join().unwrap();
        let e = r.unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
        // What arrived before is not passed off as the whole output: the call failed.
        assert_eq!(out, b"half of the out");
    }

    #[test]
    fn a_call_hung_up_before_it_connects_does_not_start() {
        let hangup = Hangup::default();
        hangup.hang_up();
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let std::net::SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let e = shell(addr, "s", "true", &mut Vec::new(), 1024, &hangup).unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
        l.set_nonblocking(true).unwrap();
        assert!(l.accept().is_err(), "no connection is opened");
    }

    #[test]
    fn hanging_up_after_the_end_changes_nothing() {
        let (addr, h) = server(vec![b"OKAY", b"OKAY"], b"done\n".to_vec());
        let hangup = Hangup::default();
        let mut out = Vec::new();
        shell(addr, "s", "true", &mut out, 1024, &hangup).unwrap();
        hangup.hang_up();
        h.join().unwrap();
        assert_eq!(out, b"done\n");
    }

    #[test]
    fn a_command_too_long_to_frame_is_refused_before_connecting() {
        // Nothing listens here: the length check must come first.
        let addr = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 9);
        let e = shell(
            addr,
            "s",
            &"a".repeat(70_000),
            &mut Vec::new(),
            1024,
            &Hangup::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("more than an adb request can carry"),
            "{e}"
        );
    }
}
