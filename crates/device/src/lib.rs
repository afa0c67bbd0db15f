#![warn(missing_docs)]
//! `mobile-device`: what a device is to mobile-mcp.
//!
//! This crate holds the [`Device`] trait that every backend (Android, iOS simulator)
//! implements, the domain types the tools return, the validated input types the tools
//! take, the [`DeviceRegistry`] that resolves a tool's `device` id, and what a caller asks
//! of a screenshot ([`ScreenshotOptions`]), and the one wait until a screen stops changing
//! ([`settle`], used by the server after an action and by the flow runner between steps).
//! It knows nothing of MCP, adb or simctl, and has no image stack: the pipeline is
//! `mobile-screenshot`.
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
//! (`Arc<dyn Device>`); `tokio` times the settle wait.

mod bounds;
mod button;
mod capture;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod device;
mod error;
mod fingerprint;
mod input;
mod join;
mod launch;
mod package;
mod posture;
mod registry;
pub mod settle;
mod types;

pub use bounds::{
    DelayMillis, GestureMillis, Latitude, LogLimit, Longitude, RecordingLimit,
    number as lenient_number,
};
pub use button::{Button, ButtonScope};
pub use capture::{DEFAULT_JPEG_QUALITY, DEFAULT_MAX_SIZE, OutputFormat, ScreenshotOptions};
pub use device::{Device, ProgressFn};
pub use error::{DeviceError, NextStep, Result};
pub use fingerprint::{ScreenFingerprint, SettleSignal};
pub use input::{
    AppId, BundleId, DevicePath, DeviceUrl, Locales, PackageName, UrlPolicy, ValidationError,
    excerpt,
};
pub use join::join_all;
pub use launch::{
    ArgumentKey, ArgumentValue, LaunchArguments, LaunchOptions, LaunchReport, MAX_ARGUMENT_TEXT,
    MAX_LAUNCH_ENTRIES, PermissionChange, PermissionName, PermissionValue, Permissions,
};
pub use package::{AppPackage, PackageContent};
pub use posture::{FoldState, Posture};
pub use registry::{DeviceBackend, DeviceRegistry, Discovery, Listing};
pub use types::*;
