//! `--demo` types any language: the server's own virtual phone (Android 14) gets CJK,
//! Arabic, an emoji with a modifier and 2,000 mixed characters in the Notes editor's body
//! field, through the same helper and clipboard route a real phone gets; the field holds
//! exactly the text (read back through the tools, the only view of an in-process phone) and
//! the clip set before is the clip after.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{McpChild, text_of};

fn texts() -> Vec<String> {
    let mix = "你好，世界 مرحبا 👋🏽 café e\u{301} שלום\n日本語 ";
    vec![
        "你好，世界".into(),
        "مرحبا".into(),
        "👋🏽 café".into(),
        mix.chars().cycle().take(2000).collect(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_phone_takes_any_language_and_keeps_the_clipboard() {
    tokio::time::timeout(Duration::from_secs(180), async {
        for text in texts() {
            // A fresh phone per text, so the field starts empty.
            let mcp = McpChild::spawn(
                crate::SERVER,
                &["--demo"],
                &[("PATH".into(), "/nonexistent".into())],
            )
            .await;
            let r = mcp.call("mobile_list_available_devices", json!({})).await;
            let dev = r.structured_content.unwrap()["devices"][0]["id"].clone();
            mcp.ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": "com.example.notes"}),
            )
            .await;
            mcp.ok(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "New note"}),
            )
            .await;
            mcp.ok(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "id": "body_input"}),
            )
            .await;
            mcp.ok(
                "mobile_clipboard",
                json!({"device": dev, "text": "copied before"}),
            )
            .await;
            let r = mcp
                .call(
                    "mobile_type_keys",
                    json!({"device": dev, "text": text, "submit": false}),
                )
                .await;
            assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
            let r = mcp
                .call("mobile_list_elements_on_screen", json!({"device": dev}))
                .await;
            let elements: Value = r.structured_content.unwrap()["elements"].clone();
            let body = elements
                .as_array()
                .unwrap()
                .iter()
                .find(|e| {
                    e["identifier"]
                        .as_str()
                        .is_some_and(|id| id.ends_with("body_input"))
                })
                .unwrap_or_else(|| panic!("no body field in {elements}"));
            assert_eq!(body["text"].as_str(), Some(text.as_str()));
            assert_eq!(
                mcp.ok("mobile_clipboard", json!({"device": dev})).await,
                "copied before"
            );
        }
    })
    .await
    .expect("the demo typing test finished in time");
}
