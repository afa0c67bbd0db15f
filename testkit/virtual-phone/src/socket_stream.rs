//! A device service carried over a plain TCP socket (the adb-server front end's client side,
//! after a transport switch), with the same semantics as an adbd stream: a reader thread queues
//! the client's bytes, and the stream counts as closed as soon as the client closes its end, so a
//! long-running service (`sleep`, `logcat`, `screenrecord`) stops like it does when an adb server
//! sends `CLSE`.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::inbox::Inbox;
use crate::services::ServiceStream;

/// Output is sent once this much is queued (and on every flush).
const WRITE_CHUNK: usize = 256 * 1024;
/// Largest read from the socket at once.
const READ_CHUNK: usize = 64 * 1024;

/// One client connection of the front end, as a [`ServiceStream`].
pub(crate) struct SocketStream {
    socket: TcpStream,
    inbox: Inbox,
    closed: Arc<AtomicBool>,
    out_buf: Vec<u8>,
}

impl SocketStream {
    /// Wraps a connected socket and starts its reader thread.
    pub(crate) fn new(socket: TcpStream) -> io::Result<SocketStream> {
        let mut reader = socket.try_clone()?;
        let (data_tx, data_rx) = mpsc::channel();
        let closed = Arc::new(AtomicBool::new(false));
        let flag = closed.clone();
        std::thread::Builder::new()
            .name("vdev-fe-read".into())
            .spawn(move || {
                let mut buf = vec![0u8; READ_CHUNK];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if data_tx.send(buf[..n].to_vec()).is_err() {
                                break;
                            }
                        }
                    }
                }
                // Like the adb server: a client that closes its end closes the whole stream.
                flag.store(true, Ordering::SeqCst);
                let _ = reader.shutdown(Shutdown::Both);
            })?;
        Ok(SocketStream {
            socket,
            inbox: Inbox::new(data_rx),
            closed,
            out_buf: Vec::new(),
        })
    }
}

impl ServiceStream for SocketStream {
    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        if self.is_closed() {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.out_buf.extend_from_slice(data);
        if self.out_buf.len() >= WRITE_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.out_buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.out_buf);
        if self.is_closed() {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.socket.write_all(&data)
    }

    fn read_timeout(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        self.inbox.read_timeout(timeout)
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

impl Read for SocketStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // The client closed its end: end of input.
        self.inbox.read(buf, None)
    }
}

impl Drop for SocketStream {
    /// Sends what is queued, then closes the connection (the client reads EOF, as it does when a
    /// device closes a stream behind a real adb server).
    fn drop(&mut self) {
        let _ = self.flush();
        let _ = self.socket.shutdown(Shutdown::Both);
    }
}
