//! The phone: a loopback listener, the services behind it, and the handle tests hold.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::commands::{self, CancelFlag, Io, MemIo};
use crate::connection::{self, DeviceStream, ServiceHost};
use crate::layout;
use crate::records::Records;
use crate::render::{Frame, RenderCache};
use crate::services;
use crate::shell;
use crate::state::{PhoneState, now_ms};

/// How to start a phone.
#[derive(Debug, Clone)]
pub struct PhoneConfig {
    /// Address to listen on. Default `127.0.0.1:0` (an ephemeral port). Ports 5555–5585 are
    /// refused: the adb server scans them for emulators.
    pub addr: SocketAddr,
    /// Serial reported in the banner (`ro.serialno`); default: the listen address.
    pub serial: Option<String>,
    /// Also append every command record as a JSON line to this file.
    pub log_path: Option<PathBuf>,
    /// Initial state (default scenario when `None`).
    pub state: Option<PhoneState>,
}

impl Default for PhoneConfig {
    fn default() -> Self {
        PhoneConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            serial: None,
            log_path: None,
            state: None,
        }
    }
}

/// One thing the phone received: a shell/exec command line, a sync request, or a service open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRecord {
    /// Sequence number, from 1.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// The service string as opened (`shell:echo hi`, `exec:screencap '-p'`, `sync:`, …).
    pub service: String,
    /// The command line the shell split (empty for non-shell services).
    pub command: String,
    /// One argv per simple command, as the shell produced it. For `sync:` requests:
    /// `[["SEND", "/sdcard/x,33188"]]` etc.
    pub argv: Vec<Vec<String>>,
    /// True when the line contained unquoted metacharacters (see `crate::shell`); such a
    /// line is not executed.
    pub injection: bool,
    /// Why it was flagged.
    pub reasons: Vec<String>,
    /// True when the service was refused (`CLSE(0, id)`).
    #[serde(default)]
    pub refused: bool,
}

impl CommandRecord {
    /// A record with every field empty (the phone fills in `seq` and `timestamp_ms`).
    pub(crate) fn empty() -> CommandRecord {
        CommandRecord {
            seq: 0,
            timestamp_ms: 0,
            service: String::new(),
            command: String::new(),
            argv: Vec::new(),
            injection: false,
            reasons: Vec::new(),
            refused: false,
        }
    }
}

struct Recording {
    pid: u32,
    cancel: CancelFlag,
}

/// State shared by every connection and the handle.
pub(crate) struct Shared {
    state: Mutex<PhoneState>,
    log: Mutex<Records>,
    log_file: Option<Mutex<File>>,
    seq: AtomicU64,
    render: RenderCache,
    recordings: Mutex<Vec<Recording>>,
    next_pid: AtomicU32,
    serial: String,
    stopping: AtomicBool,
    connections: Mutex<Vec<(u64, TcpStream)>>,
    /// Services running now, and the most that ran at once since the last reset.
    busy: Mutex<(usize, usize)>,
    /// Until when shell and exec lines wait before they run ([`PhoneHandle::stall`]).
    stall_until: Mutex<Option<std::time::Instant>>,
}

/// A service counted as running until dropped ([`Shared::busy`]).
pub(crate) struct Busy<'a>(&'a Shared);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.busy.lock().unwrap_or_else(|e| e.into_inner()).0 -= 1;
    }
}

impl Shared {
    /// Counts a service as running until the guard drops.
    pub(crate) fn busy(&self) -> Busy<'_> {
        let mut b = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        b.0 += 1;
        b.1 = b.1.max(b.0);
        Busy(self)
    }

    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&mut PhoneState) -> R) -> R {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut s)
    }

    /// The current screen as a rendered frame (cached per screen state).
    pub(crate) fn screenshot(&self) -> Arc<Frame> {
        let (root, w, h, status, nav, on, paint) = self.with_state(|s| {
            let (w, h) = s.oriented_size();
            let (st, nav) = layout::bars(s.display.override_density.unwrap_or(s.display.density));
            let root = layout::layout(s);
            let paint = crate::living::spinner(s, &root);
            (root, w, h, st, nav, s.screen_on, paint)
        });
        if !on {
            // A screen that is off captures as black.
            return Arc::new(crate::render::black(w, h));
        }
        let frame = self.render.get(&root, w, h, status, nav);
        if paint.is_empty() {
            frame
        } else {
            Arc::new(frame.painted(&paint))
        }
    }

    /// True once the phone was stopped: it no longer counts as attached.
    pub(crate) fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    pub(crate) fn record(&self, mut rec: CommandRecord) {
        rec.seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        rec.timestamp_ms = now_ms();
        if let Some(f) = &self.log_file
            && let Ok(line) = serde_json::to_string(&rec)
        {
            let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(f, "{line}");
        }
        self.log.lock().unwrap_or_else(|e| e.into_inner()).push(rec);
    }

    pub(crate) fn start_recording(&self) -> (u32, CancelFlag) {
        let pid = self.next_pid.fetch_add(1, Ordering::SeqCst);
        let cancel: CancelFlag = Arc::new(AtomicBool::new(false));
        self.recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Recording {
                pid,
                cancel: cancel.clone(),
            });
        (pid, cancel)
    }

    pub(crate) fn end_recording(&self, pid: u32) {
        self.recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|r| r.pid != pid);
    }

    pub(crate) fn recording_pids(&self) -> Vec<u32> {
        self.recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|r| r.pid)
            .collect()
    }

    pub(crate) fn cancel_recording(&self, pid: u32) -> bool {
        let recs = self.recordings.lock().unwrap_or_else(|e| e.into_inner());
        match recs.iter().find(|r| r.pid == pid) {
            Some(r) => {
                r.cancel.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Splits, records and (unless flagged) runs one command line.
    pub(crate) fn run_line(self: &Arc<Self>, service: &str, line: &str, io: &mut dyn Io) -> i32 {
        let mut env = shell::default_env();
        let parsed = shell::parse_with_env(line, &env);
        self.record(CommandRecord {
            seq: 0,
            timestamp_ms: 0,
            service: service.to_string(),
            command: line.to_string(),
            argv: parsed.argvs(),
            injection: parsed.injection,
            reasons: parsed.reasons.clone(),
            refused: false,
        });
        if parsed.injection {
            // Never executed: the state cannot change through an injected line.
            return 1;
        }
        if let Some(e) = &parsed.error {
            let _ = io.out(format!("/system/bin/sh: {e}\n").as_bytes());
            return 2;
        }
        self.wait_out_stall();
        let cost = self.with_state(|s| {
            s.living
                .latency
                .as_ref()
                .map_or(0, |l| l.line_cost(&parsed.argvs()))
        });
        if cost > 0 {
            std::thread::sleep(std::time::Duration::from_millis(cost));
        }
        let status = commands::run_commands(self, &parsed, io, &mut env);
        self.with_state(crate::living::after_command);
        status
    }

    /// Blocks while the phone is stalled ([`PhoneHandle::stall`]) and not stopping.
    fn wait_out_stall(&self) {
        loop {
            let until = *self.stall_until.lock().unwrap_or_else(|e| e.into_inner());
            match until {
                Some(t) if std::time::Instant::now() < t && !self.is_stopping() => {
                    std::thread::sleep(
                        t.saturating_duration_since(std::time::Instant::now())
                            .min(Duration::from_millis(20)),
                    );
                }
                _ => return,
            }
        }
    }

    pub(crate) fn banner(&self) -> String {
        self.with_state(|s| {
            let p = |k: &str| s.props.get(k).cloned().unwrap_or_default();
            format!(
                "device::ro.product.name={};ro.product.model={};ro.product.device={};features=",
                p("ro.product.name"),
                p("ro.product.model"),
                p("ro.product.device")
            )
        })
    }
}

/// The adbd side: every accepted open runs through [`services`].
struct Host(Arc<Shared>);

impl ServiceHost for Host {
    fn banner(&self) -> String {
        self.0.banner()
    }

    fn accepts(&self, service: &str) -> bool {
        services::accepts(service)
    }

    fn refused(&self, service: &str) {
        services::refused(&self.0, service);
    }

    fn run(&self, service: String, stream: &mut DeviceStream) {
        services::run(&self.0, &service, stream);
    }
}

/// Starts phones.
pub struct VirtualPhone;

impl VirtualPhone {
    /// Binds the listener and starts serving on background threads.
    pub fn start(config: PhoneConfig) -> io::Result<PhoneHandle> {
        if (5555..=5585).contains(&config.addr.port()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "ports 5555-5585 are scanned by the adb server for emulators; use another port",
            ));
        }
        let listener = TcpListener::bind(config.addr)?;
        let addr = listener.local_addr()?;
        let serial = config
            .serial
            .clone()
            .unwrap_or_else(|| format!("{}:{}", addr.ip(), addr.port()));
        let mut state = config.state.clone().unwrap_or_default();
        state.props.insert("ro.serialno".into(), serial.clone());
        let log_file = match &config.log_path {
            Some(p) => Some(Mutex::new(
                File::options().create(true).append(true).open(p)?,
            )),
            None => None,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            log: Mutex::new(Records::default()),
            log_file,
            seq: AtomicU64::new(0),
            render: RenderCache::default(),
            recordings: Mutex::new(Vec::new()),
            next_pid: AtomicU32::new(23_001),
            serial: serial.clone(),
            stopping: AtomicBool::new(false),
            connections: Mutex::new(Vec::new()),
            busy: Mutex::new((0, 0)),
            stall_until: Mutex::new(None),
        });
        let accept_shared = shared.clone();
        let accept = std::thread::Builder::new()
            .name("vdev-accept".into())
            .spawn(move || accept_loop(listener, accept_shared))?;
        Ok(PhoneHandle {
            shared,
            addr,
            accept: Some(accept),
        })
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut next_conn = 0u64;
    for conn in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(socket) = conn else { continue };
        next_conn += 1;
        let id = next_conn;
        if let Ok(clone) = socket.try_clone() {
            shared
                .connections
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((id, clone));
        }
        let host = Arc::new(Host(shared.clone()));
        let shared2 = shared.clone();
        let _ = std::thread::Builder::new()
            .name(format!("vdev-conn-{id}"))
            .spawn(move || {
                let _ = connection::serve(socket, host);
                shared2
                    .connections
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|(i, _)| *i != id);
            });
    }
}

/// A running phone. Dropping it (or [`PhoneHandle::stop`]) closes the listener and every
/// connection, so the adb server sees the device go offline.
pub struct PhoneHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

impl PhoneHandle {
    /// The listening address (127.0.0.1:PORT).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The phone's shared state (for the adb-server front end).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The serial adb shows after `adb connect`: `127.0.0.1:PORT`.
    pub fn serial(&self) -> String {
        format!("{}:{}", self.addr.ip(), self.addr.port())
    }

    /// The serial in the banner / `ro.serialno` (same as [`serial`](Self::serial) unless configured).
    pub fn device_serial(&self) -> String {
        self.shared.serial.clone()
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Records> {
        self.shared.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What was received, oldest first: the newest [`KEPT`](crate::KEPT) records
    /// (the `--log` file has them all).
    pub fn commands(&self) -> Vec<CommandRecord> {
        self.log().recent()
    }

    /// Shell/exec records only (no sync requests, framebuffer or refused opens).
    pub fn shell_commands(&self) -> Vec<CommandRecord> {
        self.commands()
            .into_iter()
            .filter(|r| r.service.starts_with("shell:") || r.service.starts_with("exec:"))
            .collect()
    }

    /// Records flagged as injection attempts, oldest first: every one received (up to
    /// [`INJECTIONS_KEPT`](crate::INJECTIONS_KEPT)), also those
    /// [`commands`](Self::commands) no longer holds.
    pub fn injections(&self) -> Vec<CommandRecord> {
        self.log().injections()
    }

    /// How many injection attempts were received, also past those
    /// [`injections`](Self::injections) keeps.
    pub fn injection_count(&self) -> u64 {
        self.log().injection_count()
    }

    /// Number of live host connections (adb servers or direct clients).
    pub fn connection_count(&self) -> usize {
        self.shared
            .connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// The most services (shell, exec, sync, framebuffer) that ran at once since the
    /// phone started or [`reset_peak_services`](Self::reset_peak_services): how much
    /// work a client had in flight on this phone.
    pub fn peak_services(&self) -> usize {
        self.shared.busy.lock().unwrap_or_else(|e| e.into_inner()).1
    }

    /// Starts counting [`peak_services`](Self::peak_services) again from the services
    /// running now.
    pub fn reset_peak_services(&self) {
        let mut b = self.shared.busy.lock().unwrap_or_else(|e| e.into_inner());
        b.1 = b.0;
    }

    /// Stalls the phone's shell for `how_long` from now: every shell and exec line received
    /// meanwhile is recorded when it arrives but runs only when the stall ends (as on a
    /// phone whose system server is blocked, e.g. in a long garbage collection or a
    /// watchdog-length binder stall), then the phone answers as before. The connection
    /// stays up (adb still lists the device). A later call replaces the end of the stall.
    pub fn stall(&self, how_long: Duration) {
        *self
            .shared
            .stall_until
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now() + how_long);
    }

    /// Whether a [`stall`](Self::stall) is in force now.
    pub fn stalled(&self) -> bool {
        self.shared
            .stall_until
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|t| std::time::Instant::now() < t)
    }

    /// Forgets the in-process log (the `--log` file is kept).
    pub fn clear_log(&self) {
        self.log().clear();
    }

    /// A snapshot of the state.
    pub fn state(&self) -> PhoneState {
        self.shared.with_state(|s| s.clone())
    }

    /// Edits the state in place.
    pub fn update_state(&self, f: impl FnOnce(&mut PhoneState)) {
        self.shared.with_state(f)
    }

    /// Runs a command line in-process as if it came as `shell:LINE` (recorded like one);
    /// returns its output.
    pub fn shell(&self, line: &str) -> String {
        let mut io = MemIo::default();
        self.shared
            .run_line(&format!("shell:{line}"), line, &mut io);
        String::from_utf8_lossy(&io.output).into_owned()
    }

    /// The current `uiautomator dump` XML.
    pub fn ui_dump(&self) -> String {
        self.shared
            .with_state(|s| crate::uixml::dump(&layout::layout(s), s.rotation()))
    }

    /// Centre of the first on-screen element whose text or content-desc equals `label`.
    pub fn element_center(&self, label: &str) -> Option<(i32, i32)> {
        self.shared.with_state(|s| {
            let root = layout::layout(s);
            let mut found = None;
            root.walk(&mut |n| {
                if found.is_none()
                    && n.element.is_some()
                    && (n.text == label || n.content_desc == label)
                {
                    found = Some(n.center());
                }
            });
            found
        })
    }

    /// The current screen as PNG bytes.
    pub fn screenshot_png(&self) -> Vec<u8> {
        self.shared.screenshot().png().to_vec()
    }

    /// Files under a path prefix (for assertions).
    pub fn file(&self, path: &str) -> Option<Vec<u8>> {
        let p = commands::normalize(path);
        self.shared
            .with_state(|s| s.files.get(&p).map(|f| f.data.clone()))
    }

    /// Stops serving: closes the listener and every connection, and waits for the accept thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if self.shared.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
        for (_, c) in self
            .shared
            .connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            let _ = c.shutdown(Shutdown::Both);
        }
        // Release screenrecords so their threads end.
        for r in self
            .shared
            .recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            r.cancel.store(true, Ordering::SeqCst);
        }
    }
}

impl Drop for PhoneHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Loads a scenario: a JSON [`PhoneState`] (fields left out take the default scenario's values).
pub fn load_state(path: &std::path::Path) -> io::Result<PhoneState> {
    let mut text = String::new();
    File::open(path)?.read_to_string(&mut text)?;
    let partial: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let mut base = serde_json::to_value(PhoneState::default()).map_err(io::Error::other)?;
    if let (Some(b), Some(p)) = (base.as_object_mut(), partial.as_object()) {
        for (k, v) in p {
            b.insert(k.clone(), v.clone());
        }
    }
    let mut state: PhoneState =
        serde_json::from_value(base).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    crate::scenario::refresh_launcher(&mut state);
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::KEPT;

    #[test]
    fn a_long_session_keeps_the_newest_records_and_every_injection() {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let mut io = MemIo::default();
        phone.shared.run_line("shell:", "echo hi; reboot", &mut io);
        for _ in 0..KEPT + 20 {
            phone
                .shared
                .run_line("shell:", "'getprop' 'ro.serialno'", &mut io);
            io.output.clear();
        }
        let log = phone.commands();
        assert_eq!(log.len(), KEPT, "the log holds at most {KEPT} records");
        assert!(
            log.iter().all(|r| !r.injection),
            "the injection left the ring"
        );
        assert_eq!(log.last().unwrap().seq, KEPT as u64 + 21);
        assert_eq!(phone.shell_commands().len(), KEPT);
        let inj = phone.injections();
        assert_eq!(
            inj.len(),
            1,
            "the first command's injection is still reported"
        );
        assert_eq!(inj[0].seq, 1);
        assert_eq!(inj[0].command, "echo hi; reboot");
        assert_eq!(phone.injection_count(), 1);
    }
}
