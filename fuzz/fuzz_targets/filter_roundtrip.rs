//! Encoding any string and decoding the result gives the string back, the encoded text holds no
//! filtered term, and neither step panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_payload_filter::Filter;

fuzz_target!(|text: &str| {
    let filter = Filter::global();
    let encoded = filter.encode_str(text);
    assert!(
        !filter.contains_term(&encoded),
        "term left in {encoded:?} (from {text:?})"
    );
    assert_eq!(filter.decode_str(&encoded), text);
});
