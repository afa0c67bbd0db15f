//! What a service reads: the client's bytes as a queue of chunks (adbd `WRTE` payloads, or
//! what the front end's reader thread received), read back as one byte stream. Both kinds of
//! service stream keep their input here.

use std::io;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// The input side of one service stream.
pub(crate) struct Inbox {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Inbox {
    pub(crate) fn new(rx: Receiver<Vec<u8>>) -> Inbox {
        Inbox {
            rx,
            buf: Vec::new(),
            pos: 0,
        }
    }

    /// Waits up to `timeout` for more input; `Ok(None)` on timeout, `Err` once closed.
    pub(crate) fn read_timeout(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        if self.pos < self.buf.len() {
            let data = self.buf[self.pos..].to_vec();
            self.buf.clear();
            self.pos = 0;
            return Ok(Some(data));
        }
        match self.rx.recv_timeout(timeout) {
            Ok(d) => Ok(Some(d)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    /// Reads into `out` as `io::Read` does: `Ok(0)` once the client closed its side; with a
    /// `wait`, a client silent for that long is a `TimedOut` error.
    pub(crate) fn read(&mut self, out: &mut [u8], wait: Option<Duration>) -> io::Result<usize> {
        while self.pos >= self.buf.len() {
            let next = match wait {
                Some(w) => self.rx.recv_timeout(w),
                None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Ok(d) => {
                    self.buf = d;
                    self.pos = 0;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
                Err(RecvTimeoutError::Timeout) => return Err(io::ErrorKind::TimedOut.into()),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
