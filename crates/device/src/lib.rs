//! `mobile-device`: what a device is to mobile-mcp.
//!
//! This crate holds the [`Device`] trait that every backend (Android, iOS simulator)
//! implements, the domain types the tools return, the validated input types the tools
//! take, the [`DeviceRegistry`] that resolves a tool's `device` id, and the one
//! screenshot pipeline. It knows nothing of MCP, adb or simctl.
//!
//! Not for: device protocols (see `mobile-android`, `mobile-ios`) or MCP wiring
//! (see `mobile-mcp`).
//!
//! ```
//! use mobile_device::{AppId, UrlPolicy, DeviceUrl};
//! assert!(AppId::parse("com.example.app").is_ok());
//! assert!(AppId::parse("com.x;reboot").is_err());
//! let url = DeviceUrl::parse("https://example.com").unwrap();
//! assert!(UrlPolicy::default().check(&url).is_ok());
//! ```
//!
//! Crates used: `async-trait` makes the trait object-safe with async methods
//! (`Arc<dyn Device>`); screenshots are processed in-process: `png` inflates captures row
//! by row, `jpeg-encoder` encodes 4:2:0 JPEG bands (joined and given fitted Huffman tables
//! by the private `jpeg` module) on the calling thread and one worker of `rayon-core`'s
//! global pool (a persistent thread with a scoped, borrow-checked API: bands borrow the
//! capture, and spawning a thread per screenshot cost ~65 µs twice), and `image` decodes
//! the rarer inputs and writes PNG output.

pub mod device;
pub mod error;
pub mod input;
mod jpeg;
pub mod registry;
pub mod screenshot;
pub mod types;

pub use device::{Device, ProgressFn};
pub use error::{DeviceError, Result};
pub use input::{
    AppId, BundleId, DevicePath, DeviceUrl, Locales, PackageName, UrlPolicy, ValidationError,
    excerpt,
};
pub use registry::{DeviceBackend, DeviceRegistry, Discovery, Listing};
pub use types::*;
