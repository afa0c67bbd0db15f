//! `mobile-ios`: the iOS simulator backend of mobile-mcp.
//!
//! [`IosBackend`] lists simulators with `xcrun simctl list devices -j` and opens each as
//! a [`SimulatorDevice`], which implements [`mobile_device::Device`] by running
//! `xcrun simctl` (apps, URLs, screenshots, logs, recording, clipboard, location) and
//! `idb` (accessibility tree, taps, swipes, typing, buttons, rotation) as child processes:
//! argv arrays, never a host shell; stderr kept for the error; the child killed when a
//! call is dropped (the deadline is the caller's, the server's).
//!
//! For: the server, which registers an [`IosBackend`] beside the Android one. Errors are
//! [`mobile_device::DeviceError`]s whose messages name no MCP tool: where the model
//! should do something next (list the simulators, the apps, the screen's elements) the
//! error carries a [`mobile_device::NextStep`] that the server words.
//!
//! Not for: real iOS devices, or anything needing an agent app on the simulator.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mobile_device::DeviceRegistry;
//! use mobile_ios::{IosBackend, IosConfig};
//!
//! let mut registry = DeviceRegistry::new();
//! registry.register(Arc::new(IosBackend::new(IosConfig::from_env())));
//! ```
//!
//! Coordinates are points, origin top-left, as idb takes them; screenshots are pixels
//! (points × scale). Orientation is read from the screenshot's shape (every simulator
//! profile is portrait) and set with `idb ui rotate`. Not handled: idb's HID taps stay
//! in portrait space on a rotated simulator, so taps in landscape are not remapped yet.
//!
//! Parsers are pure functions in [`parse`] (public for `fuzz/`), tested against captures
//! in `fixtures/ios/`; every other module is private, and the crate's surface is what
//! this page re-exports. `simulator/` has the same shape as Android's device module: one
//! file per area and a `Device` impl that only forwards.
//! `tests/simulator/` drives [`IosBackend`] against `fake-xcrun`/`fake-idb` from the
//! `fake-xcode` test crate; with `MOBILE_MCP_TEST_IOS=1` on a Mac, its real-capable tests
//! run against the real tools instead.
//! Crates used: `plist` reads `simctl listapps`' OpenStep plist (its ASCII reader), so
//! no `plutil` is needed; `zip` unpacks zipped `.app` bundles for install; `tempfile`
//! holds screenshots and unpacked bundles.

#![warn(missing_docs)]

mod backend;
mod config;
mod errors;
pub mod parse;
mod process;
mod screen;
mod simulator;
mod tools;

pub use backend::IosBackend;
pub use config::{DEFAULT_TIMEOUT, IDB_ENV, IosConfig, XCRUN_ENV};
pub use simulator::SimulatorDevice;
