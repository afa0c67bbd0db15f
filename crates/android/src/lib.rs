//! `mobile-android`: the Android backend of mobile-mcp.
//!
//! Talks to devices through the adb server's socket with `adb_client` (no `adb`
//! process per call). (Filled in by the Android backend issue.)
