//! The `simctl list devices -j` and `idb ui describe-all` parsers never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = mobile_ios::parse::devices::parse_list_devices(text);
        if let Ok(roots) = mobile_ios::parse::describe_all::parse_describe_all(text) {
            let _ = mobile_ios::parse::describe_all::to_elements(&roots);
        }
    }
});
