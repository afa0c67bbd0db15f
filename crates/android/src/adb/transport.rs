//! How one device is reached: through an adb server (a fresh server connection per call,
//! no shared state: shells through [`super::shell`], files and installs through
//! `adb_client`'s `ADBServerDevice`) or directly over TCP to an adbd
//! (`adb_client::tcp::ADBTcpDevice`, one connection reused, calls serialized).
//!
//! Everything here blocks; [`run`] moves it onto tokio's blocking pool under a
//! deadline.
//!
//! The direct path has three quirks (see `shared/reference/adb-protocol.md` §4): its reads
//! have no timeout, a peer that closes makes its read loop spin on 0-byte reads, and
//! every session ends by reading for 20 ms in case the device repeats its `CLSE`
//! (`adb_client` 3.2.3, `ADBSession`'s `Drop`), which made every command take over 20 ms.
//! So the direct connection goes through a loopback [`Guard`] relay that knows the adb
//! packet framing: when the device closes, or when a deadline passes, the relay
//! finishes the packet in flight and then sends a header with an invalid command, which
//! makes `adb_client` return an error instead of spinning or waiting forever; and after
//! each `CLSE` of the device it sends such a header too, which ends that 20 ms read at
//! once, while a repeated `CLSE` of the same stream is not passed on.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adb_client::server_device::ADBServerDevice;
use adb_client::tcp::ADBTcpDevice;
use adb_client::{ADBDeviceExt, RustADBError};
use mobile_device::{DeviceError, ProgressFn, Result};

pub(crate) use super::shell::Hangup;

/// A blocking failure, before it is given a device-specific message.
pub(crate) type AdbResult<T> = std::result::Result<T, RustADBError>;

/// Runs blocking adb work on tokio's blocking pool with a deadline. On timeout, `on_timeout`
/// runs (the direct path uses it to unblock the stuck call) and a `Timeout` error says
/// what did not finish.
pub(crate) async fn run<T, F>(
    what: &str,
    deadline: Duration,
    on_timeout: Option<Box<dyn FnOnce() + Send>>,
    f: F,
) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    let task = tokio::task::spawn_blocking(f);
    match tokio::time::timeout(deadline, task).await {
        Ok(Ok(r)) => r,
        Ok(Err(join)) => Err(DeviceError::backend(format!(
            "{what} failed inside the adb client: {join}"
        ))),
        Err(_) => {
            if let Some(cb) = on_timeout {
                cb();
            }
            Err(DeviceError::Timeout {
                what: what.to_string(),
                after: deadline,
            })
        }
    }
}

/// Runs a shell job like [`run`], and stops its command on the device when the caller stops
/// waiting: at the deadline, or when this future is dropped (a cancelled tool call).
/// Through an adb server the job's connection is closed ([`Hangup`]); directly, a passed
/// deadline unblocks the link as in [`run`].
pub(crate) async fn run_shell<T, F>(
    link: &Link,
    what: &str,
    deadline: Duration,
    job: F,
) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Link, &Hangup) -> Result<T> + Send + 'static,
{
    let hangup = Arc::new(Hangup::default());
    let _stop = HangUpOnDrop(hangup.clone());
    let l = link.clone();
    run(what, deadline, link.on_timeout(), move || job(&l, &hangup)).await
}

/// Hangs a call up when its waiter goes away; after a finished call, does nothing.
struct HangUpOnDrop(Arc<Hangup>);

impl Drop for HangUpOnDrop {
    fn drop(&mut self) {
        self.0.hang_up();
    }
}

/// One device's connection.
#[derive(Clone)]
pub(crate) enum Link {
    Server { addr: SocketAddrV4, serial: String },
    Direct(Arc<DirectLink>),
}

impl Link {
    /// Runs a shell command and returns its output (stdout and stderr together).
    pub(crate) fn shell(&self, cmd: &str, hangup: &Hangup) -> AdbResult<Vec<u8>> {
        let mut out = Vec::new();
        self.shell_to(cmd, &mut out, hangup)?;
        Ok(out)
    }

    /// Runs one shell command, writing its output to `out` as it arrives. Through a server,
    /// `hangup` ends it early; directly, [`Link::on_timeout`] does.
    pub(crate) fn shell_to(
        &self,
        cmd: &str,
        out: &mut dyn std::io::Write,
        hangup: &Hangup,
    ) -> AdbResult<()> {
        match self {
            Link::Server { addr, serial } => super::shell::shell(*addr, serial, cmd, out, hangup)?,
            Link::Direct(link) => {
                link.with(|d| d.shell_command(&cmd, Some(&mut *out), None).map(|_| ()))?;
            }
        }
        Ok(())
    }

    /// Pushes a local file; returns the bytes sent.
    pub(crate) fn push(&self, local: &Path, remote: &str) -> AdbResult<u64> {
        let file = File::open(local)?;
        let mut counted = Counting { inner: file, n: 0 };
        match self {
            Link::Server { addr, serial } => {
                let mut d = ADBServerDevice::new(serial.clone(), Some(*addr));
                ADBDeviceExt::push(&mut d, &mut counted, &remote)?;
            }
            Link::Direct(link) => link.with(|d| d.push(&mut counted, &remote))?,
        }
        Ok(counted.n)
    }

    /// Pulls a device file into `local`; returns the bytes received.
    pub(crate) fn pull(&self, remote: &str, local: &Path) -> AdbResult<u64> {
        let file = File::create(local)?;
        let mut counted = Counting { inner: file, n: 0 };
        let r = match self {
            Link::Server { addr, serial } => {
                let mut d = ADBServerDevice::new(serial.clone(), Some(*addr));
                ADBDeviceExt::pull(&mut d, &remote, &mut counted)
            }
            Link::Direct(link) => link.with(|d| d.pull(&remote, &mut counted)),
        };
        if let Err(e) = r {
            let _ = std::fs::remove_file(local);
            return Err(e);
        }
        counted.inner.flush()?;
        Ok(counted.n)
    }

    /// Installs an APK with the streamed `exec:cmd package install -S SIZE`.
    ///
    /// Through a server the APK is streamed by this crate over adb_client's `exec`, so
    /// `progress` sees the bytes as they go (at most every MiB, and at the end);
    /// `exec` returns once the input is sent, and the device's reply is read to its end
    /// through a sink whose drop marks the end of the stream. Directly, adb_client's
    /// own `install` streams the file and `progress` sees only the start and the end.
    ///
    /// Setting `cancel` stops the upload at the next read (through a server; the direct
    /// path streams inside adb_client and is only stopped by its deadline).
    pub(crate) fn install(
        &self,
        apk: &Path,
        progress: Option<ProgressFn>,
        cancel: Arc<AtomicBool>,
    ) -> AdbResult<()> {
        let file = File::open(apk)?;
        let total = file.metadata()?.len();
        if let Some(p) = &progress {
            p(0, total);
        }
        match self {
            Link::Server { addr, serial } => {
                let size = total.to_string();
                let cmd = crate::quote::command(&["cmd", "package", "install", "-S", &size])
                    .map_err(|e| RustADBError::ADBRequestFailed(e.to_string()))?;
                let mut reader = Progress {
                    inner: file,
                    sent: 0,
                    reported: 0,
                    cancel,
                    total,
                    cb: progress.clone(),
                };
                let reply = Arc::new(Mutex::new(Vec::new()));
                let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
                let sink = Sink {
                    buf: reply.clone(),
                    _done: done_tx,
                };
                let mut d = ADBServerDevice::new(serial.clone(), Some(*addr));
                d.exec(&cmd, &mut reader, Box::new(sink))?;
                // The sink is dropped when adb_client's reader thread reaches the end.
                let _ = done_rx.recv();
                drop(d);
                let reply = reply.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let reply = String::from_utf8_lossy(&reply).into_owned();
                if super::output::PM_INSTALL.failed(&reply) {
                    return Err(RustADBError::ADBRequestFailed(reply.trim().to_string()));
                }
            }
            Link::Direct(link) => {
                drop(file);
                link.with(|d| d.install(&apk, None))?;
            }
        }
        if let Some(p) = &progress {
            p(total, total);
        }
        Ok(())
    }

    /// What to do when a call on this link passed its deadline.
    pub(crate) fn on_timeout(&self) -> Option<Box<dyn FnOnce() + Send>> {
        match self {
            Link::Server { .. } => None,
            Link::Direct(link) => {
                let link = link.clone();
                Some(Box::new(move || link.abort()))
            }
        }
    }

    /// A second, independent connection to the same device (for a long-running shell
    /// such as screen recording, which must not hold the main connection).
    pub(crate) fn fork(&self) -> Link {
        match self {
            Link::Server { .. } => self.clone(),
            Link::Direct(link) => Link::Direct(Arc::new(DirectLink::new(link.addr))),
        }
    }
}

/// Counts what is read and reports it, at most every MiB.
struct Progress {
    inner: File,
    sent: u64,
    reported: u64,
    /// Set when the caller gave up (a cancelled or timed-out tool call).
    cancel: Arc<AtomicBool>,
    total: u64,
    cb: Option<ProgressFn>,
}

impl Read for Progress {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "the install was cancelled",
            ));
        }
        let n = self.inner.read(buf)?;
        self.sent += n as u64;
        if let Some(cb) = &self.cb
            && self.sent - self.reported >= 1 << 20
            && self.sent < self.total
        {
            self.reported = self.sent;
            cb(self.sent, self.total);
        }
        Ok(n)
    }
}

/// Collects a stream's output; dropping it (at the end of the stream) ends the wait.
struct Sink {
    buf: Arc<Mutex<Vec<u8>>>,
    _done: std::sync::mpsc::Sender<()>,
}

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Counting<T> {
    inner: T,
    n: u64,
}

impl<T: Read> Read for Counting<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        Ok(n)
    }
}

impl<T: Write> Write for Counting<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A direct adbd connection, opened on first use and reopened after any failure.
pub(crate) struct DirectLink {
    addr: SocketAddrV4,
    device: Mutex<Option<ADBTcpDevice>>,
    guard: Mutex<Option<Arc<Guard>>>,
}

impl DirectLink {
    pub(crate) fn new(addr: SocketAddrV4) -> Self {
        DirectLink {
            addr,
            device: Mutex::new(None),
            guard: Mutex::new(None),
        }
    }

    pub(crate) fn addr(&self) -> SocketAddrV4 {
        self.addr
    }

    fn with<T>(&self, f: impl FnOnce(&mut ADBTcpDevice) -> AdbResult<T>) -> AdbResult<T> {
        let mut slot = self.device.lock().unwrap_or_else(|p| p.into_inner());
        let stale = self
            .guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_none_or(|g| g.is_poisoned());
        if slot.is_none() || stale {
            *slot = None;
            let guard = Guard::start(self.addr)?;
            *self.guard.lock().unwrap_or_else(|p| p.into_inner()) = Some(guard.clone());
            *slot = Some(ADBTcpDevice::new(SocketAddr::V4(guard.local))?);
        }
        let Some(device) = slot.as_mut() else {
            return Err(io::Error::new(io::ErrorKind::NotConnected, "not connected").into());
        };
        let r = f(device);
        if r.is_err() {
            // Never reuse a connection whose stream position is unknown.
            *slot = None;
            if let Some(g) = self.guard.lock().unwrap_or_else(|p| p.into_inner()).take() {
                g.poison();
            }
        }
        r
    }

    /// Unblocks whatever call is stuck on this connection.
    pub(crate) fn abort(&self) {
        if let Some(g) = self.guard.lock().unwrap_or_else(|p| p.into_inner()).take() {
            g.poison();
        }
    }
}

/// The loopback relay between `ADBTcpDevice` and the real adbd.
pub(crate) struct Guard {
    local: SocketAddrV4,
    /// The socket `adb_client` reads from, and where the relay is in the adb framing
    /// of what it has forwarded so far.
    to_client: Mutex<Option<(TcpStream, Framing)>>,
    upstream: Mutex<Option<TcpStream>>,
    poisoned: AtomicBool,
}

/// Where the relay is in the adb framing of what the device sent. Headers are held until
/// they are whole (so a repeated `CLSE` can be left out); payload bytes pass at once.
#[derive(Default)]
struct Framing {
    /// Bytes of a header not yet whole, so not yet passed on.
    header: Vec<u8>,
    payload_left: usize,
    /// Ids (device's, client's) of the last stream the device closed.
    last_close: Option<(u32, u32)>,
}

/// An adb packet header whose command is 0, which is no adb command: `adb_client` rejects
/// it with an error (it reads the 24 bytes and nothing more, so the stream stays aligned).
const INVALID_HEADER: [u8; 24] = [0; 24];
/// `CLSE` as the little-endian command word of a header.
const A_CLSE: u32 = u32::from_le_bytes(*b"CLSE");

impl Framing {
    /// Appends to `out` what to pass on to `adb_client` of `data`, the device's next bytes.
    fn relay(&mut self, mut data: &[u8], out: &mut Vec<u8>) {
        while !data.is_empty() {
            if self.payload_left > 0 {
                let n = self.payload_left.min(data.len());
                out.extend_from_slice(&data[..n]);
                self.payload_left -= n;
                data = &data[n..];
                continue;
            }
            let n = (24 - self.header.len()).min(data.len());
            self.header.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.header.len() < 24 {
                continue;
            }
            let word = |i: usize| {
                let h = &self.header;
                u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]])
            };
            let (command, ids) = (word(0), (word(4), word(8)));
            self.payload_left = word(12) as usize;
            if command == A_CLSE && self.payload_left == 0 {
                // adb_client reads on for 20 ms after a session in case the device repeats
                // its CLSE: a repeat is not passed on, and an invalid header after the
                // first ends that read at once.
                if self.last_close != Some(ids) {
                    out.extend_from_slice(&self.header);
                    out.extend_from_slice(&INVALID_HEADER);
                    self.last_close = Some(ids);
                }
            } else {
                out.extend_from_slice(&self.header);
            }
            self.header.clear();
        }
    }

    /// Bytes that complete the packet in flight (a held header was never passed on), then
    /// an invalid header.
    fn poison_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.payload_left];
        out.extend_from_slice(&INVALID_HEADER);
        out
    }
}

/// Asks the kernel to acknowledge what `sock` received, and receives next, without the
/// delayed-ACK wait (`TCP_QUICKACK`, Linux; the kernel clears it again, hence a call
/// around each read).
fn quick_ack(sock: &TcpStream) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        const IPPROTO_TCP: std::ffi::c_int = 6;
        const TCP_QUICKACK: std::ffi::c_int = 12;
        unsafe extern "C" {
            fn setsockopt(
                fd: std::ffi::c_int,
                level: std::ffi::c_int,
                name: std::ffi::c_int,
                value: *const std::ffi::c_void,
                len: u32,
            ) -> std::ffi::c_int;
        }
        let on: std::ffi::c_int = 1;
        // SAFETY: `sock` owns a valid socket descriptor for the whole call, and `value`
        // points to an int that outlives it with its size; setsockopt only reads it.
        unsafe {
            setsockopt(
                sock.as_raw_fd(),
                IPPROTO_TCP,
                TCP_QUICKACK,
                (&on as *const std::ffi::c_int).cast(),
                std::mem::size_of::<std::ffi::c_int>() as u32,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = sock;
}

impl Guard {
    fn start(target: SocketAddrV4) -> io::Result<Arc<Guard>> {
        let upstream = TcpStream::connect_timeout(&SocketAddr::V4(target), Duration::from_secs(5))?;
        let _ = upstream.set_nodelay(true);
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let SocketAddr::V4(local) = listener.local_addr()? else {
            return Err(io::Error::other("loopback is not IPv4"));
        };
        let guard = Arc::new(Guard {
            local,
            to_client: Mutex::new(None),
            upstream: Mutex::new(Some(upstream.try_clone()?)),
            poisoned: AtomicBool::new(false),
        });
        let g = guard.clone();
        std::thread::Builder::new()
            .name("adb-direct-guard".into())
            .spawn(move || g.serve(listener, upstream))?;
        Ok(guard)
    }

    fn serve(self: Arc<Self>, listener: TcpListener, mut upstream: TcpStream) {
        let Ok((client, _)) = listener.accept() else {
            return;
        };
        drop(listener);
        let _ = client.set_nodelay(true);
        let (Ok(mut client_read), Ok(client_write), Ok(mut up_write)) =
            (client.try_clone(), client.try_clone(), upstream.try_clone())
        else {
            return;
        };
        *self.to_client.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((client_write, Framing::default()));
        if self.is_poisoned() {
            self.poison();
        }
        // Client -> device. adb_client writes a packet's header and payload separately
        // without TCP_NODELAY, so the payload waits until the header is acknowledged, and
        // Linux may delay that ACK by up to 40 ms: acknowledging at once avoids the stall.
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                quick_ack(&client_read);
                let n = match client_read.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                quick_ack(&client_read);
                if up_write.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            let _ = up_write.shutdown(Shutdown::Write);
        });
        // Device -> client, through the framing; EOF or an error poisons.
        let mut buf = vec![0u8; 64 * 1024];
        let mut out = Vec::with_capacity(buf.len() + 48);
        loop {
            let n = match upstream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut slot = self.to_client.lock().unwrap_or_else(|p| p.into_inner());
            let Some((sock, framing)) = slot.as_mut() else {
                break;
            };
            out.clear();
            framing.relay(&buf[..n], &mut out);
            if self.is_poisoned() || sock.write_all(&out).is_err() {
                break;
            }
        }
        self.poison();
        drop(client);
    }

    fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    /// Ends this connection so that a blocked `adb_client` call returns an error.
    fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
        if let Some(up) = self
            .upstream
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = up.shutdown(Shutdown::Both);
        }
        let mut slot = self.to_client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((mut sock, framing)) = slot.take() {
            let _ = sock.set_write_timeout(Some(Duration::from_secs(2)));
            // No FIN is sent here: other handles of this socket stay open until
            // adb_client drops its side, so it reads the poison, never an EOF it
            // would spin on.
            let _ = sock.write_all(&framing.poison_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adb::shell::tests::silent_server;

    fn server_link(addr: SocketAddrV4) -> Link {
        Link::Server {
            addr,
            serial: "s".into(),
        }
    }

    fn sleeper(link: &Link, hangup: &Hangup) -> Result<Vec<u8>> {
        link.shell("'sleep' '100'", hangup)
            .map_err(|e| DeviceError::backend(e.to_string()))
    }

    #[tokio::test]
    async fn a_passed_deadline_closes_the_shells_connection() {
        let (addr, server) = silent_server(b"");
        let link = server_link(addr);
        let e = run_shell(&link, "sleeping", Duration::from_millis(200), sleeper)
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::Timeout { .. }), "{e:?}");
        let closed_after = tokio::task::spawn_blocking(move || server.join().unwrap())
            .await
            .unwrap();
        assert!(closed_after < Duration::from_secs(5), "{closed_after:?}");
    }

    #[tokio::test]
    async fn a_caller_that_stops_waiting_closes_the_shells_connection() {
        let (addr, server) = silent_server(b"");
        let link = server_link(addr);
        // A cancelled tool call drops the future well before its 30 s deadline.
        let call = run_shell(&link, "sleeping", Duration::from_secs(30), sleeper);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), call)
                .await
                .is_err()
        );
        let closed_after = tokio::task::spawn_blocking(move || server.join().unwrap())
            .await
            .unwrap();
        assert!(closed_after < Duration::from_secs(5), "{closed_after:?}");
    }

    fn header(command: &[u8; 4], arg0: u32, arg1: u32, len: u32) -> Vec<u8> {
        let mut h = command.to_vec();
        for w in [arg0, arg1, len, 0, 0] {
            h.extend_from_slice(&w.to_le_bytes());
        }
        h
    }

    /// Runs `data` through a framing in pieces of `step` bytes.
    fn relayed(f: &mut Framing, data: &[u8], step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in data.chunks(step) {
            f.relay(piece, &mut out);
        }
        out
    }

    #[test]
    fn framing_completes_packets_then_poisons() {
        let mut f = Framing::default();
        let hdr = header(b"WRTE", 1, 2, 10);
        let out = relayed(&mut f, &[&hdr[..], &[1, 2, 3]].concat(), 5);
        assert_eq!(out, [&hdr[..], &[1, 2, 3]].concat());
        assert_eq!(f.poison_bytes(), [&[0u8; 7][..], &INVALID_HEADER].concat());
        // Half a header was held back, not passed on: only the invalid header follows.
        let mut f = Framing::default();
        assert!(relayed(&mut f, &hdr[..14], 3).is_empty());
        assert_eq!(f.poison_bytes(), INVALID_HEADER.to_vec());
        assert_eq!(Framing::default().poison_bytes(), INVALID_HEADER.to_vec());
    }

    #[test]
    fn a_close_is_followed_by_an_invalid_header_and_a_repeat_is_dropped() {
        let wrte = [&header(b"WRTE", 7, 1, 3)[..], b"ab\n"].concat();
        let clse = header(b"CLSE", 7, 1, 0);
        let okay = header(b"OKAY", 8, 2, 0);
        let stream = [&wrte[..], &clse, &clse, &okay, &header(b"CLSE", 8, 2, 0)].concat();
        let want = [
            &wrte[..],
            &clse,
            &INVALID_HEADER,
            &okay,
            &header(b"CLSE", 8, 2, 0),
            &INVALID_HEADER,
        ]
        .concat();
        for step in [1, 5, 24, 29, stream.len()] {
            let mut f = Framing::default();
            assert_eq!(relayed(&mut f, &stream, step), want, "pieces of {step}");
        }
    }

    #[test]
    fn a_silent_peer_is_unblocked_by_abort() {
        // A listener that accepts and never answers CNXN: adb_client would wait forever.
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let hold = std::thread::spawn(move || {
            let s = l.accept();
            std::thread::sleep(Duration::from_secs(3));
            drop(s);
        });
        let link = Arc::new(DirectLink::new(addr));
        let l2 = link.clone();
        let t = std::time::Instant::now();
        let worker =
            std::thread::spawn(move || Link::Direct(l2).shell("echo hi", &Hangup::default()));
        std::thread::sleep(Duration::from_millis(500));
        link.abort();
        let r = worker.join().unwrap();
        assert!(r.is_err());
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        hold.join().unwrap();
    }

    #[test]
    fn a_closing_peer_gives_an_error_not_a_spin() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 256];
            let _ = s.read(&mut buf);
            drop(s);
        });
        let link = Link::Direct(Arc::new(DirectLink::new(addr)));
        let t = std::time::Instant::now();
        assert!(link.shell("echo hi", &Hangup::default()).is_err());
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}
