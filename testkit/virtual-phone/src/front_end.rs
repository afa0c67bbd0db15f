//! An adb-server front end: the adb host ("smart socket") protocol on loopback, serving one
//! virtual phone directly, so a client of the adb server (`adb_client`, mobile-mcp's `--demo`, the
//! `adb` client with `-P`) reaches the phone with no adb binary involved.
//!
//! Modelled on AOSP `packages/modules/adb` (read in the public mirror
//! `GrapheneOS/platform_packages_modules_adb`) and checked byte for byte against the real Debian
//! adb server 29.0.6 (`tests/front_end.rs`; see `fixtures/android/SOURCES-virtual-device.md`):
//!
//! - `docs/dev/services.md` (formerly `SERVICES.TXT`): the host services and the `host-serial:`
//!   prefix; `docs/dev/protocol.md` (formerly `protocol.txt`, "smartsockets") and
//!   `docs/dev/overview.md`: request = 4 hex digits of length + text; answer `OKAY`, or `FAIL` +
//!   4 hex digits + message.
//! - `sockets.cpp` `smart_socket_enqueue` and `parse_host_service`: the prefixes (`host:`,
//!   `host-serial:SERIAL:`, `host-transport-id:N:`, `host-usb:`, `host-local:`); a handled host
//!   request closes the connection; a device service without a transport fails with
//!   `device offline (no transport)`; after a switch the device's `OKAY`, or `FAIL closed` when
//!   the device refuses the open (`local_socket_ready_notify` / `local_socket_close_notify`).
//! - `adb.cpp` `handle_host_request`: `kill`, `transport*` / `tport:` (the latter add the 8-byte
//!   little-endian transport id), `devices[-l]`, `features`, `host-features`, `version`,
//!   `get-serialno`, `get-devpath`, `get-state`; unknown ones `FAIL unknown host service` (the
//!   29.0.6 wording; newer servers append the name).
//! - `transport.cpp` `append_transport` / `list_transports` / `sanitize` (the listing lines) and
//!   `acquire_one_transport` (the error texts).
//!
//! After a transport switch the connection carries one device service as a raw byte stream,
//! through the same dispatch as the adbd path ([`crate::services`]).

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::PhoneHandle;
use crate::phone::Shared;
use crate::services::{self, ServiceStream};
use crate::socket_stream::SocketStream;

/// `ADB_SERVER_VERSION` of platform-tools 29 (`host:version` answers it as 4 hex digits).
const ADB_SERVER_VERSION: u32 = 41;
/// Largest request accepted (adb's `MAX_PAYLOAD`).
const MAX_REQUEST: usize = 1024 * 1024;
/// The one transport's id (the first device of a fresh adb server has id 1).
const TRANSPORT_ID: u64 = 1;
/// What `host:host-features` answers: the features of the adb server 29.0.6 itself.
const HOST_FEATURES: &str = "push_sync,remount_shell,abb_exec,abb,apex,fixed_push_mkdir,ls_v2,\
                             stat_v2,fixed_push_symlink_timestamp,cmd,shell_v2";

/// A running adb-server front end for one phone. Dropping it stops accepting connections; open
/// connections may finish.
pub struct AdbFrontEnd {
    addr: SocketAddrV4,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

/// What every connection of one front end shares.
struct Served {
    phone: Arc<Shared>,
    serial: String,
    /// A USB transport's device path (`usb:1-1`); `None` for the TCP transport `adb
    /// connect` makes.
    devpath: Option<String>,
    addr: SocketAddrV4,
    stop: Arc<AtomicBool>,
}

impl AdbFrontEnd {
    /// Starts serving the adb host protocol for `phone` on `127.0.0.1:<ephemeral>`, with
    /// the phone as a TCP transport (as after `adb connect`): listed by its `host:port`.
    pub fn start(phone: &PhoneHandle) -> io::Result<AdbFrontEnd> {
        Self::serve(phone, phone.serial(), None)
    }

    /// Starts serving `phone` as a USB transport: adb lists a USB device by its serial
    /// number (the banner's `ro.serialno`, [`PhoneHandle::device_serial`], set with
    /// `PhoneConfig::serial`), which stays the same across starts, with its device path
    /// (`devpath`, e.g. `usb:1-1`) in the long listing, and `host-usb:` picks it.
    pub fn start_usb(phone: &PhoneHandle, devpath: &str) -> io::Result<AdbFrontEnd> {
        Self::serve(phone, phone.device_serial(), Some(devpath.to_string()))
    }

    fn serve(
        phone: &PhoneHandle,
        serial: String,
        devpath: Option<String>,
    ) -> io::Result<AdbFrontEnd> {
        let listener = bind_loopback()?;
        let addr = match listener.local_addr()? {
            SocketAddr::V4(a) => a,
            SocketAddr::V6(_) => return Err(io::Error::other("bound an IPv6 address")),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let served = Arc::new(Served {
            phone: phone.shared().clone(),
            serial,
            devpath,
            addr,
            stop: stop.clone(),
        });
        let accept = std::thread::Builder::new()
            .name("vdev-fe-accept".into())
            .spawn(move || accept_loop(listener, served))?;
        Ok(AdbFrontEnd {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    /// The address clients connect to (what `ANDROID_ADB_SERVER_PORT` / `adb -P` name).
    pub fn addr(&self) -> SocketAddrV4 {
        self.addr
    }
}

impl Drop for AdbFrontEnd {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        wake(self.addr);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Binds 127.0.0.1:0, avoiding the ports an adb server owns or scans (5037, 5555–5585).
fn bind_loopback() -> io::Result<TcpListener> {
    for _ in 0..50 {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = l.local_addr()?.port();
        if port != 5037 && !(5555..=5585).contains(&port) {
            return Ok(l);
        }
    }
    Err(io::Error::other("no free port found"))
}

/// Unblocks the accept loop so it sees the stop flag.
fn wake(addr: SocketAddrV4) {
    let _ = TcpStream::connect_timeout(&SocketAddr::V4(addr), Duration::from_secs(1));
}

fn accept_loop(listener: TcpListener, served: Arc<Served>) {
    let mut next = 0u64;
    for conn in listener.incoming() {
        if served.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(socket) = conn else { continue };
        next += 1;
        let served = served.clone();
        let _ = std::thread::Builder::new()
            .name(format!("vdev-fe-conn-{next}"))
            .spawn(move || {
                let _ = serve_client(socket, &served);
            });
    }
}

/// What to do with one request.
enum Step {
    /// Send these bytes, then close the connection (a handled host request).
    Reply(Vec<u8>),
    /// Send these bytes and keep reading requests, now bound to the device.
    Switched(Vec<u8>),
    /// Run this device service on the rest of the connection.
    Service(String),
    /// `host:kill`: answer `OKAY`, close, stop accepting.
    Kill,
    /// Close without an answer (a request the server cannot parse).
    Close,
}

fn serve_client(socket: TcpStream, served: &Served) -> io::Result<()> {
    socket.set_nodelay(true)?;
    let mut stream = SocketStream::new(socket)?;
    let mut attached = false;
    while let Some(request) = read_request(&mut stream)? {
        match served.step(&request, attached) {
            Step::Reply(bytes) => {
                stream.write(&bytes)?;
                return stream.flush();
            }
            Step::Switched(bytes) => {
                stream.write(&bytes)?;
                stream.flush()?;
                attached = true;
            }
            Step::Service(service) => return run_service(served, service, stream),
            Step::Kill => {
                stream.write(b"OKAY")?;
                stream.flush()?;
                served.stop.store(true, Ordering::SeqCst);
                wake(served.addr);
                return Ok(());
            }
            Step::Close => return Ok(()),
        }
    }
    Ok(())
}

/// Opens a device service on the attached connection, as the adb server does once the device
/// answers the `OPEN`: `OKAY` then the raw stream, or `FAIL closed` when the device refuses.
fn run_service(served: &Served, service: String, mut stream: SocketStream) -> io::Result<()> {
    if !services::accepts(&service) {
        services::refused(&served.phone, &service);
        stream.write(&fail("closed"))?;
        return stream.flush();
    }
    stream.write(b"OKAY")?;
    stream.flush()?;
    // A bug in a service must close its stream, not leave the client waiting.
    let run = std::panic::AssertUnwindSafe(|| services::run(&served.phone, &service, &mut stream));
    let _ = std::panic::catch_unwind(run);
    // Dropping the stream flushes it and closes the connection.
    Ok(())
}

/// Reads one `XXXX` + text request; `None` at EOF or on a malformed length (the server then
/// closes the connection without an answer).
fn read_request(stream: &mut SocketStream) -> io::Result<Option<String>> {
    let mut len = [0u8; 4];
    if read_full(stream, &mut len)?.is_none() {
        return Ok(None);
    }
    let Some(n) = std::str::from_utf8(&len)
        .ok()
        .and_then(|s| usize::from_str_radix(s, 16).ok())
        .filter(|&n| n > 0 && n <= MAX_REQUEST)
    else {
        return Ok(None);
    };
    let mut text = vec![0u8; n];
    if read_full(stream, &mut text)?.is_none() {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&text).into_owned()))
}

/// Fills `buf`; `None` if the client closed first.
fn read_full(stream: &mut SocketStream, buf: &mut [u8]) -> io::Result<Option<()>> {
    let mut got = 0;
    while got < buf.len() {
        let n = io::Read::read(stream, &mut buf[got..])?;
        if n == 0 {
            return Ok(None);
        }
        got += n;
    }
    Ok(Some(()))
}

/// `OKAY` + a length-prefixed string (adb's `SendOkay` + `SendProtocolString`).
fn okay(text: &str) -> Vec<u8> {
    let mut v = b"OKAY".to_vec();
    v.extend_from_slice(format!("{:04x}", text.len()).as_bytes());
    v.extend_from_slice(text.as_bytes());
    v
}

/// `FAIL` + a length-prefixed message (adb's `SendFail`).
fn fail(text: &str) -> Vec<u8> {
    let mut v = b"FAIL".to_vec();
    v.extend_from_slice(format!("{:04x}", text.len()).as_bytes());
    v.extend_from_slice(text.as_bytes());
    v
}

/// Which transport a request names (adb's `TransportType` plus serial / transport id).
#[derive(Default)]
struct Selector {
    usb_only: bool,
    serial: Option<String>,
    transport_id: u64,
}

impl Served {
    fn step(&self, request: &str, attached: bool) -> Step {
        let mut sel = Selector::default();
        let command = if let Some(rest) = request.strip_prefix("host-serial:") {
            let Some((serial, command)) = parse_host_service(rest) else {
                return Step::Close;
            };
            sel.serial = Some(serial.to_string());
            command
        } else if let Some(rest) = request.strip_prefix("host-transport-id:") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let (Ok(id), Some(command)) =
                (rest[..digits].parse(), rest[digits..].strip_prefix(':'))
            else {
                return Step::Close;
            };
            sel.transport_id = id;
            command
        } else if let Some(rest) = request.strip_prefix("host-usb:") {
            sel.usb_only = true;
            rest
        } else if let Some(rest) = request.strip_prefix("host-local:") {
            rest
        } else if let Some(rest) = request.strip_prefix("host:") {
            rest
        } else if attached {
            if self.phone.is_stopping() {
                return Step::Reply(fail("closed"));
            }
            return Step::Service(request.to_string());
        } else {
            return Step::Reply(fail("device offline (no transport)"));
        };
        if command.is_empty() {
            return Step::Close;
        }
        self.host_request(command, sel, attached)
    }

    fn host_request(&self, command: &str, mut sel: Selector, attached: bool) -> Step {
        if command == "kill" {
            return Step::Kill;
        }
        if command.starts_with("transport") || command.starts_with("tport:") {
            let legacy = !command.starts_with("tport:");
            if let Some(rest) = command.strip_prefix("tport:") {
                if let Some(serial) = rest.strip_prefix("serial:") {
                    sel.serial = Some(serial.to_string());
                } else if rest == "usb" {
                    sel.usb_only = true;
                }
            } else if let Some(id) = command.strip_prefix("transport-id:") {
                // Like adb's `ParseUint`, 0 parses (and then selects like no id at all).
                match id.parse() {
                    Ok(id) => sel.transport_id = id,
                    Err(_) => return Step::Reply(fail("invalid transport id")),
                }
            } else if command == "transport-usb" {
                sel.usb_only = true;
            } else if let Some(serial) = command.strip_prefix("transport:") {
                sel.serial = Some(serial.to_string());
            }
            return match self.acquire(&sel) {
                Ok(()) => {
                    let mut reply = b"OKAY".to_vec();
                    if !legacy {
                        reply.extend_from_slice(&TRANSPORT_ID.to_le_bytes());
                    }
                    Step::Switched(reply)
                }
                Err(e) => Step::Reply(fail(&e)),
            };
        }
        // Requests about one device use the attached one, else the one the prefix selects.
        let device = || if attached { Ok(()) } else { self.acquire(&sel) };
        let about_device = |answer: String| match device() {
            Ok(()) => Step::Reply(okay(&answer)),
            Err(e) => Step::Reply(fail(&e)),
        };
        match command {
            "devices" => Step::Reply(okay(&self.list(false))),
            "devices-l" => Step::Reply(okay(&self.list(true))),
            "features" => about_device(self.banner().features),
            "host-features" => Step::Reply(okay(HOST_FEATURES)),
            "version" => Step::Reply(okay(&format!("{ADB_SERVER_VERSION:04x}"))),
            "get-serialno" => about_device(self.serial.clone()),
            "get-devpath" => about_device(self.devpath.clone().unwrap_or("unknown".into())),
            "get-state" => about_device("device".into()),
            _ => Step::Reply(fail("unknown host service")),
        }
    }

    /// adb's `acquire_one_transport` over the single transport (a TCP one, as after
    /// `adb connect`): `Ok` when the selector picks it, else the server's error text.
    fn acquire(&self, sel: &Selector) -> Result<(), String> {
        let present = !self.phone.is_stopping();
        let picked = if sel.transport_id != 0 {
            sel.transport_id == TRANSPORT_ID
        } else if let Some(serial) = &sel.serial {
            self.matches_target(serial)
        } else {
            !sel.usb_only || self.devpath.is_some()
        };
        if present && picked {
            return Ok(());
        }
        Err(if sel.transport_id != 0 {
            format!("no device with transport id '{}'", sel.transport_id)
        } else if let Some(serial) = &sel.serial {
            format!("device '{serial}' not found")
        } else if sel.usb_only {
            "no devices found".into()
        } else {
            "no devices/emulators found".into()
        })
    }

    /// adb's `atransport::MatchesTarget`: the serial; for a TCP transport also
    /// `[tcp:|udp:]HOST[:PORT]` naming the same address; or `product:`/`model:`/`device:` + the
    /// value (the model sanitized, as listed).
    fn matches_target(&self, target: &str) -> bool {
        if target == self.serial {
            return true;
        }
        if let Some(devpath) = &self.devpath {
            // A USB transport: no address to match; its device path names it too.
            if target == devpath {
                return true;
            }
        } else if self.matches_address(target) {
            return true;
        }
        let b = self.banner();
        let qual = |prefix: &str, value: &str| {
            !value.is_empty() && target.strip_prefix(prefix) == Some(value)
        };
        qual("product:", &b.product)
            || qual("model:", &sanitize(&b.model, true))
            || qual("device:", &b.device)
    }

    /// A TCP transport's `[tcp:|udp:]HOST[:PORT]` match.
    fn matches_address(&self, target: &str) -> bool {
        let address = target
            .strip_prefix("tcp:")
            .or_else(|| target.strip_prefix("udp:"))
            .unwrap_or(target);
        parse_net_address(&self.serial, None).is_some_and(|(host, port)| {
            parse_net_address(address, Some(port)) == Some((host, port))
        })
    }

    /// `host:devices[-l]`: adb's `list_transports` with one transport (none once the phone stopped).
    fn list(&self, long: bool) -> String {
        if self.phone.is_stopping() {
            return String::new();
        }
        if !long {
            return format!("{}\tdevice\n", self.serial);
        }
        let b = self.banner();
        let mut line = format!("{:<22} {}", self.serial, "device");
        if let Some(devpath) = &self.devpath {
            line.push(' ');
            line.push_str(devpath);
        }
        for (key, value, alphanumeric) in [
            ("product:", &b.product, false),
            ("model:", &b.model, true),
            ("device:", &b.device, false),
        ] {
            if !value.is_empty() {
                line.push(' ');
                line.push_str(key);
                line.push_str(&sanitize(value, alphanumeric));
            }
        }
        line.push_str(&format!(" transport_id:{TRANSPORT_ID}\n"));
        line
    }

    fn banner(&self) -> Banner {
        // The bytes the adb server parses are the whole CNXN payload, NUL included (see
        // `connection.rs`): so the last field, `features=`, reads as one NUL character.
        Banner::parse(&(self.phone.banner() + "\0"))
    }
}

/// The fields of a device banner (`device::ro.product.name=…;…;features=…`) the listing shows.
struct Banner {
    product: String,
    model: String,
    device: String,
    features: String,
}

impl Banner {
    /// adb's `parse_banner`: `TYPE:SERIAL:PROPS`, PROPS `key=value` separated by `;`.
    fn parse(banner: &str) -> Banner {
        let mut b = Banner {
            product: String::new(),
            model: String::new(),
            device: String::new(),
            features: String::new(),
        };
        let props = banner.splitn(3, ':').nth(2).unwrap_or("");
        for prop in props.split(';') {
            let Some((key, value)) = prop.split_once('=') else {
                continue;
            };
            let slot = match key {
                "ro.product.name" => &mut b.product,
                "ro.product.model" => &mut b.model,
                "ro.product.device" => &mut b.device,
                "features" => &mut b.features,
                _ => continue,
            };
            *slot = value.to_string();
        }
        b
    }
}

/// adb's `sanitize`: with `alphanumeric`, every non-alphanumeric byte becomes `_`; otherwise only
/// newlines do.
fn sanitize(value: &str, alphanumeric: bool) -> String {
    value
        .chars()
        .map(|c| {
            let replace = if alphanumeric {
                !c.is_ascii_alphanumeric()
            } else {
                c == '\n'
            };
            if replace { '_' } else { c }
        })
        .collect()
}

/// adb's `ParseNetAddress`, enough for loopback serials: `HOST[:PORT]` or `[IPv6][:PORT]`, the
/// port defaulting to `default_port` (and required when there is none).
fn parse_net_address(address: &str, default_port: Option<u16>) -> Option<(&str, u16)> {
    let (host, port) = if let Some(rest) = address.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match address.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (address, None),
        }
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default_port?,
    };
    (!host.is_empty()).then_some((host, port))
}

/// adb's `parse_host_service`: splits `SERIAL:COMMAND`, where SERIAL may itself hold colons
/// (`HOST:PORT`, `tcp:HOST:PORT`, `[IPv6]:PORT`, `usb:…`, `product:…`, `model:…`, `device:…`).
fn parse_host_service(full: &str) -> Option<(&str, &str)> {
    if full.is_empty() {
        return None;
    }
    // `serial_len` counts the bytes consumed into the serial, its trailing ':' included.
    let mut serial_len = 0usize;
    let finish = |serial_len: usize| {
        let (serial, command) = full.split_at(serial_len);
        let serial = serial.strip_suffix(':')?;
        (!serial.is_empty() && !command.is_empty()).then_some((serial, command))
    };
    for prefix in ["usb:", "product:", "model:", "device:", "localfilesystem:"] {
        if let Some(rest) = full.strip_prefix(prefix) {
            let colon = rest.find(':')?;
            return finish(prefix.len() + colon + 1);
        }
    }
    let rest = |n: usize| &full[n..];
    if full.starts_with("tcp:") || full.starts_with("udp:") {
        serial_len = 4;
        if rest(serial_len).is_empty() {
            return None;
        }
    }
    if rest(serial_len).starts_with("vsock:") {
        serial_len += rest(serial_len).find(':')? + 1;
    }
    let mut found_address = false;
    if rest(serial_len).starts_with('[')
        && let Some(end) = rest(serial_len).find(']')
    {
        serial_len += end + 1;
        if !rest(serial_len).starts_with(':') {
            return None;
        }
        serial_len += 1;
        found_address = true;
    }
    if !found_address {
        serial_len += rest(serial_len).find(':')? + 1;
    }
    // Either a port followed by the command, or the command itself.
    let command = rest(serial_len);
    let Some(colon) = command.find(':') else {
        return finish(serial_len);
    };
    if command[..colon].bytes().all(|b| b.is_ascii_digit()) {
        serial_len += colon + 1;
    }
    finish(serial_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_serial_splits_like_adb() {
        assert_eq!(
            parse_host_service("127.0.0.1:5000:features"),
            Some(("127.0.0.1:5000", "features"))
        );
        assert_eq!(
            parse_host_service("emulator-5554:get-state"),
            Some(("emulator-5554", "get-state"))
        );
        assert_eq!(
            parse_host_service("tcp:localhost:5000:get-state"),
            Some(("tcp:localhost:5000", "get-state"))
        );
        assert_eq!(
            parse_host_service("[::1]:5000:features"),
            Some(("[::1]:5000", "features"))
        );
        assert_eq!(
            parse_host_service("product:panther:features"),
            Some(("product:panther", "features"))
        );
        assert_eq!(
            parse_host_service("abc:forward:tcp:1;tcp:2"),
            Some(("abc", "forward:tcp:1;tcp:2"))
        );
        assert_eq!(parse_host_service("nocommand"), None);
        assert_eq!(
            parse_net_address("127.0.0.1:5000", None),
            Some(("127.0.0.1", 5000))
        );
        assert_eq!(parse_net_address("[::1]", Some(7)), Some(("::1", 7)));
        assert_eq!(parse_net_address("localhost", None), None);
    }

    #[test]
    fn banner_fields_and_sanitizing() {
        let b = Banner::parse("device::ro.product.name=p;ro.product.model=Pixel 7;features=\0");
        assert_eq!((b.product.as_str(), b.model.as_str()), ("p", "Pixel 7"));
        assert_eq!(b.features, "\0");
        assert_eq!(sanitize(&b.model, true), "Pixel_7");
    }
}
