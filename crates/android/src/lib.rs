#![warn(missing_docs)]
//! `mobile-android`: the Android backend of mobile-mcp.
//!
//! [`AndroidBackend`] lists the devices of one or more adb servers and opens each as a
//! [`mobile_device::Device`] ([`AndroidDevice`]). Everything goes over the adb server's
//! socket (no `adb` process per call): shell commands in one connection each, skipping
//! the features query `adb_client` makes before every shell; files and installs with
//! `adb_client`.
//!
//! Layout (every module private but [`parse`]; the crate's surface is what this page
//! re-exports):
//! - `backend` does discovery (the host protocol, ids, properties cached per
//!   connection) and opens devices; `config` holds the servers and the `adb` binary
//!   (the deadline of a device call is the caller's: a call stops when its future is
//!   dropped).
//! - `device` implements the `Device` trait, one file per area (apps, screen, input,
//!   files, logs, recording, what Android cannot do, how adb failures are worded), each
//!   method forwarded from the trait to its area's inherent method.
//! - `adb`: `adb::host` (host protocol), `adb::shell` (one shell through a server, hung
//!   up when its caller stops waiting), `adb::transport` (one device's `Link`, blocking
//!   work that stops when its caller drops it), `adb::output` (the one place that reads a
//!   command's output for failure).
//! - `capture`: raw frame or PNG, chosen by measurement per device.
//! - [`remote`]: `adb connect` / `adb disconnect` of a network address on an adb server
//!   (a farm's remote adb).
//! - `helper`: the on-device helper (a dex written here in smali, pushed
//!   once per device by content hash, started with `app_process`) and its protocol; it
//!   reaches the clipboard, through which non-ASCII text is pasted (`device::unicode`).
//! - [`parse`] has the pure parsers of device output, tested against `fixtures/android/`
//!   (public for the benches and `fuzz/`); `quote` is the one shell quoter, the only
//!   maker of a `ShellLine`.
//!
//! Not for: MCP wiring (`mobile-mcp`), image scaling (`mobile-screenshot`).
//!
//! ```no_run
//! use mobile_android::{AndroidBackend, AndroidConfig};
//! use mobile_device::DeviceBackend;
//! # async fn demo() {
//! let mut config = AndroidConfig::from_env(); // 127.0.0.1:5037, ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT
//! config.add_server("10.0.0.7:5037".parse().unwrap()); // its devices are "10.0.0.7:5037/SERIAL"
//! let backend = AndroidBackend::new(config);
//! let found = backend.discover().await;
//! for note in &found.notes { eprintln!("{note}"); }
//! // One server only, never started by the backend (no `adb` binary is run):
//! let _demo = AndroidBackend::new(AndroidConfig::only_server("127.0.0.1:15037".parse().unwrap()));
//! # }
//! ```
//!
//! The rules this crate keeps (one shell quoter, one command per shell session, round
//! trips counted per method, bounded reads, the server's deadline and what stops when a
//! call is dropped) are written once, in the repository's `ARCHITECTURE.md`.
//!
//! Crates used: `adb_client` (adb server protocol for files and installs), `roxmltree`
//! (uiautomator XML), `base64` (text to and from the on-device helper).

mod adb;
mod backend;
mod capture;
mod config;
mod device;
mod helper;
pub mod parse;
mod quote;
pub mod remote;

pub use backend::AndroidBackend;
pub use config::{AndroidConfig, DEFAULT_SERVER, find_adb, parse_server};
pub use device::AndroidDevice;
