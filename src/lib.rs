//! Support code for the end-to-end tests in `tests/`: spawning the built `mobile-mcp`
//! binary and wiring it to a virtual phone. Test code only; not published.
