//! A ref names one element for the whole session: a later look at the screen (a change
//! list, a wait, a fresh list) never gives an old ref to another element, so a ref the
//! agent kept from an earlier turn taps its own element or is refused, never the element
//! that now happens to have its number.

use serde_json::{Value, json};

use super::{DEADLINE, Rig, find, launched, screen, until_phone};
use test_support::text_of;

fn refs_of(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["ref"].as_str().unwrap_or_default().to_string(),
                e["text"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ref_kept_across_later_looks_still_names_its_element() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "text": "Product 1"}),
        )
        .await;
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Add to cart", "observe": "elements"}),
            )
            .await;
        let first = r.structured_content.unwrap()["elements"].clone();
        let buy = find(&first, "Buy now")["ref"].clone();
        until_phone(&phone, "the snackbar leaving", |d| {
            !d.contains("Added to cart")
        });
        // A later look (the agent waits for the snackbar to go) records the screen without
        // the snackbar; every element it still shows keeps the ref it had.
        let r = mcp
            .call(
                "mobile_wait_for",
                json!({"device": dev, "until": "gone", "text": "Added to cart", "timeoutMs": 5000}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let r = mcp
            .call("mobile_list_elements_on_screen", json!({"device": dev}))
            .await;
        let second = r.structured_content.unwrap()["elements"].clone();
        for (reference, text) in refs_of(&second) {
            if let Some((_, was)) = refs_of(&first).into_iter().find(|(r, _)| *r == reference) {
                assert_eq!(was, text, "{reference} named {was:?}, now {text:?}");
            }
        }
        // The agent taps the ref it kept from its first look.
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "ref": buy, "observe": "none"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(
            screen(&phone),
            "checkout",
            "Buy now was tapped, not another"
        );
    })
    .await
    .expect("bounded");
}
