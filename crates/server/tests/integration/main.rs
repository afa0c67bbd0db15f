//! The server's one test target: end-to-end tests that run the built `mobile-mcp` binary
//! with real MCP clients against the virtual phone and the fake Xcode tools, and in-process
//! router tests of the tool catalogue. One binary to link instead of one per file.

/// The server binary cargo built for this test target.
pub(crate) const SERVER: &str = env!("CARGO_BIN_EXE_mobile-mcp");

mod agent_loop;
mod android_e2e;
mod android_profiles;
mod annotations_doc;
mod batch_limits;
mod big_install;
mod demo_listing;
mod demo_typing;
mod farm;
mod faults;
mod file_roots;
mod filter_stdio;
mod first_calls;
mod flows;
mod gestures;
mod http;
mod inflight;
mod install_races;
mod ios_e2e;
mod launch_state;
mod local_writes;
mod logging;
mod ocr;
mod path_cases;
mod phone_rig;
mod real_device;
mod release_version;
mod router;
mod screenshots;
mod stdio_backpressure;
mod stdio_catalogue;
mod stdio_framing;
mod strict_args;
mod words;
mod write_races;
