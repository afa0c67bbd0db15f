//! Through the server on the fake's fb-idb 1.1.8 profile (what most users have) and its
//! real-simulator behaviours (testkit/fake-xcode/fixtures/SOURCES.md): what the agent
//! reads, and what the fake received and shows afterwards. Fake mode only.

use super::*;
use fake_xcode::{IDB_1_1, SPRINGBOARD};

/// Opens the fake's Qwen app and taps its text field, which then has the focus.
async fn focus_qwen_field(mac: &Mac, mcp: &McpChild, dev: &Value) {
    mcp.ok(
        "mobile_launch_app",
        json!({"device": dev, "packageName": "com.alibaba.qwen"}),
    )
    .await;
    let field = mac.fake_sim().screens["com.alibaba.qwen"][1].children[0].clone();
    mcp.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "x": field.x as i32 + 5, "y": field.y as i32 + 5}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idb_1_1_home_screen_rotation_typing_and_url_prompt() {
    let Some(mac) = Mac::fake_with(|state, _| state.idb_version = IDB_1_1.into()) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), async {
        let mcp = mac.ios_server(&["--allow-url-scheme", "qwen"]).await;
        let dev = json!(BOOTED_UDID);

        // The home screen's Application label is " ": still SpringBoard.
        let r = mcp
            .call("mobile_get_foreground_app", json!({"device": dev}))
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).contains(SPRINGBOARD), "{}", text_of(&r));

        // No `ui rotate` in 1.1: the release it needs, never argparse's usage.
        mac.clear_log();
        let r = mcp
            .call(
                "mobile_set_orientation",
                json!({"device": dev, "orientation": "landscape"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(t.contains("`idb ui rotate`") && t.contains("1.5.0"), "{t}");
        assert!(
            !t.contains("usage:") && !t.contains("invalid choice"),
            "{t}"
        );
        assert_eq!(mac.fake_sim().orientation, "PORTRAIT");

        // Open Qwen, focus its field, type text idb has no keys for.
        focus_qwen_field(&mac, &mcp, &dev).await;
        mac.clear_log();
        let r = mcp
            .call(
                "mobile_type_keys",
                json!({"device": dev, "text": "café 世界", "submit": false}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(t.contains("clipboard") && t.contains("1.5.0"), "{t}");
        assert!(!t.contains("Traceback") && !t.contains("No keycode"), "{t}");
        let sim = mac.fake_sim();
        assert_eq!(sim.clipboard, "café 世界");
        assert_eq!(sim.screens["com.alibaba.qwen"][1].children[0].value, None);
        mac.check_log(|log| {
            assert!(
                !log.iter().any(|c| c.argv.first().is_some_and(|a| a == "ui")
                    && c.argv.get(1).is_some_and(|a| a == "text")),
                "{log:?}"
            );
        });

        // A custom scheme stops at "Open in “Qwen”?": reported with the button to tap.
        mcp.ok(
            "mobile_press_button",
            json!({"device": dev, "button": "HOME"}),
        )
        .await;
        let r = mcp
            .call(
                "mobile_open_url",
                json!({"device": dev, "url": "qwen://chat"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("Open in “Qwen”?") && t.contains("Open button at ("),
            "{t}"
        );
        let sim = mac.fake_sim();
        assert_eq!(sim.foreground, None, "nothing opened yet");
        assert!(sim.alert.is_some());
    })
    .await
    .expect("test exceeded its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idb_1_5_typing_non_ascii_pastes_and_keeps_the_users_clipboard() {
    if std::env::var(REAL_ENV).is_ok_and(|v| v == "1") {
        return;
    }
    let mac = Mac::fake();
    tokio::time::timeout(Duration::from_secs(240), async {
        let mcp = mac.ios_server(&[]).await;
        let dev = json!(BOOTED_UDID);
        mcp.ok(
            "mobile_clipboard",
            json!({"device": dev, "text": "the user's copy"}),
        )
        .await;
        focus_qwen_field(&mac, &mcp, &dev).await;
        mcp.ok(
            "mobile_type_keys",
            json!({"device": dev, "text": "café 世界", "submit": false}),
        )
        .await;
        let sim = mac.fake_sim();
        assert_eq!(
            sim.screens["com.alibaba.qwen"][1].children[0]
                .value
                .as_deref(),
            Some("café 世界")
        );
        assert_eq!(sim.clipboard, "the user's copy");
    })
    .await
    .expect("test exceeded its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_and_delete_are_the_keyboards_keys() {
    if std::env::var(REAL_ENV).is_ok_and(|v| v == "1") {
        return;
    }
    let mac = Mac::fake();
    tokio::time::timeout(Duration::from_secs(240), async {
        let mcp = mac.ios_server(&[]).await;
        let dev = json!(BOOTED_UDID);
        let udid = BOOTED_UDID;
        focus_qwen_field(&mac, &mcp, &dev).await;
        mac.clear_log();
        // Typing and submitting: the text, then the Return key (HID usage 40).
        mcp.ok(
            "mobile_type_keys",
            json!({"device": dev, "text": "hello", "submit": true}),
        )
        .await;
        // DEL twice: the keyboard's Delete (HID usage 42), one character each.
        for _ in 0..2 {
            mcp.ok(
                "mobile_press_button",
                json!({"device": dev, "button": "DEL"}),
            )
            .await;
        }
        let sim = mac.fake_sim();
        let value = sim.screens["com.alibaba.qwen"][1].children[0].value.clone();
        assert_eq!(value.as_deref(), Some("hel"));
        assert_eq!(sim.keys, vec![40, 42, 42]);
        mac.check_log(|log| {
            assert!(
                has_argv(log, "idb", &["ui", "key", "40", "--udid", udid]),
                "{log:?}"
            );
            assert!(
                has_argv(log, "idb", &["ui", "key", "42", "--udid", udid]),
                "{log:?}"
            );
        });
    })
    .await
    .expect("test exceeded its deadline");
}
