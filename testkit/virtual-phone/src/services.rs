//! The device services behind an open stream (`shell:`, `shell,ARGS:`, `exec:`, `sync:`,
//! `framebuffer:`), shared by both ways in: the adbd transport ([`crate::connection`]) and the
//! adb-server front end ([`crate::front_end`]). Both record the same [`CommandRecord`]s, apply the
//! same injection check ([`Shared::run_line`]) and stop a running service the same way: once the
//! host closes its end, [`ServiceStream::is_closed`] turns true.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use crate::commands::Io;
use crate::phone::{CommandRecord, Shared};
use crate::render::Frame;
use crate::sync;

/// One open service stream, whatever carries it (adbd WRTE packets or a raw TCP socket).
///
/// Reading yields the host's bytes as one stream (not aligned to requests); `Ok(0)` once the host
/// closed its end. Writing is buffered until [`flush`](Self::flush).
pub(crate) trait ServiceStream: Read {
    /// Queues bytes for the host.
    fn write(&mut self, data: &[u8]) -> io::Result<()>;
    /// Sends whatever is queued.
    fn flush(&mut self) -> io::Result<()>;
    /// Waits up to `timeout` for more input; `Ok(None)` on timeout, `Err` once input ended.
    fn read_timeout(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>>;
    /// True once the host closed the stream or its connection went away.
    fn is_closed(&self) -> bool;
}

/// Whether the device offers `service` (the others are refused: adbd answers `CLSE(0, id)`).
pub(crate) fn accepts(service: &str) -> bool {
    shell_command_of(service).is_some()
        || service.starts_with("exec:")
        || service == "sync:"
        || service == "framebuffer:"
}

/// Records a refused service open.
pub(crate) fn refused(phone: &Shared, service: &str) {
    phone.record(CommandRecord {
        service: service.to_string(),
        refused: true,
        ..CommandRecord::empty()
    });
}

/// Runs an accepted service to completion on the calling thread.
pub(crate) fn run(phone: &Arc<Shared>, service: &str, stream: &mut dyn ServiceStream) {
    let _busy = phone.busy();
    if let Some(cmd) = shell_command_of(service) {
        if cmd.is_empty() {
            interactive(phone, service, stream);
        } else {
            phone.run_line(service, cmd, &mut StreamIo(stream));
        }
    } else if let Some(cmd) = service.strip_prefix("exec:") {
        phone.run_line(service, cmd, &mut StreamIo(stream));
    } else if service == "sync:" {
        // A broken sync request ends the stream; the host sees it close.
        let _ = sync::serve(phone, stream);
    } else if service == "framebuffer:" {
        phone.record(CommandRecord {
            service: service.to_string(),
            ..CommandRecord::empty()
        });
        let frame = phone.screenshot();
        let _ = framebuffer(&frame, stream);
    }
}

/// [`Io`] over a service stream.
struct StreamIo<'a>(&'a mut dyn ServiceStream);

impl Io for StreamIo<'_> {
    fn out(&mut self, data: &[u8]) -> io::Result<()> {
        self.0.write(data)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
    fn read_input(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        self.0.read_timeout(timeout)
    }
    fn closed(&self) -> bool {
        self.0.is_closed()
    }
}

/// The command of a `shell:CMD` or `shell,ARGS:CMD` service. Shell-protocol v2 (`v2` in ARGS)
/// is not offered (the banner does not advertise `shell_v2`), so such opens are refused.
fn shell_command_of(service: &str) -> Option<&str> {
    if let Some(cmd) = service.strip_prefix("shell:") {
        return Some(cmd);
    }
    let rest = service.strip_prefix("shell,")?;
    let (args, cmd) = rest.split_once(':')?;
    if args.split(',').any(|a| a == "v2") {
        return None;
    }
    Some(cmd)
}

/// `framebuffer:` — the v1 header (what `adb_client` parses), then RGBA pixels.
fn framebuffer(frame: &Frame, stream: &mut dyn ServiceStream) -> io::Result<()> {
    let size = frame.rgba.len() as u32;
    let mut header = Vec::with_capacity(52);
    // version, bpp, size, width, height, red offset/len, blue offset/len, green offset/len,
    // alpha offset/len (the field order of adb's fbinfo).
    for v in [
        1u32,
        32,
        size,
        frame.width,
        frame.height,
        0,
        8,
        16,
        8,
        8,
        8,
        24,
        8,
    ] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    stream.write(&header)?;
    stream.write(&frame.rgba)?;
    stream.flush()
}

/// `shell:` with no command: a line-at-a-time shell without a prompt.
fn interactive(phone: &Arc<Shared>, service: &str, stream: &mut dyn ServiceStream) {
    let mut pending = Vec::new();
    loop {
        match stream.read_timeout(Duration::from_secs(600)) {
            Ok(Some(data)) => {
                pending.extend_from_slice(&data);
                while let Some(i) = pending.iter().position(|&b| b == b'\n' || b == b'\r') {
                    let line: Vec<u8> = pending.drain(..=i).collect();
                    let line = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
                    if line.trim() == "exit" {
                        return;
                    }
                    if !line.trim().is_empty() {
                        phone.run_line(service, &line, &mut StreamIo(stream));
                        let _ = stream.flush();
                    }
                }
            }
            Ok(None) | Err(_) => return,
        }
    }
}
