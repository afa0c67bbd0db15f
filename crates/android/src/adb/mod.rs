//! The adb plumbing: how this crate talks to adb servers and, through them, to devices.
//!
//! - [`cap`]: how much of a command's output a call takes, chosen per call.
//! - [`host`]: the adb server's host protocol (discovery's requests, request framing).
//! - [`output`]: whether an Android command worked, read from what it printed.
//! - [`shell`]: one shell command through a server, in one connection, that can be hung up.
//! - [`transport`]: one device's [`transport::Link`] (shells, files, installs) and
//!   [`transport::run`]/[`transport::run_shell`], which move blocking adb
//!   work onto tokio's blocking pool under a deadline.

pub(crate) mod cap;
pub(crate) mod host;
pub(crate) mod output;
pub(crate) mod shell;
pub(crate) mod transport;

pub(crate) use cap::Cap;
pub(crate) use host::HostError;
pub(crate) use transport::{AdbResult, Hangup, Link, run_shell, run_transfer};
