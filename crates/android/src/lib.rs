//! `mobile-android`: the Android backend of mobile-mcp.
//!
//! [`AndroidBackend`] lists the devices of one or more adb servers and opens each as a
//! [`mobile_device::Device`]. Device commands go over the adb server's socket with
//! `adb_client` (no `adb` process per call); [`AndroidBackend::direct`] drives one adbd
//! over TCP with no server at all (the server's `--demo` mode with the virtual phone).
//!
//! Not for: MCP wiring (`mobile-mcp`), image scaling (`mobile_device::screenshot`).
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
//!   `transport`); on the server path the caller gets its timeout at once, while the
//!   blocking thread ends when the adb server ends the stream (adb_client keeps that
//!   socket private, so it cannot be closed early).
//! - Discovery never runs `adb` per call: it speaks the host protocol itself ([`host`]),
//!   and runs `adb -P PORT start-server` only when no server answers on a loopback
//!   port, at most every 30 s.
//! - Input events (taps, swipes, keys, text) to one device are serialized.
//! - Parsers in [`parse`] are pure and tested against `fixtures/android/`.
//!
//! Screenshots are captured raw (`screencap` without `-p`, handed on as
//! `CaptureFormat::Rgba8`): the PNG encode on a phone costs hundreds of milliseconds,
//! while USB and emulator links move the raw frame faster; devices on a real network
//! (adb over Wi-Fi) get `screencap -p` instead. The shared pipeline scales and encodes
//! once, on the host. The measurement is in [`device`] (`prefers_png`); each method's
//! doc comment lists its device commands and round trips.
//!
//! Multi-command operations run one command per shell session (never `a; b`): a
//! device line is always one quoted argv, which keeps injection auditing exact at
//! the cost of one extra round trip for `wm size`+`wm density`, orientation changes
//! and double taps.
//!
//! Crates used: `adb_client` (adb server and adbd protocols), `roxmltree` (uiautomator
//! XML), `base64` (text for the ADBKeyboard IME).

pub mod backend;
mod capture;
pub mod config;
pub mod device;
pub mod host;
pub mod parse;
pub mod quote;
mod transport;

pub use backend::AndroidBackend;
pub use config::{AndroidConfig, DEFAULT_SERVER, find_adb, parse_server};
pub use device::AndroidDevice;
