//! The round trip on the living virtual phone: an agent-like script records a session
//! (a launch, a wait for late content, a scroll to an item tapped by ref, taps by
//! selector, typing, a dialog), `mobile_export_flow` turns it into a flow held to a golden
//! file, and the flow replays through `mobile_run_flow` on a fresh phone to the same end
//! state, compared in the two phones' states and typing records.

use serde_json::{Value, json};
use test_support::text_of;
use virtual_phone::PhoneHandle;
use virtual_phone::living::scenario::{SHOP, living_state};
use virtual_phone::state::InputEvent;

use super::{NOTES, note_texts};
use crate::phone_rig::{Setup, start, wait_online};

/// `MOBILE_MCP_UPDATE_GOLDENS=1` rewrites a golden file instead of comparing with it.
pub(super) fn golden(name: &str, got: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/flows/golden")
        .join(name);
    if std::env::var("MOBILE_MCP_UPDATE_GOLDENS").as_deref() == Ok("1") {
        std::fs::write(&path, got).expect("write the golden file");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "the export differs from {}", path.display());
}

/// The element whose text is `text` in a result's element list.
fn by_text<'a>(list: &'a Value, text: &str) -> &'a Value {
    list.as_array()
        .into_iter()
        .flatten()
        .find(|e| e["text"] == text)
        .unwrap_or_else(|| panic!("no {text:?} in {list}"))
}

/// Where a phone ended: its task stack (package, screen), the notes and what was typed.
fn end_state(phone: &PhoneHandle) -> (Vec<(String, String)>, Vec<String>, Vec<String>) {
    let s = phone.state();
    let stack = s
        .stack
        .iter()
        .map(|f| (f.package.clone(), f.screen.clone()))
        .collect();
    let typed = s
        .input_events
        .iter()
        .filter_map(|e| match e {
            InputEvent::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (stack, note_texts(phone), typed)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_session_exports_to_the_golden_flow_and_replays_to_the_same_end() {
    let a = start(Setup {
        state: Some(living_state()),
        ..Default::default()
    })
    .await;
    wait_online(&a.mcp, &a.phone.serial()).await;
    let dev = json!(a.phone.serial());
    let m = &a.mcp;
    m.ok(
        "mobile_launch_app",
        json!({"device": dev, "packageName": SHOP}),
    )
    .await;
    m.ok(
        "mobile_wait_for",
        json!({"device": dev, "until": "exists", "text": "Product 1", "timeoutMs": 5000}),
    )
    .await;
    m.ok(
        "mobile_swipe_on_screen",
        json!({"device": dev, "direction": "up"}),
    )
    .await;
    let list = m
        .call("mobile_list_elements_on_screen", json!({"device": dev}))
        .await
        .structured_content
        .expect("elements")["elements"]
        .clone();
    let item = by_text(&list, "Product 12");
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "ref": item["ref"]}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "Add to cart"}),
    )
    .await;
    m.ok(
        "mobile_press_button",
        json!({"device": dev, "button": "BACK"}),
    )
    .await;
    m.ok(
        "mobile_launch_app",
        json!({"device": dev, "packageName": NOTES}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "New note"}),
    )
    .await;
    let list = m
        .call("mobile_list_elements_on_screen", json!({"device": dev}))
        .await
        .structured_content
        .expect("elements")["elements"]
        .clone();
    let field = by_text(&list, "Title");
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "ref": field["ref"]}),
    )
    .await;
    m.ok(
        "mobile_type_keys",
        json!({"device": dev, "text": "Groceries"}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "Save"}),
    )
    .await;
    m.ok(
        "mobile_wait_for",
        json!({"device": dev, "until": "text_appears", "text": "Groceries", "timeoutMs": 5000}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "Settings"}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "Delete all notes"}),
    )
    .await;
    m.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": dev, "text": "Delete"}),
    )
    .await;
    m.ok(
        "mobile_press_button",
        json!({"device": dev, "button": "BACK"}),
    )
    .await;
    let recorded = end_state(&a.phone);
    assert_eq!(
        recorded.1,
        Vec::<String>::new(),
        "the dialog deleted every note"
    );

    let r = m
        .call(
            "mobile_export_flow",
            json!({"device": dev, "name": "Shop and notes"}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    let export = r.structured_content.expect("the export");
    let yaml = export["yaml"].as_str().unwrap().to_string();
    golden("android-session.yaml", &yaml);
    assert_eq!(export["not_exported"], json!([]), "{t}");

    // The flow replays on a fresh phone to the same end.
    let b = start(Setup {
        state: Some(living_state()),
        ..Default::default()
    })
    .await;
    wait_online(&b.mcp, &b.phone.serial()).await;
    let r = b
        .mcp
        .call(
            "mobile_run_flow",
            json!({"device": b.phone.serial(), "flow": yaml}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "the replay failed: {t}");
    assert_eq!(end_state(&b.phone), recorded, "{t}");
}
