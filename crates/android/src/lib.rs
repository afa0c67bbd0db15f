#![warn(missing_docs)]
//! `mobile-android`: the Android backend of mobile-mcp.
//!
//! [`AndroidBackend`] lists the devices of one or more adb servers and opens each as a
//! [`mobile_device::Device`] ([`AndroidDevice`]). Everything goes over the adb server's
//! socket (no `adb` process per call): shell commands in one connection each, skipping
//! the features query `adb_client` makes before every shell; files and installs with
//! `adb_client`.
//!
//! Layout:
//! - [`backend`] does discovery (the host protocol, ids, properties cached per
//!   connection) and opens devices; [`config`] holds the servers, the `adb` binary and
//!   the deadlines.
//! - [`device`] implements the `Device` trait, one file per area (apps, screen, input,
//!   files, logs, recording, what Android cannot do, how adb failures are worded).
//! - `adb` (crate-private): `adb::host` (host protocol), `adb::shell` (one shell through
//!   a server, hung up when its caller stops waiting), `adb::transport` (one device's
//!   `Link` and the deadline wrapper), `adb::output` (the one place that reads a
//!   command's output for failure).
//! - `capture` (crate-private): raw frame or PNG, chosen by measurement per device.
//! - [`parse`] has the pure parsers of device output, tested against `fixtures/android/`;
//!   [`quote`] is the one shell quoter.
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
//! Invariants:
//! - Everything that reaches a device's `sh` is an argv joined by [`quote::command`];
//!   nothing else builds shell text.
//! - Every device call runs on tokio's blocking pool under a deadline (30 s, installs
//!   and file transfers 5 min); a vanished device is an error, never a panic or a hang.
//!   A shell's connection is closed when its caller stops waiting (the deadline, or a
//!   cancelled tool call), which ends the command on the device too
//!   (`adb::shell::Hangup`); an install's upload stops at its next read; a push or pull
//!   gives its caller the timeout at once, and its blocking thread ends when the server
//!   ends the stream.
//! - Discovery never runs `adb` per call: it speaks the host protocol itself
//!   (`adb::host`), and runs `adb -P PORT start-server` only when no server answers on a
//!   loopback port, at most every 30 s, and only if [`AndroidConfig::start_server`]
//!   allows it.
//! - Input events (taps, swipes, keys, text) to one device are serialized.
//! - Whether an `am`/`pm`/`cmd`/`monkey`/`input`/`settings` command worked is read from
//!   its output by one rule per command (`adb::output`).
//! - Parsers in [`parse`] are pure and tested against `fixtures/android/`.
//!
//! Screenshots take whichever route has been faster on the device (`capture`): the raw
//! frame (`screencap`, no PNG encode on the phone; scaled while it streams in by
//! [`parse::screencap::RawFrameSink`], so the 10 MB frame is never held) or the phone's PNG
//! (`screencap -p`, about 10x fewer bytes). The first capture follows a guess from the link
//! (raw over USB and emulators, PNG over a real network), the second tries the other route.
//! The shared pipeline encodes once, on the host; each method's doc comment lists its device
//! commands and round trips.
//!
//! Multi-command operations run one command per shell session (never `a; b`): a
//! device line is always one quoted argv, which keeps injection auditing exact. Two
//! independent reads (`wm size` + `wm density`) are sent at once; orientation changes and
//! double taps cost one extra round trip.
//!
//! Crates used: `adb_client` (adb server protocol for files and installs), `roxmltree`
//! (uiautomator XML), `base64` (text for the ADBKeyboard IME).

mod adb;
pub mod backend;
mod capture;
pub mod config;
pub mod device;
pub mod parse;
pub mod quote;

pub use backend::AndroidBackend;
pub use config::{AndroidConfig, DEFAULT_SERVER, find_adb, parse_server};
pub use device::AndroidDevice;
