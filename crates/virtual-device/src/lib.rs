//! `virtual-device`: a stateful test phone for mobile-mcp's tests, benchmarks and `--demo`.
//!
//! Speaks the adbd wire protocol on loopback so the real adb server and `adb_client`
//! drive it as a phone; also provides fake `xcrun`/`idb` executables for a simulated
//! iPhone. Depends on none of the product crates.
//!
//! What it is not: an emulator. Nothing runs Android code; every program the phone offers
//! (`pm`, `am`, `input`, `dumpsys`, `uiautomator`, `screencap`, …) is modelled in
//! [`commands`] on top of [`state::PhoneState`], with output formats matched to real captures in
//! `fixtures/android/`. Command lines are split like the device's `sh` (see [`shell`]) and any
//! line with unquoted metacharacters is recorded as an injection attempt and not run.
//!
//! ```no_run
//! use virtual_device::{PhoneConfig, VirtualPhone, adb_server::PrivateAdbServer};
//! let phone = VirtualPhone::start(PhoneConfig::default())?;
//! let adb = PrivateAdbServer::start()?;
//! adb.connect(&phone)?;
//! let out = adb.adb(&["-s", &phone.serial(), "shell", "wm", "size"])?;
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "Physical size: 1080x2400\n");
//! assert!(phone.injections().is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Threads and `std::net` only, so it runs the same under tokio, in sync tests or in the binary.

pub mod adb_server;
pub mod apk;
pub mod commands;
mod connection;
pub mod ios;
pub mod layout;
mod phone;
pub mod protocol;
pub mod render;
pub mod scenario;
pub mod shell;
pub mod state;
mod sync;
pub mod uixml;

pub use apk::fake_apk;
pub use connection::DeviceStream;
pub use phone::{CommandRecord, PhoneConfig, PhoneHandle, VirtualPhone, load_state};
pub use state::PhoneState;
