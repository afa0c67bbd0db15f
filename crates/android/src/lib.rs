//! `mobile-android`: the Android backend of mobile-mcp.
pub mod parse;
pub mod quote;
