//! How one device is reached: through an adb server, a fresh server connection per call
//! and no shared state. Shells go through [`super::shell`] (one connection, no features
//! query); files and installs through `adb_client`'s `ADBServerDevice`, which connects
//! only to the address it is given (it never starts a server itself).
//!
//! Everything here blocks; [`run`] moves it onto tokio's blocking pool. There is no
//! deadline here: the caller (the server) bounds every call and drops the future when it
//! stops waiting, and then the work stops too: a shell is hung up ([`run_shell`]), a file
//! transfer or an install fails at its next read or write ([`run_transfer`]).

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use adb_client::server_device::ADBServerDevice;
use adb_client::{ADBDeviceExt, RustADBError};
use mobile_device::{DeviceError, ProgressFn, Result};

use super::cap::{self, Cap, Fit, Past};
pub(crate) use super::shell::Hangup;
use crate::quote::ShellLine;

/// A blocking failure, before it is given a device-specific message.
pub(crate) type AdbResult<T> = std::result::Result<T, RustADBError>;

/// Runs blocking adb work on tokio's blocking pool until it ends. A caller that stops
/// waiting drops this future; work that must stop then is run by [`run_shell`] or
/// [`run_transfer`].
pub(crate) async fn run<T, F>(what: &str, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(join) => Err(DeviceError::backend(format!(
            "{what} failed inside the adb client: {join}"
        ))),
    }
}

/// Runs a shell job like [`run`], and stops its command on the device when this future is
/// dropped (the deadline passed, or the client cancelled): the job's connection is closed
/// ([`Hangup`]).
pub(crate) async fn run_shell<T, F>(link: &Link, what: &str, job: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Link, &Hangup) -> Result<T> + Send + 'static,
{
    let hangup = Arc::new(Hangup::default());
    let _stop = HangUpOnDrop(hangup.clone());
    let l = link.clone();
    run(what, move || job(&l, &hangup)).await
}

/// Runs a transfer job (push, pull, install) like [`run`]; the flag it gets is set when this
/// future is dropped, and the transfer's next read or write then fails, so the thread ends
/// and nothing more reaches the device or the local file.
pub(crate) async fn run_transfer<T, F>(what: &str, job: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(Arc<AtomicBool>) -> Result<T> + Send + 'static,
{
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = cancel.0.clone();
    run(what, move || job(flag)).await
}

/// Sets its flag when dropped, so blocking work can see that its caller went away.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The error a cancelled transfer's read or write returns. Not `Interrupted`:
/// `std::io::copy`, which `adb_client` streams with, retries those and would spin forever.
fn cancelled() -> io::Error {
    io::Error::other("the transfer was cancelled")
}

/// Hangs a call up when its waiter goes away; after a finished call, does nothing.
struct HangUpOnDrop(Arc<Hangup>);

impl Drop for HangUpOnDrop {
    fn drop(&mut self) {
        self.0.hang_up();
    }
}

/// One device: the adb server that reaches it and its serial there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The adb server.
    pub(crate) addr: SocketAddrV4,
    /// The device's serial on that server.
    pub(crate) serial: String,
}

impl Link {
    /// Runs a shell command and returns its output (stdout and stderr together), at most
    /// `cap` of it (see [`Link::shell_to`]).
    pub(crate) fn shell(&self, cmd: &ShellLine, cap: Cap, hangup: &Hangup) -> AdbResult<Vec<u8>> {
        let mut out = Vec::new();
        self.shell_to(cmd, &mut out, cap, hangup)?;
        Ok(out)
    }

    /// Runs one shell command, writing its output to `out` as it arrives; `hangup` ends it
    /// early. Past `cap.bytes` the command is stopped, and then `out` ends with
    /// [`cap::note`] ([`Past::Note`]) or the call fails ([`Past::Fail`]).
    pub(crate) fn shell_to(
        &self,
        cmd: &ShellLine,
        out: &mut dyn std::io::Write,
        cap: Cap,
        hangup: &Hangup,
    ) -> AdbResult<()> {
        match super::shell::shell(
            self.addr,
            &self.serial,
            cmd.as_str(),
            out,
            cap.bytes,
            hangup,
        )? {
            Fit::Whole => Ok(()),
            Fit::Cut => {
                tracing::warn!(serial = %self.serial, what = cap.what, limit = cap.bytes, "device output cut");
                match cap.past {
                    Past::Note => Ok(out.write_all(cap::note(cap).as_bytes())?),
                    Past::Fail => Err(RustADBError::IOError(io::Error::new(
                        io::ErrorKind::FileTooLarge,
                        cap::too_long(cap),
                    ))),
                }
            }
        }
    }

    /// Pushes an open local file; returns the bytes sent. Setting `cancel` stops it at the
    /// next read.
    pub(crate) fn push(&self, file: File, remote: &str, cancel: Arc<AtomicBool>) -> AdbResult<u64> {
        let mut counted = Counting {
            inner: file,
            n: 0,
            cancel,
        };
        ADBDeviceExt::push(&mut self.server_device(), &mut counted, &remote)?;
        Ok(counted.n)
    }

    /// Pulls a device file into the open file `out`; returns the bytes received. Setting
    /// `cancel` stops it at the next write (the caller owns, and removes, a partial file).
    pub(crate) fn pull(&self, remote: &str, out: File, cancel: Arc<AtomicBool>) -> AdbResult<u64> {
        let mut counted = Counting {
            inner: out,
            n: 0,
            cancel,
        };
        ADBDeviceExt::pull(&mut self.server_device(), &remote, &mut counted)?;
        counted.inner.flush()?;
        Ok(counted.n)
    }

    /// Installs an APK with the streamed `exec:cmd package install -S SIZE`.
    ///
    /// The APK is streamed by this crate over adb_client's `exec`, so `progress` sees the
    /// bytes as they go (at most every MiB, and at the end); `exec` returns once the input
    /// is sent, and the device's reply is read to its end through a sink whose drop marks
    /// the end of the stream.
    ///
    /// Setting `cancel` stops the upload at the next read.
    pub(crate) fn install(
        &self,
        file: File,
        progress: Option<ProgressFn>,
        cancel: Arc<AtomicBool>,
    ) -> AdbResult<()> {
        let total = file.metadata()?.len();
        if let Some(p) = &progress {
            p(0, total);
        }
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
        let mut d = self.server_device();
        d.exec(cmd.as_str(), &mut reader, Box::new(sink))?;
        // The sink is dropped when adb_client's reader thread reaches the end.
        let _ = done_rx.recv();
        drop(d);
        let reply = reply.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let reply = String::from_utf8_lossy(&reply).into_owned();
        if super::output::PM_INSTALL.failed(&reply) {
            return Err(RustADBError::ADBRequestFailed(reply.trim().to_string()));
        }
        if let Some(p) = &progress {
            p(total, total);
        }
        Ok(())
    }

    /// `adb_client`'s handle on this device, through this link's server only.
    fn server_device(&self) -> ADBServerDevice {
        ADBServerDevice::new(self.serial.clone(), Some(self.addr))
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
            return Err(cancelled());
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
    /// Keeps at most [`Cap::SHELL`] of the reply; past it the write fails, which ends
    /// `adb_client`'s reader (and so the wait) instead of buffering without end.
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let mut buf = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        let room = Cap::SHELL.bytes.saturating_sub(buf.len());
        if b.len() > room {
            buf.extend_from_slice(&b[..room]);
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                cap::too_long(Cap::SHELL),
            ));
        }
        buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Counts the bytes that pass, and fails once `cancel` is set.
struct Counting<T> {
    inner: T,
    n: u64,
    cancel: Arc<AtomicBool>,
}

impl<T: Read> Read for Counting<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(cancelled());
        }
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        Ok(n)
    }
}

impl<T: Write> Write for Counting<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(cancelled());
        }
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adb::shell::tests::{endless_server, silent_server};
    use std::time::Duration;

    fn line(argv: &[&str]) -> ShellLine {
        crate::quote::command(argv).unwrap()
    }

    fn server_link(addr: SocketAddrV4) -> Link {
        Link {
            addr,
            serial: "s".into(),
        }
    }

    fn sleeper(link: &Link, hangup: &Hangup) -> Result<Vec<u8>> {
        link.shell(&line(&["sleep", "100"]), Cap::SHELL, hangup)
            .map_err(|e| DeviceError::backend(e.to_string()))
    }

    #[tokio::test]
    async fn a_passed_deadline_closes_the_shells_connection() {
        let (addr, server) = silent_server(b"");
        let link = server_link(addr);
        // The caller's deadline, as the server's `bounded` applies it.
        let call = run_shell(&link, "sleeping", sleeper);
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

    #[tokio::test]
    async fn a_caller_that_stops_waiting_closes_the_shells_connection() {
        let (addr, server) = silent_server(b"");
        let link = server_link(addr);
        // A cancelled tool call: its task is aborted, which drops the future.
        let call = tokio::spawn(async move { run_shell(&link, "sleeping", sleeper).await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        call.abort();
        assert!(call.await.unwrap_err().is_cancelled());
        let closed_after = tokio::task::spawn_blocking(move || server.join().unwrap())
            .await
            .unwrap();
        assert!(closed_after < Duration::from_secs(5), "{closed_after:?}");
    }

    #[test]
    fn endless_output_is_what_fits_and_a_note() {
        let (addr, server) = endless_server(b"more\n", 512 << 20);
        let out = server_link(addr)
            .shell(&line(&["logcat"]), Cap::SHELL, &Hangup::default())
            .unwrap();
        let note = cap::note(Cap::SHELL);
        assert_eq!(out.len(), Cap::SHELL.bytes + note.len());
        assert!(out.ends_with(note.as_bytes()));
        assert!(server.join().unwrap() < 64 << 20, "the command was stopped");
    }

    #[test]
    fn endless_output_where_a_cut_is_wrong_is_an_error() {
        let (addr, server) = endless_server(b"\x89PNG", 512 << 20);
        let mut out = Vec::new();
        let e = server_link(addr)
            .shell_to(
                &line(&["screencap", "-p"]),
                &mut out,
                Cap::PNG,
                &Hangup::default(),
            )
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("more than 64 MiB for a PNG screenshot"),
            "{e}"
        );
        assert_eq!(
            out.len(),
            Cap::PNG.bytes,
            "nothing is buffered past the cap"
        );
        assert!(
            server.join().unwrap() < 128 << 20,
            "the command was stopped"
        );
    }

    #[test]
    fn a_raw_frame_without_end_is_refused_and_the_capture_stopped() {
        use crate::parse::screencap::{HEADER_V2, RawFrameSink};
        use mobile_device::{OutputFormat, ScreenshotOptions};
        // A 4x3 RGBA header (with dataspace); the server repeats it, so pixels never end.
        const HEADER: &[u8] = b"\x04\0\0\0\x03\0\0\0\x01\0\0\0\0\0\0\0";
        let (addr, server) = endless_server(HEADER, 512 << 20);
        let opts = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: OutputFormat::Png,
        };
        let mut sink = RawFrameSink::new(opts, HEADER_V2);
        let e = server_link(addr)
            .shell_to(
                &line(&["screencap"]),
                &mut sink,
                Cap::RAW_FRAME,
                &Hangup::default(),
            )
            .unwrap_err();
        assert!(e.to_string().contains("more than the 4x3 frame"), "{e}");
        assert!(server.join().unwrap() < 64 << 20, "the capture was stopped");
    }

    #[test]
    fn an_installs_endless_reply_is_capped() {
        let (done_tx, _done_rx) = std::sync::mpsc::channel::<()>();
        let buf = Arc::new(Mutex::new(Vec::new()));
        let mut sink = Sink {
            buf: buf.clone(),
            _done: done_tx,
        };
        let chunk = vec![b'x'; 64 * 1024];
        let failed = (0..100).find(|_| sink.write_all(&chunk).is_err());
        assert!(failed.is_some(), "the sink refuses more than its cap");
        assert_eq!(buf.lock().unwrap().len(), Cap::SHELL.bytes);
    }

    #[test]
    fn a_cancelled_upload_ends_the_copy() {
        // adb_client streams an install with `std::io::copy`, which retries a read that
        // fails with `Interrupted`: the cancelled reader must fail with another kind.
        let dir = tempfile::tempdir().unwrap();
        let apk = dir.path().join("a.apk");
        std::fs::write(&apk, vec![7u8; 4096]).unwrap();
        let cancel = Arc::new(AtomicBool::new(true));
        let mut reader = Progress {
            inner: File::open(&apk).unwrap(),
            sent: 0,
            reported: 0,
            cancel,
            total: 4096,
            cb: None,
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(std::io::copy(&mut reader, &mut std::io::sink()));
        });
        let copied = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the copy ended");
        assert!(copied.is_err(), "{copied:?}");
    }
}
