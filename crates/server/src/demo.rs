//! `--demo`: a virtual Android phone started in this process and reached through its
//! adb-server front end on loopback, so the demo runs the same `AndroidBackend` code a real
//! adb server gets (and needs no `adb` binary). Built only with the `demo` feature (on by
//! default); without it `--demo` says so.
//!
//! The phone is attached as a USB device with a fixed serial ([`DEMO_SERIAL`]), so its
//! device id is the same every time the server starts (a phone reached over the network
//! would be listed by a `host:port` with a new port each time).

use mobile_device::DeviceRegistry;

/// The demo phone's serial number, and so its device id, on every start.
#[cfg(feature = "demo")]
pub(crate) const DEMO_SERIAL: &str = "virtual-pixel-7";

/// Keeps the demo phone running while it lives.
pub(crate) struct Demo {
    #[cfg(feature = "demo")]
    _front_end: virtual_phone::AdbFrontEnd,
    #[cfg(feature = "demo")]
    _phone: virtual_phone::PhoneHandle,
}

/// Starts the demo phone and its adb-server front end, and registers an Android backend
/// that uses only that server (it never starts or looks for an `adb` binary).
#[cfg(feature = "demo")]
pub(crate) fn start(registry: &mut DeviceRegistry) -> anyhow::Result<Demo> {
    use anyhow::Context;
    use mobile_android::{AndroidBackend, AndroidConfig};
    use std::sync::Arc;
    use virtual_phone::{AdbFrontEnd, PhoneConfig, VirtualPhone};
    let phone = VirtualPhone::start(PhoneConfig {
        serial: Some(DEMO_SERIAL.to_string()),
        ..PhoneConfig::default()
    })
    .context("could not start the demo phone")?;
    let front_end = AdbFrontEnd::start_usb(&phone, "usb:1-1")
        .context("could not start the demo phone's adb server")?;
    tracing::info!(adb_server = %front_end.addr(), serial = %phone.device_serial(), "demo: virtual Android phone started");
    let config = AndroidConfig::only_server(front_end.addr());
    registry.register(Arc::new(DemoBackend {
        inner: AndroidBackend::new(config),
        serial: phone.device_serial(),
    }));
    Ok(Demo {
        _front_end: front_end,
        _phone: phone,
    })
}

/// The Android backend of the demo phone's adb server, listing the demo phone as what it
/// is. The virtual phone answers as a real Pixel 7 would (its properties have no `qemu`,
/// and adb lists it as a USB phone), so the Android
/// backend takes it for a real device; a person trying `--demo` would then read
/// "Pixel 7 (Android 14, real device, online)" about a phone that does not exist. Here it
/// is an emulator (a phone in software) named "Virtual Pixel 7".
#[cfg(feature = "demo")]
struct DemoBackend {
    inner: mobile_android::AndroidBackend,
    /// The demo phone's adb serial.
    serial: String,
}

#[cfg(feature = "demo")]
#[async_trait::async_trait]
impl mobile_device::DeviceBackend for DemoBackend {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn discover(&self) -> mobile_device::Discovery {
        let mut found = self.inner.discover().await;
        for d in &mut found.devices {
            if d.id == self.serial {
                describe_demo_phone(d);
            }
        }
        found
    }

    async fn open(
        &self,
        info: &mobile_device::DeviceInfo,
    ) -> mobile_device::Result<std::sync::Arc<dyn mobile_device::Device>> {
        self.inner.open(info).await
    }
}

/// The demo phone's listing entry: an emulator, named as the virtual phone it is.
#[cfg(feature = "demo")]
fn describe_demo_phone(d: &mut mobile_device::DeviceInfo) {
    d.kind = mobile_device::DeviceKind::Emulator;
    d.name = format!("Virtual {}", d.model.as_deref().unwrap_or("phone"));
}

/// This build has no demo phone.
#[cfg(not(feature = "demo"))]
pub(crate) fn start(_registry: &mut DeviceRegistry) -> anyhow::Result<Demo> {
    anyhow::bail!(
        "--demo is not available: this mobile-mcp was built without the `demo` feature \
         (build it with default features to get the virtual phone)"
    )
}
