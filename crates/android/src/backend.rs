//! `AndroidBackend`: lists the devices of every configured adb server and opens them.
//!
//! Ids: devices of the first server keep their adb serial (`emulator-5554`); devices of
//! any further server are named `HOST:PORT/SERIAL` (`10.0.0.7:5037/emulator-5554`), so
//! two servers that each see an `emulator-5554` still give distinct ids.
//!
//! A listing costs one `host:devices-l` per server plus, for each usable device, one
//! `getprop` the first time that device is seen on that connection: the properties it
//! shows (model, Android version, emulator or not) are fixed for one boot, so they are kept
//! per (server, serial, adb `transport_id`). A reconnect or reboot gets a new transport id
//! and is read afresh; an adb too old to print transport ids is read every time.

use std::collections::HashMap;
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mobile_device::{
    Device, DeviceBackend, DeviceError, DeviceInfo, DeviceKind, Discovery, Platform, Result,
};

use crate::adb::{Cap, HostError, Link, host, run_shell};
use crate::config::{AndroidConfig, find_adb};
use crate::device::{AndroidDevice, into_dyn};
use crate::parse;
use crate::quote::command;

/// How long a device listing waits for one server, and for one device's properties.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `adb -P PORT start-server` may take.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// Do not retry starting a server more often than this.
const START_RETRY: Duration = Duration::from_secs(30);

/// The Android device source.
pub struct AndroidBackend {
    config: AndroidConfig,
    last_start: Mutex<Option<Instant>>,
    /// Properties of the devices in the last listing, by their connection (see the module doc).
    props: Mutex<HashMap<PropKey, parse::props::PropInfo>>,
}

/// One boot of one device on one adb server: (server, serial, `transport_id`).
type PropKey = (SocketAddrV4, String, u64);

impl AndroidBackend {
    /// Devices of the adb servers in `config`.
    pub fn new(config: AndroidConfig) -> Self {
        AndroidBackend {
            config,
            last_start: Mutex::new(None),
            props: Mutex::new(HashMap::new()),
        }
    }

    fn lock_props(&self) -> std::sync::MutexGuard<'_, HashMap<PropKey, parse::props::PropInfo>> {
        self.props.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Maps a listing id back to its server and serial.
    fn locate(&self, id: &str) -> Option<(SocketAddrV4, String)> {
        let cfg = &self.config;
        if let Some((prefix, serial)) = id.split_once('/')
            && let Ok(addr) = prefix.parse::<SocketAddrV4>()
            && cfg.servers.iter().skip(1).any(|s| *s == addr)
        {
            return Some((addr, serial.to_string()));
        }
        cfg.servers.first().map(|s| (*s, id.to_string()))
    }

    fn id_for(&self, server_index: usize, server: SocketAddrV4, serial: &str) -> String {
        if server_index == 0 {
            serial.to_string()
        } else {
            format!("{server}/{serial}")
        }
    }

    async fn list_server(addr: SocketAddrV4) -> std::result::Result<String, HostError> {
        tokio::task::spawn_blocking(move || host::request(addr, "host:devices-l", LIST_TIMEOUT))
            .await
            .unwrap_or_else(|e| Err(HostError::Protocol(e.to_string())))
    }

    /// Starts `adb -P PORT start-server` for a loopback server, within [`START_TIMEOUT`].
    async fn start_server(adb: PathBuf, addr: SocketAddrV4) -> std::result::Result<(), String> {
        let mut cmd = tokio::process::Command::new(&adb);
        cmd.args(["-P", &addr.port().to_string(), "start-server"])
            .env_remove("ADB_SERVER_SOCKET")
            .env("ANDROID_ADB_SERVER_PORT", addr.port().to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", adb.display()))?;
        match tokio::time::timeout(START_TIMEOUT, child.wait()).await {
            Ok(Ok(st)) if st.success() => Ok(()),
            Ok(Ok(st)) => Err(format!(
                "`adb -P {} start-server` exited with {st}",
                addr.port()
            )),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "`adb -P {} start-server` did not finish within {} s",
                addr.port(),
                START_TIMEOUT.as_secs()
            )),
        }
    }

    async fn device_info(
        &self,
        id: String,
        link: Link,
        listed: &parse::devices::ListedDevice,
    ) -> (DeviceInfo, Option<String>) {
        let serial = listed.serial.clone();
        let mut info = DeviceInfo {
            id: id.clone(),
            name: listed.model.clone().unwrap_or_else(|| serial.clone()),
            platform: Platform::Android,
            kind: if serial.starts_with("emulator-") {
                DeviceKind::Emulator
            } else {
                DeviceKind::Real
            },
            version: None,
            state: listed.state.clone(),
            model: listed.model.clone(),
            hint: parse::devices::state_hint(&listed.raw_state),
        };
        if !info.state.is_usable() {
            return (info, None);
        }
        let key = listed.transport_id.map(|t| (link.addr, serial.clone(), t));
        let known = key.as_ref().and_then(|k| self.lock_props().get(k).cloned());
        if let Some(p) = known {
            apply_props(&mut info, p);
            return (info, None);
        }
        // One round trip: every property at once.
        let Ok(cmd) = command(&["getprop"]) else {
            return (info, None);
        };
        // A listing is no single device call, so it bounds this read itself: a device that
        // does not answer is listed with a note instead of holding up the whole list.
        let read = run_shell(&link, "reading device properties", move |link, hangup| {
            link.shell(&cmd, Cap::SHELL, hangup)
                .map_err(|e| DeviceError::backend(e.to_string()))
        });
        let got = match tokio::time::timeout(LIST_TIMEOUT, read).await {
            Ok(r) => r,
            Err(_) => Err(DeviceError::Timeout {
                what: "reading device properties".into(),
                after: LIST_TIMEOUT,
            }),
        };
        match got {
            Ok(bytes) => {
                let props = parse::props::parse_getprop(&String::from_utf8_lossy(&bytes));
                let p = parse::props::prop_info(&serial, &props);
                if let Some(k) = key {
                    self.lock_props().insert(k, p.clone());
                }
                apply_props(&mut info, p);
                (info, None)
            }
            Err(e) => {
                let note = format!("could not read the properties of \"{id}\": {e}");
                (info, Some(note))
            }
        }
    }

    async fn discover_servers(&self, cfg: &AndroidConfig) -> Discovery {
        let mut discovery = Discovery::default();
        let mut replies =
            mobile_device::join_all(cfg.servers.iter().map(|a| Self::list_server(*a))).await;
        // Start a server where none answered, if the configuration allows it and an adb
        // binary can be found.
        let unreachable: Vec<usize> = replies
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                cfg.start_server
                    && matches!(r, Err(HostError::Unreachable(_)))
                    && cfg.servers[*i].ip().is_loopback()
            })
            .map(|(i, _)| i)
            .collect();
        let mut start_failures: HashMap<usize, String> = HashMap::new();
        let mut adb_missing = false;
        if !unreachable.is_empty() {
            let adb = find_adb(
                cfg.adb_path.as_deref(),
                std::env::var_os("ANDROID_HOME"),
                std::env::var_os("PATH"),
            );
            let may_try = {
                let mut last = self.last_start.lock().unwrap_or_else(|p| p.into_inner());
                let ok = last.is_none_or(|t| t.elapsed() > START_RETRY);
                if ok && adb.is_some() {
                    *last = Some(Instant::now());
                }
                ok
            };
            match adb {
                None => adb_missing = true,
                Some(adb) if may_try => {
                    for &i in &unreachable {
                        let addr = cfg.servers[i];
                        tracing::info!(
                            "no adb server at {addr}; starting one with {}",
                            adb.display()
                        );
                        match Self::start_server(adb.clone(), addr).await {
                            Ok(()) => replies[i] = Self::list_server(addr).await,
                            Err(e) => {
                                start_failures.insert(i, e);
                            }
                        }
                    }
                }
                Some(_) => {}
            }
        }
        let mut pending = Vec::new();
        for (i, reply) in replies.into_iter().enumerate() {
            let addr = cfg.servers[i];
            match reply {
                Ok(body) => {
                    let listed = parse::devices::parse_devices_l(&body);
                    if listed.is_empty() {
                        discovery.notes.push(format!(
                            "the adb server at {addr} lists no devices: connect a phone with USB debugging on, start an emulator, or run `adb connect HOST:PORT`"
                        ));
                    }
                    for l in listed {
                        let id = self.id_for(i, addr, &l.serial);
                        let link = Link {
                            addr,
                            serial: l.serial.clone(),
                        };
                        pending.push((id, link, l));
                    }
                }
                Err(HostError::Unreachable(_)) => {
                    let mut note = format!("no adb server answered at {addr}");
                    if adb_missing {
                        note.push_str(" and no adb binary was found in $ANDROID_HOME/platform-tools or PATH; install Android platform-tools");
                    } else if let Some(e) = start_failures.get(&i) {
                        note.push_str(&format!(" and starting one failed: {e}"));
                    } else if !addr.ip().is_loopback() {
                        note.push_str(
                            "; start it on that host with `adb -a -P PORT server nodaemon`",
                        );
                    }
                    discovery.notes.push(note);
                }
                Err(e) => discovery.notes.push(format!("{addr}: {e}")),
            }
        }
        // Forget the connections this listing no longer shows (keeps the map as small as
        // the listing; a server that did not answer keeps nothing).
        self.lock_props().retain(|(addr, serial, t), _| {
            pending.iter().any(|(_, link, l)| {
                link.addr == *addr && l.serial == *serial && l.transport_id == Some(*t)
            })
        });
        let infos = mobile_device::join_all(
            pending
                .iter()
                .map(|(id, link, l)| self.device_info(id.clone(), link.clone(), l)),
        )
        .await;
        for (info, note) in infos {
            discovery.devices.push(info);
            discovery.notes.extend(note);
        }
        discovery
    }
}

/// Shows what a device's properties say in its listing entry.
fn apply_props(info: &mut DeviceInfo, p: parse::props::PropInfo) {
    if let Some(m) = p.model {
        info.name = m.clone();
        info.model = Some(m);
    }
    info.version = p.version;
    info.kind = p.kind;
}

#[async_trait]
impl DeviceBackend for AndroidBackend {
    fn name(&self) -> &str {
        "android"
    }

    async fn discover(&self) -> Discovery {
        self.discover_servers(&self.config).await
    }

    async fn open(&self, info: &DeviceInfo) -> Result<Arc<dyn Device>> {
        let (addr, serial) = self.locate(&info.id).ok_or_else(|| {
            DeviceError::not_found(
                format!("Device \"{}\"", info.id),
                "no adb server is configured",
            )
        })?;
        Ok(into_dyn(AndroidDevice::new(
            info.id.clone(),
            Link { addr, serial },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_later_servers_are_prefixed() {
        let mut cfg = AndroidConfig::default();
        cfg.add_server("10.0.0.7:5037".parse().unwrap());
        let b = AndroidBackend::new(cfg);
        let first: SocketAddrV4 = "127.0.0.1:5037".parse().unwrap();
        let second: SocketAddrV4 = "10.0.0.7:5037".parse().unwrap();
        assert_eq!(b.id_for(0, first, "emulator-5554"), "emulator-5554");
        let id = b.id_for(1, second, "emulator-5554");
        assert_eq!(id, "10.0.0.7:5037/emulator-5554");
        assert_eq!(b.locate(&id), Some((second, "emulator-5554".into())));
        assert_eq!(
            b.locate("emulator-5554"),
            Some((first, "emulator-5554".into()))
        );
        assert_eq!(
            b.locate("192.168.1.5:5555"),
            Some((first, "192.168.1.5:5555".into()))
        );
    }

    #[tokio::test]
    async fn no_server_and_no_adb_says_what_was_looked_for() {
        // A port nobody listens on, and an adb path that does not exist.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let std::net::SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        drop(l);
        let cfg = AndroidConfig {
            servers: vec![addr],
            adb_path: Some("/nonexistent/adb".into()),
            ..Default::default()
        };
        let d = AndroidBackend::new(cfg).discover().await;
        assert!(d.devices.is_empty());
        assert_eq!(
            d.notes,
            vec![format!(
                "no adb server answered at {addr} and no adb binary was found in $ANDROID_HOME/platform-tools or PATH; install Android platform-tools"
            )]
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_config_that_may_not_start_a_server_never_runs_adb() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let adb = dir.path().join("adb");
        std::fs::write(&adb, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
        std::fs::set_permissions(&adb, std::fs::Permissions::from_mode(0o755)).unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let std::net::SocketAddr::V4(addr) = l.local_addr().unwrap() else {
            unreachable!()
        };
        drop(l);
        let cfg = AndroidConfig {
            adb_path: Some(adb),
            ..AndroidConfig::only_server(addr)
        };
        assert_eq!(cfg.servers, vec![addr]);
        let d = AndroidBackend::new(cfg).discover().await;
        assert!(d.devices.is_empty());
        assert_eq!(d.notes, vec![format!("no adb server answered at {addr}")]);
        assert!(!marker.exists(), "adb was run");
    }
}
