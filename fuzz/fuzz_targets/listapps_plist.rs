//! The `simctl listapps` (OpenStep plist) parser never panics on any bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mobile_ios::parse::listapps::parse_listapps(data);
});
