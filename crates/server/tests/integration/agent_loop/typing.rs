//! Typing where no field has the focus: `input text` takes the keys without an error (AOSP
//! `InputShellCommand` injects them whatever has the focus), so the result must not read
//! as if the text arrived. The phone's field and its input events are the check.

use serde_json::json;
use test_support::text_of;
use virtual_phone::PhoneHandle;
use virtual_phone::state::InputEvent;

use super::{DEADLINE, Rig, launched};

/// The Shop's search field's text on the phone.
fn search_text(phone: &PhoneHandle) -> String {
    phone
        .state()
        .current_screen()
        .and_then(|s| {
            s.elements
                .iter()
                .find(|e| e.resource_id.ends_with("search_input"))
                .map(|e| e.text.clone())
        })
        .expect("the Shop's search field")
}

fn typed(phone: &PhoneHandle, text: &str) -> usize {
    phone
        .state()
        .input_events
        .iter()
        .filter(|e| matches!(e, InputEvent::Text { text: t } if t == text))
        .count()
}

const NOWHERE: &str = "the text went nowhere";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_with_no_focused_field_says_the_text_may_have_gone_nowhere() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        // No field has the focus: the keys reach the phone, the field stays empty.
        let r = mcp
            .call("mobile_type_keys", json!({"device": dev, "text": "milk"}))
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(typed(&phone, "milk"), 1, "the keys were sent");
        assert_eq!(search_text(&phone), "");
        let t = text_of(&r);
        assert!(t.contains("No change on screen"), "{t}");
        assert!(t.contains(NOWHERE), "{t}");

        // The field focused: the text arrives, the change list shows it, no warning.
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "id": "search_input"}),
        )
        .await;
        let r = mcp
            .call("mobile_type_keys", json!({"device": dev, "text": "eggs"}))
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(search_text(&phone), "eggs");
        let t = text_of(&r);
        assert!(t.contains("eggs"), "the change list shows the field: {t}");
        assert!(!t.contains(NOWHERE), "{t}");
    })
    .await
    .expect("bounded");
}
