//! `mobile-android`: the Android backend of mobile-mcp.
//!
//! [`AndroidBackend`] lists the devices of one or more adb servers and opens each as a
//! [`mobile_device::Device`]. Device commands go over the adb server's socket (no `adb`
//! process per call): shell commands in one connection each (`adb::shell`, which
//! skips the features query `adb_client` makes before every shell), everything else with
//! `adb_client`; [`AndroidBackend::direct`] drives one adbd over TCP with no server at all
//! (the server's `--demo` mode with the virtual phone).
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
//! # }
//! ```
//!
//! Invariants:
//! - Everything that reaches a device's `sh` is an argv joined by [`quote::command`];
//!   nothing else builds shell text.
//! - Every device call runs on tokio's blocking pool under a deadline (30 s, installs
//!   and file transfers 5 min); a vanished device is an error, never a panic or a hang.
//!   On the direct path a passed deadline also unblocks the stuck call (see
//!   `transport`). On the server path a shell's connection is closed when its caller
//!   stops waiting (the deadline, or a cancelled tool call), which ends the command on
//!   the device too (`adb::shell::Hangup`); a file transfer through the server gives
//!   its caller the timeout at once, and its blocking thread ends when the server ends
//!   the stream.
//! - Discovery never runs `adb` per call: it speaks the host protocol itself (`adb::host`),
//!   and runs `adb -P PORT start-server` only when no server answers on a loopback
//!   port, at most every 30 s.
//! - Input events (taps, swipes, keys, text) to one device are serialized.
//! - Parsers in [`parse`] are pure and tested against `fixtures/android/`.
//!
//! Screenshots take whichever route has been faster on the device (`capture.rs`): the raw
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
//! Crates used: `adb_client` (adb server and adbd protocols, but for the server's shell
//! request), `roxmltree` (uiautomator
//! XML), `base64` (text for the ADBKeyboard IME).

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
