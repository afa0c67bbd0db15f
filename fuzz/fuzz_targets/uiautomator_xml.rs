//! The uiautomator dump parser never panics, and every element it returns has a ref.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(xml) = mobile_android::parse::ui::extract_xml(text)
            && let Ok(elements) = mobile_android::parse::ui::parse_elements(xml)
        {
            for (i, e) in elements.iter().enumerate() {
                assert_eq!(e.reference, format!("@e{}", i + 1));
            }
        }
        let _ = mobile_android::parse::ui::parse_elements(text);
    }
});
