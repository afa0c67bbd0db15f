#![warn(missing_docs)]
//! `mobile-flow`: Maestro flows for mobile-mcp — read them, match elements the way
//! Maestro does, run them on any [`mobile_device::Device`], and write the flow an agent's
//! session amounts to.
//!
//! A flow is Maestro's YAML: a config document (`appId`, `name`, `tags`, `env`), a line
//! `---`, then a list of commands, each a map with one key (`- tapOn: OK`) or a bare
//! string (`- back`). The subset run here: `launchApp`, `tapOn`, `doubleTapOn`,
//! `longPressOn`, `inputText`, `eraseText` (50 characters by default), `assertVisible`,
//! `assertNotVisible`, `extendedWaitUntil` (`visible` / `notVisible` and `timeout`),
//! `scroll`, `swipe`, `scrollUntilVisible`, `back`, `pressKey`, `hideKeyboard`,
//! `openLink`, `waitForAnimationToEnd`, `takeScreenshot`, `runFlow` (a file relative to
//! the flow, or inline `commands`), `setLocation`, `repeat` (`times` / `while`), and
//! `${NAME}` variables. Every other command or key is an error naming its line
//! ([`read_flow`]), never skipped.
//!
//! - [`read_flow`] reads a flow ([`parse`]); [`Flow`] and its [`Step`]s are the model.
//! - [`find`] / [`find_all`] are Maestro's element matching rules, ported
//!   ([`matcher`] says which source files and what differs on a flat element list).
//! - [`run_flow`] runs a flow on a device, step by step with settle, and returns a
//!   [`FlowReport`]; [`junit`] writes reports as JUnit XML.
//! - [`export_flow`] turns [`RecordedStep`]s (what an agent did, on which element, and
//!   what it saw after) into a flow's text and the list of what could not be exported.
//!
//! - [`launch_options_from_step`] turns `launchApp` (stop first, `clearState`,
//!   `permissions`, `arguments`) into the device's `LaunchOptions`, with Maestro's
//!   defaults.
//!
//! Not for: device protocols (the backends; how a device clears an app or grants a
//! permission is theirs), MCP wiring (the server's `tools/flows.rs`).
//!
//! ```
//! use mobile_flow::{read_flow, ReadOptions};
//! let flow = read_flow("appId: com.example\n---\n- launchApp\n- tapOn: OK\n", &ReadOptions::default()).unwrap();
//! assert_eq!(flow.steps.len(), 2);
//! let err = read_flow("appId: a\n---\n- tapOn: OK\n- fly: away\n", &ReadOptions::default()).unwrap_err();
//! assert_eq!(err.line, 4);
//! ```
//!
//! Crates used: `saphyr-parser` (YAML events with their spans, so every error has a
//! line), `regex` (Maestro's selectors are regular expressions).

mod export;
pub mod matcher;
mod model;
pub mod parse;
mod record;
mod report;
mod runner;
mod yaml;

pub use export::{Export, export_flow, row_anchor};
pub use matcher::{find, find_all};
pub use model::*;
pub use parse::{FlowError, Loader, ReadOptions, read_flow};
pub use record::{RecordedAction, RecordedStep};
pub use report::{FlowReport, StepReport, junit};
pub use runner::{RunOptions, ScreenshotSink, launch_options_from_step, run_flow};

#[cfg(test)]
mod tests;
