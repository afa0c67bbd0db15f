//! `--demo`: a virtual Android phone started in this process and reached through its
//! adb-server front end on loopback, so the demo runs the same `AndroidBackend` code a real
//! adb server gets (and needs no `adb` binary). Built only with the `demo` feature (on by
//! default); without it `--demo` says so.

use mobile_device::DeviceRegistry;

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
    let phone =
        VirtualPhone::start(PhoneConfig::default()).context("could not start the demo phone")?;
    let front_end =
        AdbFrontEnd::start(&phone).context("could not start the demo phone's adb server")?;
    tracing::info!(adb_server = %front_end.addr(), serial = %phone.serial(), "demo: virtual Android phone started");
    let config = AndroidConfig::only_server(front_end.addr());
    registry.register(Arc::new(AndroidBackend::new(config)));
    Ok(Demo {
        _front_end: front_end,
        _phone: phone,
    })
}

/// This build has no demo phone.
#[cfg(not(feature = "demo"))]
pub(crate) fn start(_registry: &mut DeviceRegistry) -> anyhow::Result<Demo> {
    anyhow::bail!(
        "--demo is not available: this mobile-mcp was built without the `demo` feature \
         (build it with default features to get the virtual phone)"
    )
}
