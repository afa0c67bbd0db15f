//! What a person trying `--demo` reads in the device list: the virtual phone is named and
//! typed as the virtual phone it is, not as a real device (its properties are a real
//! Pixel 7's and adb lists it as a USB phone, by its serial number).

use std::time::Duration;

use serde_json::json;
use test_support::{McpChild, text_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_phone_is_listed_as_a_virtual_phone() {
    tokio::time::timeout(Duration::from_secs(120), async {
        let mcp = McpChild::spawn(
            crate::SERVER,
            &["--demo"],
            &[("PATH".into(), "/nonexistent".into())],
        )
        .await;
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let text = text_of(&r);
        let devices = r.structured_content.clone().unwrap()["devices"].clone();
        assert_eq!(devices.as_array().unwrap().len(), 1, "{devices}");
        let d = &devices[0];
        assert_eq!(d["type"], "emulator", "{d}");
        assert_eq!(d["name"], "Virtual Pixel 7", "{d}");
        assert_eq!(d["model"], "Pixel 7", "{d}");
        let id = d["id"].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "- {id}: Virtual Pixel 7 (Android 14, emulator, online)"
            )),
            "{text}"
        );
        assert!(!text.contains("real device"), "{text}");
        // The id still reaches the phone.
        let r = mcp
            .call("mobile_get_screen_size", json!({"device": id}))
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    })
    .await
    .expect("the demo listing test finished in time");
}
