//! One adb transport over one TCP connection: the CNXN handshake, then OPEN/OKAY/WRTE/CLSE with
//! per-stream v1 flow control (one WRTE in flight per stream, each acknowledged by an OKAY).
//!
//! Invariants: a packet is written with a single `write_all` under the writer mutex, so packets of
//! concurrent streams never interleave; a stream the host closed is removed *before* anything else
//! happens to it, and the device never answers a host CLSE with another CLSE (adb_client's
//! direct-TCP path would read a stray CLSE as the reply to its next OPEN).

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::inbox::Inbox;
use crate::protocol::*;
use crate::services::ServiceStream;

/// How long a writer waits for the host's OKAY before giving up on the stream.
const ACK_TIMEOUT: Duration = Duration::from_secs(60);
/// Largest WRTE payload the device sends (further capped by the negotiated maximum).
const MAX_WRITE_CHUNK: usize = 256 * 1024;

struct Slot {
    remote_id: u32,
    data_tx: Sender<Vec<u8>>,
    ack_tx: Sender<()>,
    closed: Arc<AtomicBool>,
}

pub(crate) struct Transport {
    writer: Mutex<TcpStream>,
    slots: Mutex<HashMap<u32, Slot>>,
    next_id: AtomicU32,
    max_payload: AtomicU32,
}

impl Transport {
    fn send(&self, packet: &Packet) -> io::Result<()> {
        let bytes = packet.encode();
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        io::Write::write_all(&mut *w, &bytes)
    }

    fn close_all(&self) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        for (_, slot) in slots.drain() {
            slot.closed.store(true, Ordering::SeqCst);
        }
    }
}

/// What the connection needs from the phone: a banner, and a way to run services.
pub(crate) trait ServiceHost: Send + Sync + 'static {
    fn banner(&self) -> String;
    /// Whether the service string is one the device accepts (refused ones get `CLSE(0, id)`).
    fn accepts(&self, service: &str) -> bool;
    /// Runs an accepted service to completion on its own thread.
    fn run(&self, service: String, stream: &mut DeviceStream);
    /// Records a refused service.
    fn refused(&self, service: &str);
}

/// Serves one TCP connection until the host disconnects or the socket is shut down.
pub(crate) fn serve<H: ServiceHost>(socket: TcpStream, host: Arc<H>) -> io::Result<()> {
    socket.set_nodelay(true)?;
    let mut reader = socket.try_clone()?;
    let transport = Arc::new(Transport {
        writer: Mutex::new(socket),
        slots: Mutex::new(HashMap::new()),
        next_id: AtomicU32::new(1),
        max_payload: AtomicU32::new(MAX_PAYLOAD_V1),
    });
    let result = read_loop(&mut reader, &transport, &host);
    transport.close_all();
    let _ = reader.shutdown(Shutdown::Both);
    result
}

const MAX_PAYLOAD_V1: u32 = 4096;

fn read_loop<H: ServiceHost>(
    reader: &mut TcpStream,
    transport: &Arc<Transport>,
    host: &Arc<H>,
) -> io::Result<()> {
    let mut online = false;
    while let Some(packet) = Packet::read_from(reader)? {
        match packet.command {
            A_CNXN => {
                // A second CNXN on a live connection means the host restarted its side: drop
                // every stream and answer again.
                transport.close_all();
                let max = packet.arg1.clamp(MAX_PAYLOAD_V1, MAX_PAYLOAD);
                transport.max_payload.store(max, Ordering::SeqCst);
                let mut banner = host.banner().into_bytes();
                banner.push(0);
                transport.send(&Packet::new(A_CNXN, A_VERSION, MAX_PAYLOAD, banner))?;
                online = true;
            }
            _ if !online => {
                // Nothing but CNXN is meaningful before the handshake (AUTH/STLS are never
                // requested by this device).
            }
            A_OPEN => {
                let remote_id = packet.arg0;
                let mut service = packet.payload;
                while service.last() == Some(&0) {
                    service.pop();
                }
                let service = String::from_utf8_lossy(&service).into_owned();
                if remote_id == 0 || !host.accepts(&service) {
                    host.refused(&service);
                    transport.send(&Packet::new(A_CLSE, 0, remote_id, Vec::new()))?;
                    continue;
                }
                let local_id = transport.next_id.fetch_add(1, Ordering::SeqCst);
                let (data_tx, data_rx) = mpsc::channel();
                let (ack_tx, ack_rx) = mpsc::channel();
                let closed = Arc::new(AtomicBool::new(false));
                transport
                    .slots
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(
                        local_id,
                        Slot {
                            remote_id,
                            data_tx,
                            ack_tx,
                            closed: closed.clone(),
                        },
                    );
                transport.send(&Packet::new(A_OKAY, local_id, remote_id, Vec::new()))?;
                let mut stream = DeviceStream {
                    transport: transport.clone(),
                    local_id,
                    remote_id,
                    inbox: Inbox::new(data_rx),
                    ack_rx,
                    closed,
                    out_buf: Vec::new(),
                    awaiting_ack: false,
                    finished: false,
                };
                let host = host.clone();
                let name = format!("vdev-stream-{local_id}");
                std::thread::Builder::new().name(name).spawn(move || {
                    // A bug in a service must close its stream, not leave the host waiting.
                    let run = std::panic::AssertUnwindSafe(|| host.run(service, &mut stream));
                    let _ = std::panic::catch_unwind(run);
                    stream.finish();
                })?;
            }
            A_WRTE => {
                let local_id = packet.arg1;
                let slots = transport.slots.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(slot) = slots.get(&local_id) {
                    let remote_id = slot.remote_id;
                    // Acknowledge first: the host may then send more; the data is queued.
                    transport.send(&Packet::new(A_OKAY, local_id, remote_id, Vec::new()))?;
                    let _ = slot.data_tx.send(packet.payload);
                }
            }
            A_OKAY => {
                let slots = transport.slots.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(slot) = slots.get(&packet.arg1) {
                    let _ = slot.ack_tx.send(());
                }
            }
            A_CLSE => {
                let removed = transport
                    .slots
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&packet.arg1);
                if let Some(slot) = removed {
                    slot.closed.store(true, Ordering::SeqCst);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The device side of one open stream, handed to a service.
///
/// Reading yields the host's WRTE payloads as one byte stream (requests are not aligned to
/// packets). Writing is buffered; [`DeviceStream::flush`] sends WRTEs of at most the negotiated
/// payload size and waits for the OKAY after each.
pub struct DeviceStream {
    transport: Arc<Transport>,
    local_id: u32,
    remote_id: u32,
    inbox: Inbox,
    ack_rx: Receiver<()>,
    closed: Arc<AtomicBool>,
    out_buf: Vec<u8>,
    awaiting_ack: bool,
    finished: bool,
}

impl DeviceStream {
    /// True once the host closed the stream or the connection went away.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn chunk_limit(&self) -> usize {
        (self.transport.max_payload.load(Ordering::SeqCst) as usize).min(MAX_WRITE_CHUNK)
    }

    /// Sends `data` as exactly one WRTE (it must fit the negotiated payload).
    ///
    /// v1 flow control: the *next* WRTE waits for the host's OKAY of this one. The device does
    /// not wait after the last WRTE (real adbd buffers it too), because some hosts never
    /// acknowledge a final reply before sending their next request (adb_client's direct-TCP
    /// push reads the sync OKAY and then sends QUIT without acknowledging it).
    pub fn write_packet(&mut self, data: &[u8]) -> io::Result<()> {
        if self.awaiting_ack {
            match self.ack_rx.recv_timeout(ACK_TIMEOUT) {
                Ok(()) => self.awaiting_ack = false,
                Err(RecvTimeoutError::Timeout) => return Err(io::ErrorKind::TimedOut.into()),
                Err(RecvTimeoutError::Disconnected) => return Err(io::ErrorKind::BrokenPipe.into()),
            }
        }
        if self.is_closed() {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.transport.send(&Packet::new(
            A_WRTE,
            self.local_id,
            self.remote_id,
            data.to_vec(),
        ))?;
        self.awaiting_ack = true;
        Ok(())
    }

    /// Queues bytes; full chunks are sent at once.
    pub fn write(&mut self, data: &[u8]) -> io::Result<()> {
        self.out_buf.extend_from_slice(data);
        let limit = self.chunk_limit();
        while self.out_buf.len() >= limit {
            let rest = self.out_buf.split_off(limit);
            let chunk = std::mem::replace(&mut self.out_buf, rest);
            self.write_packet(&chunk)?;
        }
        Ok(())
    }

    /// Sends whatever is queued.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.out_buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.out_buf);
        let limit = self.chunk_limit();
        for part in chunk.chunks(limit) {
            self.write_packet(part)?;
        }
        Ok(())
    }

    /// Waits up to `timeout` for more input; `Ok(None)` on timeout, `Err` once closed.
    pub fn read_timeout(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        self.inbox.read_timeout(timeout)
    }

    /// Flushes, then closes the stream from the device side (CLSE) unless the host already did.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let _ = self.flush();
        let removed = self
            .transport
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.local_id);
        if removed.is_some() {
            self.closed.store(true, Ordering::SeqCst);
            let _ = self.transport.send(&Packet::new(
                A_CLSE,
                self.local_id,
                self.remote_id,
                Vec::new(),
            ));
        }
    }
}

impl ServiceStream for DeviceStream {
    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        DeviceStream::write(self, data)
    }
    fn flush(&mut self) -> io::Result<()> {
        DeviceStream::flush(self)
    }
    fn read_timeout(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        DeviceStream::read_timeout(self, timeout)
    }
    fn is_closed(&self) -> bool {
        DeviceStream::is_closed(self)
    }
}

impl Read for DeviceStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // A host that closes the stream ends the input; one silent past the ACK timeout fails.
        self.inbox.read(buf, Some(ACK_TIMEOUT))
    }
}
