//! `mcp-payload-filter`: replaces known vendor terms in MCP payloads with reversible tokens.
//!
//! Pure: no MCP types, no async, no I/O. The server's filter boundary calls it.
//! (Filled in by the payload-filter issue.)
