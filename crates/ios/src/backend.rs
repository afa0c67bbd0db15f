//! [`IosBackend`]: discovery of simulators and opening them as devices.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mobile_device::{
    Device, DeviceBackend, DeviceError, DeviceInfo, DeviceKind, DeviceState, Discovery, Platform,
    Result,
};

use crate::config::IosConfig;
use crate::errors::{self, Context};
use crate::parse::{SimDevice, parse_list_devices};
use crate::simulator::SimulatorDevice;
use crate::tools::{Tools, argv};

/// The `ios-simulator` backend: every simulator `simctl` knows, booted or not.
pub struct IosBackend {
    config: IosConfig,
    /// The tools as the listing runs them, each run bounded by the configured timeout.
    tools: Arc<Tools>,
    /// The tools as a device's calls run them: unbounded here, since the caller's deadline
    /// drops a call (and kills its child).
    device_tools: Arc<Tools>,
    /// Opened devices, kept so per-device state (a running recording) survives a
    /// registry that forgets and reopens the device.
    opened: Mutex<HashMap<String, Arc<SimulatorDevice>>>,
}

impl IosBackend {
    /// A backend that runs the tools `config` names.
    pub fn new(config: IosConfig) -> Self {
        let tools = Arc::new(Tools {
            xcrun: config.xcrun.clone(),
            idb: config.idb.clone(),
            timeout: Some(config.timeout),
            env: config.env.clone(),
        });
        let device_tools = Arc::new(Tools {
            timeout: None,
            ..(*tools).clone()
        });
        IosBackend {
            config,
            tools,
            device_tools,
            opened: Mutex::new(HashMap::new()),
        }
    }

    /// [`IosBackend::new`] with [`IosConfig::from_env`].
    pub fn from_env() -> Self {
        Self::new(IosConfig::from_env())
    }

    /// The configuration this backend was made with.
    pub fn config(&self) -> &IosConfig {
        &self.config
    }

    /// Lists simulators, or says why it could not.
    pub async fn simulators(&self) -> Result<Vec<SimDevice>> {
        let out = self
            .tools
            .simctl(argv!["list", "devices", "-j"], "listing simulators")
            .await?;
        if !out.success() {
            return Err(errors::simctl_error(
                &Context {
                    udid: "-",
                    action: "list",
                    subject: None,
                },
                &out,
            ));
        }
        parse_list_devices(&out.stdout_text()).map_err(|e| DeviceError::backend(e.to_string()))
    }
}

/// How a simulator appears in the device list.
pub(crate) fn device_info(d: &SimDevice) -> DeviceInfo {
    let (state, hint) = if !d.available {
        (
            DeviceState::Other("unavailable".into()),
            Some(format!(
                "This simulator cannot run: {}. Install its runtime (Xcode > Settings > Components) or delete it with `xcrun simctl delete {}`",
                d.availability_error
                    .as_deref()
                    .unwrap_or("its runtime is missing"),
                d.udid
            )),
        )
    } else {
        match d.state.as_str() {
            "Booted" => (DeviceState::Online, None),
            "Shutdown" => (
                DeviceState::Shutdown,
                Some(format!(
                    "Boot it with `xcrun simctl boot {}` (or open it in Simulator.app)",
                    d.udid
                )),
            ),
            "Booting" => (
                DeviceState::Other("booting".into()),
                Some(format!(
                    "It is booting; wait with `xcrun simctl bootstatus {}`",
                    d.udid
                )),
            ),
            other => (
                DeviceState::Other(other.to_ascii_lowercase()),
                Some(format!(
                    "Wait until it is booted, or boot it with `xcrun simctl boot {}`",
                    d.udid
                )),
            ),
        }
    };
    DeviceInfo {
        id: d.udid.clone(),
        name: d.name.clone(),
        platform: Platform::Ios,
        kind: DeviceKind::Simulator,
        version: d.version.clone(),
        state,
        model: d.model(),
        hint,
    }
}

#[async_trait]
impl DeviceBackend for IosBackend {
    fn name(&self) -> &str {
        "ios-simulator"
    }

    async fn discover(&self) -> Discovery {
        let mut discovery = Discovery::default();
        if self.tools.xcrun.is_none() {
            discovery.notes.push(format!(
                "iOS simulators: xcrun was not found (looked in {}); iOS simulators need macOS with Xcode installed",
                self.config.searched
            ));
            return discovery;
        }
        match self.simulators().await {
            Ok(sims) => {
                let mut other_os = 0;
                for d in &sims {
                    if d.os.as_deref().is_some_and(|os| os != "iOS") {
                        other_os += 1;
                        continue;
                    }
                    discovery.devices.push(device_info(d));
                }
                if other_os > 0 {
                    discovery.notes.push(format!(
                        "iOS simulators: skipped {other_os} tvOS/watchOS/visionOS simulator(s)"
                    ));
                }
                if self.tools.idb.is_none() && sims.iter().any(SimDevice::is_booted) {
                    discovery.notes.push(
                        "iOS simulators: idb was not found, so listing elements, tapping, swiping, typing and buttons will not work; install it with `brew install facebook/fb/idb-companion` and `pip install fb-idb`".to_string(),
                    );
                }
            }
            Err(e) => discovery
                .notes
                .push(format!("iOS simulators: could not list them: {e}")),
        }
        discovery
    }

    async fn open(&self, info: &DeviceInfo) -> Result<Arc<dyn Device>> {
        let mut opened = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        let dev = opened
            .entry(info.id.clone())
            .or_insert_with(|| {
                Arc::new(SimulatorDevice::new(
                    info.id.clone(),
                    info.name.clone(),
                    info.model.clone(),
                    self.device_tools.clone(),
                ))
            })
            .clone();
        Ok(dev)
    }
}
