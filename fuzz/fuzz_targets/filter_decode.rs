//! Decoding arbitrary text (what a client may send) never panics, and a decoded JSON value
//! either succeeds or reports a key collision.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_payload_filter::Filter;

fuzz_target!(|data: &[u8]| {
    let filter = Filter::global();
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = filter.decode_str(text);
        if let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) {
            let _ = filter.decode_message(&mut value);
        }
    }
});
