//! `virtual-device`: a stateful test phone for mobile-mcp's tests, benchmarks and `--demo`.
//!
//! Speaks the adbd wire protocol on loopback so the real adb server and `adb_client`
//! drive it as a phone; also provides fake `xcrun`/`idb` executables for a simulated
//! iPhone. Depends on none of the product crates.

pub mod ios;
