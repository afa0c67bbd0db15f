//! `mobile-mcp`: the MCP server that lets AI agents operate Android phones and iOS
//! simulators.
//!
//! This crate wires the tool catalogue ([`tools::MobileServer`]) to the device backends
//! through a [`mobile_device::DeviceRegistry`], and serves it over stdio or Streamable
//! HTTP. Cross-cutting behaviour (the payload filter, auth, tool policy) wraps the
//! service; tool bodies only talk to the `Device` trait.
//!
//! Not for: talking to devices (see `mobile-android`, `mobile-ios`) or filtering text
//! (see `mcp-payload-filter`).
//!
//! ```no_run
//! use std::sync::Arc;
//! use mobile_device::DeviceRegistry;
//! use mobile_mcp::tools::{MobileServer, ServerOptions};
//! let server = MobileServer::new(Arc::new(DeviceRegistry::new()), ServerOptions::default());
//! assert!(server.tools().iter().any(|t| t.name == "mobile_list_available_devices"));
//! ```
//!
//! Crates used: `rmcp` (the MCP SDK: protocol, macros, transports), `clap` (the CLI),
//! `tracing` (logs to stderr or a file, never stdout).

pub mod boundary;
pub mod files;
pub mod http;
pub mod memory;
pub mod output;
pub mod params;
pub mod policy;
pub mod redact;
pub mod schema;
pub mod tools;

pub use tools::{MobileServer, ServerOptions};
