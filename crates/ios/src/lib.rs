//! `mobile-ios`: the iOS simulator backend of mobile-mcp.
//!
//! Runs `xcrun simctl` and `idb` as child processes with argv arrays, never a
//! host shell. (Filled in by the iOS issue.)
