#![warn(missing_docs)]
// stdout carries MCP messages only; logs go through `tracing` to stderr or a file.
#![deny(clippy::print_stdout, clippy::print_stderr)]
//! `mobile-mcp`: the MCP server that lets AI agents operate Android phones and iOS
//! simulators.
//!
//! This crate wires the tool catalogue ([`MobileServer`]) to the device backends
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
//! use mobile_mcp::{MobileServer, ServerOptions};
//! let server = MobileServer::new(Arc::new(DeviceRegistry::new()), ServerOptions::default());
//! assert!(server.tools().iter().any(|t| t.name == "mobile_list_available_devices"));
//! ```
//!
//! Crates used: `rmcp` (the MCP SDK: protocol, macros, transports), `clap` (the CLI),
//! `tracing` (logs to stderr or a file, never stdout).

mod agent;
mod arg_errors;
mod boundary;
mod farm;
mod files;
mod http;
mod inflight;
mod lease;
mod memory;
mod output;
mod params;
mod policy;
mod redact;
mod schema;
mod tools;

pub use boundary::{Boundary, FilterTransportError, FilteringTransport, LineTransport};
pub use farm::{Farm, FarmConfig};
pub use files::FileRoots;
pub use http::{HttpConfig, serve as serve_http};
pub use lease::LeasePolicy;
pub use memory::tune as tune_allocator;
pub use policy::ToolPolicy;
pub use schema::strictness_problems;
pub use tools::{MobileServer, ServerOptions};
