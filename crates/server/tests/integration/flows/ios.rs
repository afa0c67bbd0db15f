//! The fake iOS simulator: a recorded session (launches, a tap by selector, taps by ref,
//! typing into a focused field) exports to a golden flow, which replays on a fresh
//! simulator to the same state (the app in front, the screen shown, the field's text),
//! read from the fake's state file.

use std::path::Path;

use fake_xcode::{BOOTED_UDID, read_state, write_default_state};
use serde_json::{Value, json};
use test_support::{McpChild, text_of};

use super::round_trip::golden;

const SETTINGS: &str = "com.apple.Preferences";
const QWEN: &str = "com.alibaba.qwen";

/// A server over a fresh fake simulator (no Android: an adb server where nothing answers).
async fn simulator(dir: &Path) -> McpChild {
    write_default_state(&dir.join("state.json")).expect("the fake's state");
    let env = vec![
        (
            "MOBILE_MCP_XCRUN".to_string(),
            test_support::cargo_bin("fake-xcode", "fake-xcrun")
                .display()
                .to_string(),
        ),
        (
            "MOBILE_MCP_IDB".to_string(),
            test_support::cargo_bin("fake-xcode", "fake-idb")
                .display()
                .to_string(),
        ),
        (
            "FAKE_IOS_STATE".to_string(),
            dir.join("state.json").display().to_string(),
        ),
        (
            "FAKE_IOS_LOG".to_string(),
            dir.join("log.jsonl").display().to_string(),
        ),
        ("PATH".to_string(), "/nonexistent".to_string()),
        ("ANDROID_HOME".to_string(), "/nonexistent".to_string()),
    ];
    McpChild::spawn(crate::SERVER, &["--adb-server", "127.0.0.1:1"], &env).await
}

fn by_text<'a>(list: &'a Value, label: &str) -> &'a Value {
    list.as_array()
        .into_iter()
        .flatten()
        .find(|e| e["label"] == label || e["text"] == label)
        .unwrap_or_else(|| panic!("no {label:?} in {list}"))
}

async fn elements(m: &McpChild) -> Value {
    m.call(
        "mobile_list_elements_on_screen",
        json!({"device": BOOTED_UDID}),
    )
    .await
    .structured_content
    .expect("elements")["elements"]
        .clone()
}

/// The app in front, what each app shows, and Qwen's input text.
fn end_state(dir: &Path) -> (Option<String>, String, String) {
    let s = read_state(&dir.join("state.json")).expect("the fake's state");
    let sim = s
        .simulators
        .iter()
        .find(|s| s.udid == BOOTED_UDID)
        .expect("booted");
    let input = format!("{:?}", sim.screens[QWEN]);
    (sim.foreground.clone(), format!("{:?}", sim.shown), input)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ios_session_exports_to_the_golden_flow_and_replays_to_the_same_state() {
    let a_dir = tempfile::tempdir().unwrap();
    let m = simulator(a_dir.path()).await;
    let dev = json!(BOOTED_UDID);
    m.ok(
        "mobile_launch_app",
        json!({"device": dev, "packageName": SETTINGS}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "label": "General"}),
    )
    .await;
    let list = elements(&m).await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "ref": by_text(&list, "About")["ref"]}),
    )
    .await;
    m.ok(
        "mobile_launch_app",
        json!({"device": dev, "packageName": QWEN}),
    )
    .await;
    let list = elements(&m).await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "ref": by_text(&list, "Ask Qwen")["ref"]}),
    )
    .await;
    m.ok("mobile_type_keys", json!({"device": dev, "text": "hello"}))
        .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "label": "Send"}),
    )
    .await;
    let recorded = end_state(a_dir.path());
    assert!(
        recorded.2.contains("\"hello\""),
        "typed into the field: {}",
        recorded.2
    );

    let r = m
        .call(
            "mobile_export_flow",
            json!({"device": dev, "appId": SETTINGS}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    let export = r.structured_content.expect("the export");
    let yaml = export["yaml"].as_str().unwrap().to_string();
    golden("ios-session.yaml", &yaml);
    assert_eq!(export["not_exported"], json!([]), "{t}");

    let b_dir = tempfile::tempdir().unwrap();
    let b = simulator(b_dir.path()).await;
    let r = b
        .call(
            "mobile_run_flow",
            json!({"device": BOOTED_UDID, "flow": yaml}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "the replay failed: {t}");
    assert_eq!(end_state(b_dir.path()), recorded, "{t}");
}
