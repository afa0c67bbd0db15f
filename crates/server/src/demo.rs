//! `--demo`: a virtual Android phone started in this process, registered as the only
//! device. Built only with the `demo` feature (on by default); without it `--demo` says so.

use mobile_device::DeviceRegistry;

/// Keeps the demo phone running while it lives.
pub(crate) struct Demo {
    #[cfg(feature = "demo")]
    _phone: virtual_phone::PhoneHandle,
}

/// Starts the demo phone and registers a backend for it.
#[cfg(feature = "demo")]
pub(crate) fn start(registry: &mut DeviceRegistry) -> anyhow::Result<Demo> {
    use anyhow::Context;
    use mobile_android::AndroidBackend;
    use std::sync::Arc;
    use virtual_phone::{PhoneConfig, VirtualPhone};
    let phone =
        VirtualPhone::start(PhoneConfig::default()).context("could not start the demo phone")?;
    let addr = match phone.addr() {
        std::net::SocketAddr::V4(a) => a,
        other => anyhow::bail!("the demo phone listens on {other}, not IPv4"),
    };
    tracing::info!(%addr, "demo: virtual Android phone started");
    registry.register(Arc::new(AndroidBackend::direct(addr)));
    Ok(Demo { _phone: phone })
}

/// This build has no demo phone.
#[cfg(not(feature = "demo"))]
pub(crate) fn start(_registry: &mut DeviceRegistry) -> anyhow::Result<Demo> {
    anyhow::bail!(
        "--demo is not available: this mobile-mcp was built without the `demo` feature \
         (build it with default features to get the virtual phone)"
    )
}
