//! Device farms: phones on other machines that a farm lends, reached through our adb server
//! once lent. One kind today, DeviceFarmer STF (`--farm stf=URL --farm-token-file PATH`,
//! client in [`stf`], over http or https, TLS in [`tls`]).
//!
//! Allocating a device: STF leases it to the token's user with an idle timeout (STF frees
//! it by itself after that long without activity), our adb server's public key is
//! registered (once per process), STF's remote adb is started and its `HOST:PORT` is
//! connected on our adb server ([`mobile_android::remote`]); the device is then listed by
//! that server under `HOST:PORT` and every tool works on it, leased to the session that
//! allocated it ([`crate::lease`]). Releasing (the tool, or the session's end) disconnects
//! it, stops remote adb and gives the lease back. When the process dies without releasing,
//! STF's idle timeout frees the device.
//!
//! Not for: scheduling or queueing devices (the farm does), or farms that are only an
//! address (redroid, docker-android: give their `HOST:PORT` to `adb connect` yourself).

use std::collections::HashMap;
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

pub(crate) mod stf;
mod tls;

use stf::{StfClient, StfDevice, StfError};

/// How a farm is reached: the `--farm`, `--farm-token-file` and `--farm-idle` settings.
#[derive(Debug, Clone)]
pub struct FarmConfig {
    /// `stf=URL`.
    pub spec: String,
    /// The access token.
    pub token: String,
    /// PEM certificates trusted besides the system's roots, for an https farm.
    pub ca_file: Option<PathBuf>,
    /// The adb server remote devices are connected on.
    pub adb_server: SocketAddrV4,
    /// Our adb server's public key file (`adbkey.pub`), registered with the farm.
    pub adb_key: Option<PathBuf>,
    /// How long an allocated device may stay idle before the farm frees it.
    pub idle: Duration,
}

impl FarmConfig {
    /// `$ANDROID_USER_HOME/adbkey.pub`, else `$HOME/.android/adbkey.pub`: where the adb
    /// server keeps the key it presents (adb's `get_user_key_path`).
    pub fn default_adb_key() -> Option<PathBuf> {
        if let Some(h) = std::env::var_os("ANDROID_USER_HOME").filter(|h| !h.is_empty()) {
            return Some(PathBuf::from(h).join("adbkey.pub"));
        }
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".android").join("adbkey.pub"))
    }
}

/// One device lent by the farm.
#[derive(Debug, Clone)]
struct Lent {
    serial: String,
    /// The remote adb address, which is also the device id on our adb server.
    remote: String,
    /// The session holding it.
    session: u64,
}

/// A farm: its client, our adb server, and the devices it lent us.
pub struct Farm {
    stf: StfClient,
    adb_server: SocketAddrV4,
    adb_key: Option<PathBuf>,
    idle: Duration,
    key_sent: Mutex<bool>,
    lent: Mutex<HashMap<String, Lent>>,
    /// Give-backs of ended sessions still running; [`Farm::release_all`] waits for them.
    pending: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl std::fmt::Debug for Farm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Farm({})", self.stf.url)
    }
}

/// What was allocated.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Allocation {
    /// The id every other tool takes as `device`.
    pub device: String,
    /// The farm's serial of the device.
    pub serial: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Seconds without activity after which the farm frees the device by itself.
    pub idle_timeout_seconds: u64,
}

/// Which device to allocate.
#[derive(Debug, Default)]
pub(crate) struct Wanted<'a> {
    pub serial: Option<&'a str>,
    /// A model name, exact or with a trailing `*` (case-insensitive).
    pub name: Option<&'a str>,
    /// Android release filters: `14`, `>=12`, `<15`, …
    pub version: &'a [String],
}

impl Farm {
    /// The farm `config.spec` names.
    ///
    /// # Errors
    ///
    /// A spec that is not `stf=URL`, or an URL the client cannot use.
    pub fn new(config: FarmConfig) -> Result<Farm, String> {
        let url = config.spec.strip_prefix("stf=").ok_or_else(|| {
            format!(
                "--farm {}: expected stf=URL (DeviceFarmer STF, e.g. stf=http://stf.lan:7100)",
                config.spec
            )
        })?;
        check_token(&config.token)?;
        Ok(Farm {
            stf: StfClient::new(url, &config.token, config.ca_file.as_deref())
                .map_err(|e| format!("--farm: {e}"))?,
            adb_server: config.adb_server,
            adb_key: config.adb_key,
            idle: config.idle,
            key_sent: Mutex::new(false),
            lent: Mutex::default(),
            pending: Mutex::default(),
        })
    }

    /// The farm's address.
    pub(crate) fn url(&self) -> &str {
        &self.stf.url
    }

    fn lent(&self) -> std::sync::MutexGuard<'_, HashMap<String, Lent>> {
        self.lent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The farm's devices.
    pub(crate) async fn list(&self) -> Result<Vec<StfDevice>, String> {
        self.stf.devices().await.map_err(|e| self.worded(e, None))
    }

    /// The device id the farm lent under `id_or_serial`, if it did.
    pub(crate) fn lent_id(&self, id_or_serial: &str) -> Option<String> {
        let lent = self.lent();
        if lent.contains_key(id_or_serial) {
            return Some(id_or_serial.to_string());
        }
        lent.iter()
            .find(|(_, l)| l.serial == id_or_serial)
            .map(|(id, _)| id.clone())
    }

    /// Leases a device matching `wanted` for `session`, starts its remote adb and connects
    /// it on our adb server. The device id is its remote address.
    pub(crate) async fn allocate(
        &self,
        session: u64,
        wanted: &Wanted<'_>,
    ) -> Result<Allocation, String> {
        let devices = self.list().await?;
        let matches: Vec<&StfDevice> = devices.iter().filter(|d| wanted.fits(d)).collect();
        let free: Vec<&&StfDevice> = matches.iter().filter(|d| d.state == "free").collect();
        if free.is_empty() {
            return Err(if matches.is_empty() {
                format!(
                    "No device of the farm {} matches {}; call mobile_list_remote_devices to see its devices.",
                    self.stf.url,
                    wanted.describe()
                )
            } else {
                format!(
                    "Every device of the farm {} that matches {} is in use or unavailable ({}); try again later or call mobile_list_remote_devices for others.",
                    self.stf.url,
                    wanted.describe(),
                    matches
                        .iter()
                        .map(|d| format!("{}: {}", d.serial, d.state))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
        }
        // A free device can be taken between the listing and the lease (STF answers 403):
        // the next free one is tried.
        let mut taken = Vec::new();
        let mut leased = None;
        for d in free {
            match self.stf.add(&d.serial, self.idle).await {
                Ok(()) => {
                    leased = Some(*d);
                    break;
                }
                Err(StfError::Forbidden(_)) => taken.push(d.serial.clone()),
                Err(e) => return Err(self.worded(e, Some(&d.serial))),
            }
        }
        let Some(pick) = leased else {
            return Err(format!(
                "The farm's free devices that match {} were taken by someone else meanwhile ({}); call mobile_list_remote_devices and try again.",
                wanted.describe(),
                taken.join(", ")
            ));
        };
        let serial = pick.serial.clone();
        match self.connect(&serial).await {
            Ok(remote) => {
                self.lent().insert(
                    remote.clone(),
                    Lent {
                        serial: serial.clone(),
                        remote: remote.clone(),
                        session,
                    },
                );
                Ok(Allocation {
                    device: remote,
                    serial,
                    model: pick.model.clone(),
                    version: pick.version.clone(),
                    idle_timeout_seconds: self.idle.as_secs(),
                })
            }
            Err(why) => {
                let _ = self.stf.remote_disconnect(&serial).await;
                let _ = self.stf.remove(&serial).await;
                Err(why)
            }
        }
    }

    /// Registers our key, starts remote adb and connects it on our adb server.
    async fn connect(&self, serial: &str) -> Result<String, String> {
        self.send_key().await?;
        let remote = self
            .stf
            .remote_connect(serial)
            .await
            .map_err(|e| self.worded(e, Some(serial)))?;
        let target = resolve(&remote).await?;
        mobile_android::remote::connect(self.adb_server, &target)
            .await
            .map_err(|why| {
                format!(
                    "The farm lent {serial} with remote adb at {remote}, but the adb server at {} could not connect to it: {why}. Check that this machine reaches {remote} and that the adb server's key is registered with the farm; the device was given back.",
                    self.adb_server
                )
            })?;
        Ok(target)
    }

    /// Registers the adb server's public key with the farm, once.
    async fn send_key(&self) -> Result<(), String> {
        if *self.key_sent.lock().unwrap_or_else(|p| p.into_inner()) {
            return Ok(());
        }
        let Some(path) = &self.adb_key else {
            return Ok(());
        };
        let Ok(key) = std::fs::read_to_string(path) else {
            tracing::warn!(path = %path.display(), "no adb public key to register with the farm; remote adb may refuse this adb server");
            return Ok(());
        };
        self.stf
            .add_adb_key(key.trim())
            .await
            .map_err(|e| self.worded(e, None))?;
        *self.key_sent.lock().unwrap_or_else(|p| p.into_inner()) = true;
        Ok(())
    }

    /// Gives back the device `id` that `session` holds.
    pub(crate) async fn release(&self, session: u64, id: &str) -> Result<String, String> {
        let lent = {
            let mut lent = self.lent();
            match lent.get(id) {
                Some(l) if l.session == session => lent.remove(id),
                Some(_) => {
                    return Err(format!(
                        "Device {id} was allocated by another session; only that session can release it (it is released when that session ends)."
                    ));
                }
                None => None,
            }
        };
        let Some(lent) = lent else {
            return Err(format!(
                "Device {id} was not allocated from the farm by this server; mobile_release_remote_device releases what mobile_allocate_remote_device allocated."
            ));
        };
        self.give_back(&lent).await
    }

    /// Disconnects, stops remote adb and ends the farm's lease; each step is tried.
    async fn give_back(&self, lent: &Lent) -> Result<String, String> {
        let mut problems = Vec::new();
        if let Err(e) = mobile_android::remote::disconnect(self.adb_server, &lent.remote).await {
            problems.push(format!("adb disconnect: {e}"));
        }
        if let Err(e) = self.stf.remote_disconnect(&lent.serial).await {
            problems.push(format!(
                "stopping remote adb: {}",
                self.worded(e, Some(&lent.serial))
            ));
        }
        match self.stf.remove(&lent.serial).await {
            Ok(()) => {}
            // Freed meanwhile (idle timeout): nothing left to give back.
            Err(StfError::Forbidden(_)) => {}
            Err(e) => problems.push(format!("releasing: {}", self.worded(e, Some(&lent.serial)))),
        }
        tracing::info!(serial = %lent.serial, device = %lent.remote, "farm device released");
        if problems.is_empty() {
            Ok(format!(
                "Released {} ({}) back to the farm.",
                lent.serial, lent.remote
            ))
        } else {
            Err(format!(
                "Released {} with problems: {}. The farm frees it by itself after its idle timeout.",
                lent.serial,
                problems.join("; ")
            ))
        }
    }

    /// Gives back everything `session` holds (the session ended).
    pub(crate) async fn end_session(&self, session: u64) {
        let mine: Vec<Lent> = {
            let mut lent = self.lent();
            let ids: Vec<String> = lent
                .iter()
                .filter(|(_, l)| l.session == session)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| lent.remove(id)).collect()
        };
        for l in mine {
            if let Err(e) = self.give_back(&l).await {
                tracing::warn!("{e}");
            }
        }
    }

    /// Gives back, in a task of its own, everything `session` holds (the session ended;
    /// called where nothing can wait for it).
    pub(crate) fn end_session_later(self: &std::sync::Arc<Self>, session: u64) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let farm = self.clone();
        let task = rt.spawn(async move { farm.end_session(session).await });
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.retain(|t| !t.is_finished());
        pending.push(task);
    }

    /// Gives back everything (the server is stopping), after the give-backs of sessions
    /// that ended just before.
    pub async fn release_all(&self) {
        let pending: Vec<_> = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for t in pending {
            let _ = t.await;
        }
        let all: Vec<Lent> = self.lent().drain().map(|(_, l)| l).collect();
        for l in all {
            if let Err(e) = self.give_back(&l).await {
                tracing::warn!("{e}");
            }
        }
    }

    /// An STF error worded with what to do.
    fn worded(&self, e: StfError, serial: Option<&str>) -> String {
        let url = &self.stf.url;
        let dev = serial.map(|s| format!("device {s}: ")).unwrap_or_default();
        match e {
            StfError::Unreachable(why) => format!(
                "Cannot reach the farm at {url} ({why}). Check the --farm address and that STF is up."
            ),
            StfError::Untrusted(host, why) => format!(
                "The farm at {url} was not reached: the TLS certificate {host} presented is not trusted ({why}). If the farm uses an internal certificate authority, give its CA certificate (PEM) with --farm-ca-file and restart the server; if it was issued for another name, use that name in --farm."
            ),
            StfError::Handshake(host, why) => format!(
                "Cannot reach the farm at {url}: the TLS handshake with {host} failed ({why}). Check that the --farm address speaks https at that port."
            ),
            StfError::Unauthorized(why) => format!(
                "The farm at {url} refused the access token ({why}). Create an access token in STF (Settings, Keys, Access Tokens), put it in the --farm-token-file, and restart the server."
            ),
            StfError::Forbidden(why) => format!(
                "The farm refused {dev}{why}. Someone else has it now; call mobile_list_remote_devices and pick a free one."
            ),
            StfError::NotFound(why) => format!(
                "The farm has no {dev}{why}; call mobile_list_remote_devices to see its devices."
            ),
            StfError::Other(status, why) => {
                format!("The farm at {url} answered {status}: {dev}{why}. Try again later.")
            }
        }
    }
}

/// A token must be one non-empty line.
fn check_token(token: &str) -> Result<(), String> {
    let t = token.trim();
    if t.is_empty() || t.contains(char::is_whitespace) {
        return Err("--farm-token-file: the file must hold one access token".into());
    }
    Ok(())
}

/// `HOST:PORT` as an IPv4 `IP:PORT` (what adb's host protocol connects to here).
async fn resolve(remote: &str) -> Result<String, String> {
    let addrs = tokio::net::lookup_host(remote)
        .await
        .map_err(|e| format!("The farm's remote adb address {remote} does not resolve: {e}"))?;
    addrs
        .filter_map(|a| match a {
            std::net::SocketAddr::V4(v4) => Some(v4.to_string()),
            std::net::SocketAddr::V6(_) => None,
        })
        .next()
        .ok_or_else(|| format!("The farm's remote adb address {remote} has no IPv4 address"))
}

impl Wanted<'_> {
    fn fits(&self, d: &StfDevice) -> bool {
        if let Some(s) = self.serial
            && d.serial != s
        {
            return false;
        }
        if let Some(n) = self.name {
            let model = d.model.as_deref().unwrap_or("").to_lowercase();
            let n = n.to_lowercase();
            let ok = match n.strip_suffix('*') {
                Some(prefix) => model.starts_with(prefix),
                None => model == n,
            };
            if !ok {
                return false;
            }
        }
        self.version
            .iter()
            .all(|v| version_fits(d.version.as_deref().unwrap_or(""), v))
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = self.serial {
            parts.push(format!("serial {s}"));
        }
        if let Some(n) = self.name {
            parts.push(format!("name {n}"));
        }
        for v in self.version {
            parts.push(format!("version {v}"));
        }
        if parts.is_empty() {
            "any Android device".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Whether Android release `have` passes `filter` (`14`, `>=12`, `>12`, `<=13`, `<15`).
fn version_fits(have: &str, filter: &str) -> bool {
    let f = filter.trim();
    let (op, want) = ["<=", ">=", "<", ">"]
        .iter()
        .find_map(|op| f.strip_prefix(op).map(|rest| (*op, rest.trim())))
        .unwrap_or(("=", f));
    let parse = |s: &str| -> Vec<u64> {
        s.split('.')
            .map(|p| p.trim().parse::<u64>().unwrap_or(0))
            .collect()
    };
    if op == "=" {
        let (h, w) = (parse(have), parse(want));
        return h.iter().zip(&w).all(|(a, b)| a == b) && h.len() >= w.len();
    }
    let ord = parse(have).cmp(&parse(want));
    match op {
        ">=" => ord.is_ge(),
        ">" => ord.is_gt(),
        "<=" => ord.is_le(),
        _ => ord.is_lt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_filters() {
        assert!(version_fits("14", "14"));
        assert!(version_fits("14.0.1", "14"));
        assert!(!version_fits("13", "14"));
        assert!(version_fits("14", ">=12"));
        assert!(!version_fits("11", ">=12"));
        assert!(version_fits("12", "<13"));
        assert!(!version_fits("13", "<13"));
    }

    #[test]
    fn names() {
        let d = StfDevice {
            serial: "A".into(),
            model: Some("Pixel 7".into()),
            manufacturer: None,
            version: Some("14".into()),
            state: "free".into(),
            owner: None,
        };
        let w = |name| Wanted {
            name: Some(name),
            ..Wanted::default()
        };
        assert!(w("pixel*").fits(&d));
        assert!(w("Pixel 7").fits(&d));
        assert!(!w("Pixel").fits(&d));
    }
}
