//! `stf-double`: a DeviceFarmer STF API double on loopback, for the server's farm tests and
//! the spec-driven contract check (`scripts/stf-contract.sh`).
//!
//! It answers the operations of STF's published API (`lib/units/api/swagger/api_v1.yaml`,
//! a copy in `fixtures/stf/`, Swagger 2.0, `basePath /api/v1`) that a client leasing a
//! device uses: the user (`getUser`), the device list and one device (`getDevices`,
//! `getDeviceBySerial`, with `fields`), the user's devices (`getUserDevices`,
//! `addUserDevice`, `addUserDeviceV2`, `getUserDeviceBySerial`,
//! `deleteUserDeviceBySerial`), remote adb (`remoteConnectUserDeviceBySerial`,
//! `remoteDisconnectUserDeviceBySerial`) and adb keys (`addAdbPublicKey`). Every other
//! path under `/api/v1` is 404. Behaviour follows STF's controllers
//! (`lib/units/api/controllers/user.js`, `devices.js`), its access-token check
//! (`lib/units/api/helpers/securityHandlers.js`: `Authorization: Bearer TOKEN`, else 401)
//! and `lib/util/deviceutil.js` (a device is addable when present, ready, not used and
//! without owner; `using` is true for its owner, `lib/util/datautil.js`).
//!
//! - **Leases**: adding a device makes the token's user its owner with an idle timeout
//!   (the payload's `timeout` in ms, else the group timeout); with no activity for that long
//!   the device leaves the user by itself (`lib/units/device/plugins/group.js`, the
//!   `automatic_timeout` leave) and its remote adb stops. Activity is an API call on the
//!   device or bytes through its remote adb (`plugins/connect.js`: `userActivity` keeps the
//!   group alive).
//! - **Remote adb**: `remoteConnect` opens a TCP listener on loopback that forwards to the
//!   device's adbd (a virtual phone's), and answers its `HOST:PORT` as `remoteConnectUrl`,
//!   the address `adb connect` takes; stopping it (or the lease ending) closes the listener
//!   and every connection through it.
//!
//! Not for: STF's web UI, groups, bookings, users' administration, websocket control.
//!
//! ```no_run
//! use stf_double::{Config, FarmDevice, StfDouble};
//! # fn demo(adbd: std::net::SocketAddr) {
//! let stf = StfDouble::start(Config::new("token", vec![FarmDevice::pixel("P1", adbd)])).unwrap();
//! assert!(stf.url().starts_with("http://127.0.0.1:"));
//! assert_eq!(stf.owner("P1"), None);
//! # }
//! ```
#![warn(missing_docs)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

mod api;
mod proxy;
mod tls;

/// One device of the farm.
#[derive(Debug, Clone)]
pub struct FarmDevice {
    /// Its STF serial.
    pub serial: String,
    /// `ro.product.model`.
    pub model: String,
    /// `ro.product.manufacturer`.
    pub manufacturer: String,
    /// `ro.build.version.release`.
    pub version: String,
    /// `ro.build.version.sdk`.
    pub sdk: u32,
    /// The device's adbd, where remote adb leads.
    pub adbd: SocketAddr,
    /// Whether the device is connected to its provider.
    pub present: bool,
}

impl FarmDevice {
    /// A Pixel 7 on Android 14 (the virtual phone's default profile) behind `adbd`.
    pub fn pixel(serial: &str, adbd: SocketAddr) -> FarmDevice {
        FarmDevice {
            serial: serial.to_string(),
            model: "Pixel 7".into(),
            manufacturer: "Google".into(),
            version: "14".into(),
            sdk: 34,
            adbd,
            present: true,
        }
    }
}

/// How the double starts.
#[derive(Debug, Clone)]
pub struct Config {
    /// The one access token accepted.
    pub token: String,
    /// The token's user.
    pub email: String,
    /// The farm's devices.
    pub devices: Vec<FarmDevice>,
    /// The idle timeout of a lease added without `timeout` (STF's provider group timeout).
    pub group_timeout: Duration,
    /// The port to listen on (0: any free one).
    pub port: u16,
    /// Serve https, with a certificate for `localhost` and `127.0.0.1` signed by a CA made
    /// at start ([`StfDouble::ca_pem`]).
    pub tls: bool,
}

impl Config {
    /// A farm of `devices` for `token`'s user, group timeout 15 minutes, any port.
    pub fn new(token: &str, devices: Vec<FarmDevice>) -> Config {
        Config {
            token: token.to_string(),
            email: "agent@example.org".into(),
            devices,
            group_timeout: Duration::from_secs(900),
            port: 0,
            tls: false,
        }
    }
}

/// A device's owner.
#[derive(Debug, Clone)]
struct Owner {
    email: String,
    timeout: Duration,
}

/// One device and its lease.
struct Slot {
    info: FarmDevice,
    owner: Option<Owner>,
    /// The remote adb forwarder, while it runs.
    remote: Option<proxy::Remote>,
    /// The last activity on the device (API call or remote adb bytes).
    active: Arc<Mutex<Instant>>,
}

impl Slot {
    fn touch(&self) {
        *self.active.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn idle(&self) -> Duration {
        self.active
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    /// Ends the lease and the remote adb.
    fn free(&mut self) {
        self.owner = None;
        self.remote = None;
    }
}

/// What the double holds, shared by its handlers and the test.
struct State {
    token: String,
    email: String,
    group_timeout: Duration,
    slots: Vec<Slot>,
    adb_keys: Vec<String>,
    /// Serials someone else takes just before the next `addUserDevice` of them.
    steal: Vec<String>,
    /// `METHOD /path` of every request, and `timeout SERIAL` when a lease timed out.
    events: Vec<String>,
}

impl State {
    fn slot(&mut self, serial: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.info.serial == serial)
    }
}

type Shared = Arc<Mutex<State>>;

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// The running double; stops when dropped.
pub struct StfDouble {
    url: String,
    shared: Shared,
    /// The CA's certificate (PEM), in https mode.
    ca_pem: Option<String>,
    /// The server name of each TLS handshake that succeeded.
    server_names: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StfDouble {
    /// Starts the double on 127.0.0.1 in a thread of its own.
    ///
    /// # Errors
    ///
    /// The port cannot be bound, or the runtime cannot start.
    pub fn start(config: Config) -> std::io::Result<StfDouble> {
        let shared: Shared = Arc::new(Mutex::new(State {
            token: config.token,
            email: config.email,
            group_timeout: config.group_timeout,
            slots: config
                .devices
                .into_iter()
                .map(|info| Slot {
                    info,
                    owner: None,
                    remote: None,
                    active: Arc::new(Mutex::new(Instant::now())),
                })
                .collect(),
            adb_keys: Vec::new(),
            steal: Vec::new(),
            events: Vec::new(),
        }));
        let listener = std::net::TcpListener::bind(("127.0.0.1", config.port))?;
        listener.set_nonblocking(true)?;
        let identity = if config.tls {
            Some(tls::Identity::new()?)
        } else {
            None
        };
        let server_names = Arc::new(Mutex::new(Vec::new()));
        let names = server_names.clone();
        let ca_pem = identity.as_ref().map(|i| i.ca_pem.clone());
        let addr = listener.local_addr()?;
        let port = addr.port();
        // https by name, so that the name checked and sent (SNI) is a host name.
        let url = if config.tls {
            format!("https://localhost:{port}")
        } else {
            format!("http://127.0.0.1:{port}")
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("stf-double".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    let reaper = tokio::spawn(reap(state.clone()));
                    let app = api::router(state.clone());
                    let stopped = async {
                        let _ = stopped.await;
                    };
                    match identity {
                        None => {
                            let serve = axum::serve(listener, app);
                            let _ = serve.with_graceful_shutdown(stopped).await;
                        }
                        Some(identity) => {
                            let listener = tls::TlsListener::new(listener, addr, &identity, names);
                            let serve = axum::serve(listener, app);
                            let _ = serve.with_graceful_shutdown(stopped).await;
                        }
                    }
                    reaper.abort();
                    // Forwarders are tasks of this runtime: end them with it.
                    for s in &mut lock(&state).slots {
                        s.remote = None;
                    }
                });
            })?;
        ready_rx
            .recv()
            .map_err(|_| std::io::Error::other("the double's thread ended"))??;
        Ok(StfDouble {
            url,
            shared,
            ca_pem,
            server_names,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, or `https://localhost:PORT` in https mode; the API is
    /// under `/api/v1`.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The CA certificate (PEM) the https mode's certificate chains to.
    pub fn ca_pem(&self) -> Option<String> {
        self.ca_pem.clone()
    }

    /// The server name (SNI) each successful TLS handshake asked for, in order.
    pub fn server_names(&self) -> Vec<String> {
        self.server_names
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The email of the device's owner, if it is leased.
    pub fn owner(&self, serial: &str) -> Option<String> {
        lock(&self.shared)
            .slot(serial)
            .and_then(|s| s.owner.as_ref().map(|o| o.email.clone()))
    }

    /// The idle timeout of the device's lease, if it is leased.
    pub fn lease_timeout(&self, serial: &str) -> Option<Duration> {
        lock(&self.shared)
            .slot(serial)
            .and_then(|s| s.owner.as_ref().map(|o| o.timeout))
    }

    /// The device's `remoteConnectUrl` while remote adb runs.
    pub fn remote_url(&self, serial: &str) -> Option<String> {
        lock(&self.shared)
            .slot(serial)
            .and_then(|s| s.remote.as_ref().map(|r| r.url.clone()))
    }

    /// Another user (`email`) takes the device, as if from STF's web UI.
    pub fn take_as(&self, serial: &str, email: &str) {
        if let Some(s) = lock(&self.shared).slot(serial) {
            s.owner = Some(Owner {
                email: email.to_string(),
                timeout: Duration::from_secs(3600),
            });
            s.touch();
        }
    }

    /// Another user takes the device just before the next request to add it
    /// arrives: a device taken between a client's listing and its lease.
    pub fn take_before_next_add(&self, serial: &str) {
        lock(&self.shared).steal.push(serial.to_string());
    }

    /// The adb public keys registered, as sent.
    pub fn adb_keys(&self) -> Vec<String> {
        lock(&self.shared).adb_keys.clone()
    }

    /// `METHOD /path` of every request in order, and `timeout SERIAL` when a lease ended
    /// for idleness.
    pub fn events(&self) -> Vec<String> {
        lock(&self.shared).events.clone()
    }
}

impl Drop for StfDouble {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Frees every lease idle past its timeout, ten times a second.
async fn reap(shared: Shared) {
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut state = lock(&shared);
        let mut timed_out = Vec::new();
        for s in &mut state.slots {
            if let Some(o) = &s.owner
                && s.idle() > o.timeout
            {
                timed_out.push(format!("timeout {}", s.info.serial));
                s.free();
            }
        }
        state.events.extend(timed_out);
    }
}
