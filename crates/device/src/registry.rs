//! `DeviceRegistry`: the one place that lists devices across backends and resolves a
//! tool's `device` id to a `Device`.
//!
//! Backends register a [`DeviceBackend`]. Listing asks every backend; resolving an id
//! uses a cache first, so a tool call on a known device costs no discovery round trip.
//! Listing refreshes the cache and drops devices that went away. An id is one device of
//! one backend: an id two backends both report is listed with a note and refused, never
//! opened by the other backend. There is no "forget" on a failed call: a backend's device
//! re-establishes its own transport on the next call (an adb serial through its server, a
//! simulator's UDID), and a call on a device that is gone fails with the next step of
//! listing the devices, which drops it from the cache.
//!
//! Not for: talking to devices (the backends do) or wording errors for a tool (the server).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;

use crate::device::Device;
use crate::error::{DeviceError, NextStep, Result};
use crate::join::join_all;
use crate::types::DeviceInfo;

/// A source of devices: the adb servers, the simulators, a virtual phone.
#[async_trait]
pub trait DeviceBackend: Send + Sync + 'static {
    /// Short name for logs and notes (`android`, `ios-simulator`).
    fn name(&self) -> &str;
    /// Lists the devices this backend sees, including unusable ones with a hint.
    async fn discover(&self) -> Discovery;
    /// Opens a device from a listing entry of this backend.
    async fn open(&self, info: &DeviceInfo) -> Result<Arc<dyn Device>>;
}

/// Devices and what was looked for: what [`DeviceRegistry::list`] returns for all backends,
/// what a backend's [`DeviceBackend::discover`] returns for itself (as [`Discovery`]), and
/// the record the server's device list tool returns.
// The schema's root carries no description: the tool's outputSchema is only the fields'.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[schemars(description = "")]
pub struct Listing {
    /// Every device found, usable or not (see each one's `state` and `hint`).
    pub devices: Vec<DeviceInfo>,
    /// What was looked for and what failed (adb server address, xcrun).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What one backend found: its devices, and sentences about what it looked for and what
/// failed, for the model and the user (e.g. "no adb server answered at 127.0.0.1:5037
/// and no adb binary was found").
pub type Discovery = Listing;

struct Entry {
    backend: usize,
    device: Option<Arc<dyn Device>>,
}

/// Lists and resolves devices across backends.
#[derive(Default)]
pub struct DeviceRegistry {
    backends: Vec<Arc<dyn DeviceBackend>>,
    cache: Mutex<HashMap<String, Entry>>,
}

impl DeviceRegistry {
    /// A registry without backends.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a backend; listings ask it after those already added.
    pub fn register(&mut self, backend: Arc<dyn DeviceBackend>) {
        self.backends.push(backend);
    }

    /// The backends' names, in registration order.
    pub fn backend_names(&self) -> Vec<&str> {
        self.backends.iter().map(|b| b.name()).collect()
    }

    /// Asks every backend, in parallel, and refreshes the cache. An id that two backends
    /// both report is listed as each reported it, with a note, and cannot be resolved
    /// (it would be one backend's entry opened by the other).
    pub async fn list(&self) -> Listing {
        self.list_owned().await.0
    }

    /// The listing, and for each id the backends (by index) that reported it.
    async fn list_owned(&self) -> (Listing, HashMap<String, Vec<usize>>) {
        let found = join_all(self.backends.iter().map(|b| b.discover())).await;
        let mut listing = Listing::default();
        if self.backends.is_empty() {
            listing
                .notes
                .push("no device backend is enabled in this server".to_string());
        }
        let mut owners: HashMap<String, Vec<usize>> = HashMap::new();
        let mut usable = HashMap::new();
        for (i, d) in found.into_iter().enumerate() {
            for info in &d.devices {
                let by = owners.entry(info.id.clone()).or_default();
                if !by.contains(&i) {
                    by.push(i);
                }
                usable.insert(info.id.clone(), info.state.is_usable());
            }
            listing.devices.extend(d.devices);
            listing.notes.extend(d.notes);
        }
        let mut shared: Vec<(&String, &Vec<usize>)> =
            owners.iter().filter(|(_, by)| by.len() > 1).collect();
        shared.sort();
        for (id, by) in shared {
            listing.notes.push(format!(
                "device id {} is reported by several backends ({}), so it cannot be used until only one reports it",
                crate::input::excerpt(id),
                self.names_of(by)
            ));
        }
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.retain(|id, e| {
            owners.get(id).map(Vec::as_slice) == Some(&[e.backend][..])
                && usable.get(id) == Some(&true)
        });
        for (id, by) in &owners {
            if let [backend] = by[..] {
                cache.entry(id.clone()).or_insert(Entry {
                    backend,
                    device: None,
                });
            }
        }
        drop(cache);
        (listing, owners)
    }

    fn names_of(&self, backends: &[usize]) -> String {
        let names: Vec<&str> = backends.iter().map(|&b| self.backends[b].name()).collect();
        names.join(", ")
    }

    /// Resolves a tool's `device` argument.
    pub async fn resolve(&self, id: &str) -> Result<Arc<dyn Device>> {
        if let Some(d) = self.cached(id) {
            return Ok(d);
        }
        let (listing, owners) = self.list_owned().await;
        let Some(info) = listing.devices.iter().find(|d| d.id == id) else {
            let known: Vec<&str> = listing.devices.iter().map(|d| d.id.as_str()).collect();
            let hint = if known.is_empty() {
                nothing_found(&listing)
            } else {
                format!("Known devices: {}", known.join(", "))
            };
            return Err(DeviceError::NotFound {
                what: format!("Device {}", crate::input::excerpt(id)),
                hint: Some(hint),
                next: Some(NextStep::ListDevices),
            });
        };
        let backend = match owners.get(id).map(Vec::as_slice) {
            Some(&[backend]) => backend,
            Some(by) if by.len() > 1 => {
                return Err(DeviceError::backend_with_hint(
                    format!(
                        "Device {} is reported by several backends ({})",
                        crate::input::excerpt(id),
                        self.names_of(by)
                    ),
                    "The id does not say which device is meant; disconnect or shut down one of them, or turn one backend off",
                ));
            }
            by => {
                return Err(DeviceError::backend(format!(
                    "Device {} disappeared while it was being opened{}; try again",
                    crate::input::excerpt(id),
                    by.map(|b| format!(" ({})", self.names_of(b)))
                        .unwrap_or_default()
                )));
            }
        };
        if !info.state.is_usable() {
            return Err(DeviceError::Backend {
                message: format!("Device {} is {}", crate::input::excerpt(id), info.state),
                hint: info.hint.clone(),
                next: None,
            });
        }
        let device = self.backends[backend].open(info).await?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.insert(
            id.to_string(),
            Entry {
                backend,
                device: Some(device.clone()),
            },
        );
        Ok(device)
    }

    /// The id of the one usable device, for a call that names none: an error when no
    /// device is usable (saying what was looked for and what failed, e.g. that no adb
    /// server answered) or when several are (naming them).
    pub async fn sole_device(&self) -> Result<String> {
        let listing = self.list().await;
        let usable: Vec<&DeviceInfo> = listing
            .devices
            .iter()
            .filter(|d| d.state.is_usable())
            .collect();
        match usable.as_slice() {
            [one] => Ok(one.id.clone()),
            [] => Err(DeviceError::Backend {
                message: "No `device` was given, and there is no device to use".to_string(),
                hint: Some(if listing.devices.is_empty() {
                    nothing_found(&listing)
                } else {
                    let states: Vec<String> = listing
                        .devices
                        .iter()
                        .map(|d| format!("{} is {}", d.id, d.state))
                        .collect();
                    format!("None is usable: {}", states.join(", "))
                }),
                next: Some(NextStep::ListDevices),
            }),
            several => Err(DeviceError::InvalidInput(format!(
                "No `device` was given and {} devices are connected ({}); pass device with one of them",
                several.len(),
                several
                    .iter()
                    .map(|d| d.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn cached(&self, id: &str) -> Option<Arc<dyn Device>> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.get(id).and_then(|e| e.device.clone())
    }
}

/// Why a listing holds no device: what each backend looked for and what failed (an adb
/// server that did not answer, no xcrun), or that nothing is connected.
fn nothing_found(listing: &Listing) -> String {
    if listing.notes.is_empty() {
        "No devices are connected".to_string()
    } else {
        format!("No device was found ({})", listing.notes.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Phone(String);
    #[async_trait]
    impl Device for Phone {
        fn id(&self) -> &str {
            &self.0
        }
        fn platform(&self) -> Platform {
            Platform::Android
        }
        fn coordinate_unit(&self) -> crate::types::CoordinateUnit {
            crate::types::CoordinateUnit::Pixels
        }
    }

    struct Backend {
        ids: Vec<(&'static str, DeviceState)>,
        opens: AtomicUsize,
    }
    #[async_trait]
    impl DeviceBackend for Backend {
        fn name(&self) -> &str {
            "test"
        }
        async fn discover(&self) -> Discovery {
            Discovery {
                devices: self
                    .ids
                    .iter()
                    .map(|(id, st)| DeviceInfo {
                        id: id.to_string(),
                        name: id.to_string(),
                        platform: Platform::Android,
                        kind: DeviceKind::Emulator,
                        version: None,
                        state: st.clone(),
                        model: None,
                        hint: Some("run adb reconnect".into()),
                    })
                    .collect(),
                notes: vec!["looked at 127.0.0.1:5037".into()],
            }
        }
        async fn open(&self, info: &DeviceInfo) -> Result<Arc<dyn Device>> {
            self.opens.fetch_add(1, Ordering::SeqCst);
            Ok(Arc::new(Phone(info.id.clone())))
        }
    }

    #[tokio::test]
    async fn resolves_once_then_from_cache() {
        let b = Arc::new(Backend {
            ids: vec![("a", DeviceState::Online), ("b", DeviceState::Offline)],
            opens: AtomicUsize::new(0),
        });
        let mut r = DeviceRegistry::new();
        r.register(b.clone());
        assert_eq!(r.resolve("a").await.unwrap().id(), "a");
        assert_eq!(r.resolve("a").await.unwrap().id(), "a");
        assert_eq!(b.opens.load(Ordering::SeqCst), 1);
        let e = r.resolve("b").await.err().unwrap();
        assert_eq!(e.to_string(), "Device \"b\" is offline. run adb reconnect");
        let e = r.resolve("zz").await.err().unwrap();
        assert!(
            matches!(
                e,
                DeviceError::NotFound {
                    next: Some(NextStep::ListDevices),
                    ..
                }
            ),
            "{e}"
        );
        let e = e.to_string();
        assert!(e.contains("Device \"zz\" was not found"), "{e}");
        assert!(e.contains("list the devices"), "{e}");
        let l = r.list().await;
        assert_eq!(l.devices.len(), 2);
        assert_eq!(l.notes, vec!["looked at 127.0.0.1:5037".to_string()]);
    }

    /// A backend with a name, whose `open` records the entries it was given.
    struct Named {
        name: &'static str,
        ids: Vec<&'static str>,
        opened: Mutex<Vec<String>>,
    }
    #[async_trait]
    impl DeviceBackend for Named {
        fn name(&self) -> &str {
            self.name
        }
        async fn discover(&self) -> Discovery {
            Discovery {
                devices: self
                    .ids
                    .iter()
                    .map(|id| DeviceInfo {
                        id: id.to_string(),
                        name: format!("{id} of {}", self.name),
                        platform: Platform::Android,
                        kind: DeviceKind::Emulator,
                        version: None,
                        state: DeviceState::Online,
                        model: None,
                        hint: None,
                    })
                    .collect(),
                notes: vec![],
            }
        }
        async fn open(&self, info: &DeviceInfo) -> Result<Arc<dyn Device>> {
            self.opened.lock().unwrap().push(info.name.clone());
            Ok(Arc::new(Phone(info.id.clone())))
        }
    }

    #[tokio::test]
    async fn an_id_two_backends_report_is_refused_not_crossed() {
        let named = |name, ids| {
            Arc::new(Named {
                name,
                ids,
                opened: Mutex::new(vec![]),
            })
        };
        let android = named("android", vec!["same", "phone"]);
        let ios = named("ios-simulator", vec!["same", "sim"]);
        let mut r = DeviceRegistry::new();
        r.register(android.clone());
        r.register(ios.clone());
        let l = r.list().await;
        assert_eq!(l.devices.len(), 4, "both entries are listed as reported");
        assert!(
            l.notes
                .iter()
                .any(|n| n.contains("\"same\"") && n.contains("(android, ios-simulator)")),
            "{:?}",
            l.notes
        );
        let e = r
            .resolve("same")
            .await
            .err()
            .expect("a shared id is refused");
        let e = e.to_string();
        assert!(
            e.contains("Device \"same\" is reported by several backends (android, ios-simulator)"),
            "{e}"
        );
        assert!(android.opened.lock().unwrap().is_empty());
        assert!(ios.opened.lock().unwrap().is_empty());
        assert_eq!(r.resolve("phone").await.unwrap().id(), "phone");
        assert_eq!(r.resolve("sim").await.unwrap().id(), "sim");
        assert_eq!(*android.opened.lock().unwrap(), vec!["phone of android"]);
        assert_eq!(*ios.opened.lock().unwrap(), vec!["sim of ios-simulator"]);
    }

    #[tokio::test]
    async fn an_empty_listing_says_what_was_looked_for() {
        let mut r = DeviceRegistry::new();
        r.register(Arc::new(Backend {
            ids: vec![],
            opens: AtomicUsize::new(0),
        }));
        let e = r.resolve("zz").await.err().unwrap().to_string();
        assert!(e.contains("looked at 127.0.0.1:5037"), "{e}");
        assert!(!e.contains("No devices are connected"), "{e}");
        let e = r.sole_device().await.err().unwrap().to_string();
        assert!(e.starts_with("No `device` was given"), "{e}");
        assert!(e.contains("looked at 127.0.0.1:5037"), "{e}");
    }

    #[tokio::test]
    async fn the_sole_usable_device_is_chosen_and_several_are_named() {
        let mut r = DeviceRegistry::new();
        r.register(Arc::new(Backend {
            ids: vec![("a", DeviceState::Online), ("b", DeviceState::Offline)],
            opens: AtomicUsize::new(0),
        }));
        assert_eq!(r.sole_device().await.unwrap(), "a");
        let mut r = DeviceRegistry::new();
        r.register(Arc::new(Backend {
            ids: vec![("a", DeviceState::Online), ("c", DeviceState::Online)],
            opens: AtomicUsize::new(0),
        }));
        let e = r.sole_device().await.err().unwrap().to_string();
        assert!(e.contains("2 devices are connected (a, c)"), "{e}");
    }

    #[tokio::test]
    async fn no_backend_is_said() {
        let r = DeviceRegistry::new();
        let l = r.list().await;
        assert!(l.devices.is_empty());
        assert_eq!(l.notes.len(), 1);
    }
}
