//! The end-to-end suite against a real Android device or emulator, for the hosted-runner
//! workflow (`.github/workflows/emulator.yml`). Ignored by default: run it with
//! `MOBILE_MCP_TEST_SERIAL=<serial> cargo test -p mobile-mcp --test integration real_device -- --ignored`
//! with the device connected to the adb server at 127.0.0.1:5037. Its expectations hold on
//! any stock Android image (Settings exists, a launcher answers HOME); app-specific checks
//! live in `android_e2e.rs`, against the virtual phone.

use std::time::Duration;

use base64::Engine;
use rmcp::model::ContentBlock;
use serde_json::json;
use test_support::{McpChild, text_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MOBILE_MCP_TEST_SERIAL and a real device or emulator"]
async fn stock_android_device() {
    let serial = std::env::var("MOBILE_MCP_TEST_SERIAL")
        .expect("set MOBILE_MCP_TEST_SERIAL to the device's adb serial");
    tokio::time::timeout(Duration::from_secs(600), async {
        let mcp = McpChild::spawn(crate::SERVER, &[], &[]).await;
        let dev = json!(serial);
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let devices = r.structured_content.unwrap()["devices"].clone();
        assert!(
            devices.as_array().unwrap().iter().any(|d| d["id"] == dev && d["state"] == "online"),
            "{devices}"
        );
        let r = mcp.call("mobile_list_apps", json!({"device": dev})).await;
        assert!(text_of(&r).contains("com.android.settings"), "{}", text_of(&r));

        mcp.ok("mobile_launch_app", json!({"device": dev, "packageName": "com.android.settings"})).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let r = mcp.call("mobile_get_foreground_app", json!({"device": dev})).await;
        assert_eq!(r.structured_content.unwrap()["packageName"], "com.android.settings");
        let r = mcp.call("mobile_list_elements_on_screen", json!({"device": dev})).await;
        assert!(!r.structured_content.unwrap()["elements"].as_array().unwrap().is_empty());
        let xml = mcp.ok("mobile_ui_dump", json!({"device": dev})).await;
        assert!(xml.contains("<hierarchy"));

        let r = mcp.call("mobile_take_screenshot", json!({"device": dev})).await;
        let ContentBlock::Image(img) = &r.content[1] else { panic!("no image") };
        let bytes = base64::engine::general_purpose::STANDARD.decode(&img.data).unwrap();
        let decoded = image::load_from_memory(&bytes).unwrap();
        assert_eq!(decoded.width().max(decoded.height()), 1024);

        mcp.ok("mobile_set_orientation", json!({"device": dev, "orientation": "landscape"})).await;
        let r = mcp.call("mobile_get_orientation", json!({"device": dev})).await;
        assert_eq!(r.structured_content.unwrap()["orientation"], "landscape");
        mcp.ok("mobile_set_orientation", json!({"device": dev, "orientation": "portrait"})).await;

        mcp.ok("mobile_press_button", json!({"device": dev, "button": "HOME"})).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let r = mcp.call("mobile_get_foreground_app", json!({"device": dev})).await;
        assert_ne!(r.structured_content.unwrap()["packageName"], "com.android.settings");

        let dir = tempfile::Builder::new().tempdir_in(std::env::temp_dir()).unwrap();
        let up = dir.path().join("up.bin");
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&up, &data).unwrap();
        mcp.ok("mobile_adb_push", json!({"device": dev, "local_path": up.display().to_string(), "remote_path": "/sdcard/Download/mobile-mcp-test.bin"})).await;
        let down = dir.path().join("down.bin");
        mcp.ok("mobile_adb_pull", json!({"device": dev, "remote_path": "/sdcard/Download/mobile-mcp-test.bin", "local_path": down.display().to_string()})).await;
        assert!(std::fs::read(&down).unwrap() == data);
        mcp.ok("mobile_open_url", json!({"device": dev, "url": "https://example.com"})).await;
    })
    .await
    .expect("finished within 10 minutes");
}

/// CJK, Arabic and emoji into a real text field (Settings' search box, on any stock image
/// with the Settings search), read back from the screen's elements; the clipboard set
/// before is the clipboard after. Not run from the development machine (no device there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MOBILE_MCP_TEST_SERIAL and a real device or emulator"]
async fn any_language_into_a_real_text_field() {
    let serial = std::env::var("MOBILE_MCP_TEST_SERIAL")
        .expect("set MOBILE_MCP_TEST_SERIAL to the device's adb serial");
    tokio::time::timeout(Duration::from_secs(600), async {
        let mcp = McpChild::spawn(crate::SERVER, &[], &[]).await;
        let dev = json!(serial);
        mcp.ok(
            "mobile_clipboard",
            json!({"device": dev, "text": "copied before"}),
        )
        .await;
        for text in ["你好，世界", "مرحبا", "👋🏽 café"] {
            mcp.ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": "com.android.settings"}),
            )
            .await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            mcp.ok(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Search", "match": "contains"}),
            )
            .await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            mcp.ok(
                "mobile_type_keys",
                json!({"device": dev, "text": text, "submit": false}),
            )
            .await;
            let r = mcp
                .call("mobile_list_elements_on_screen", json!({"device": dev}))
                .await;
            let elements = r.structured_content.unwrap()["elements"].clone();
            assert!(
                elements
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["text"] == text),
                "{text:?} not in a field: {elements}"
            );
            assert_eq!(
                mcp.ok("mobile_clipboard", json!({"device": dev})).await,
                "copied before"
            );
            mcp.ok(
                "mobile_press_button",
                json!({"device": dev, "button": "HOME"}),
            )
            .await;
        }
    })
    .await
    .expect("finished within 10 minutes");
}
