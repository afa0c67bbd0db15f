//! The agent loop end to end on the living virtual phone (the Shop app): an action waits
//! for the screen to settle and returns what it shows; refs are bound to the observation
//! they came from; selectors; `mobile_wait_for`. Every check looks at the phone's state
//! and input events, not only at the server's text.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::living::scenario::{SHOP, living_state};
use virtual_phone::state::InputEvent;

mod refs;
mod scripted;
mod signal;
mod targets;
mod typing;

const DEADLINE: Duration = Duration::from_secs(240);

struct Rig {
    mcp: McpChild,
    phone: PhoneHandle,
    dev: Value,
    _adb: PrivateAdbServer,
}

async fn rig() -> Rig {
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        state: Some(living_state()),
        ..Default::default()
    })
    .await;
    let dev = json!(s.phone.serial());
    Rig {
        mcp: s.mcp,
        phone: s.phone,
        dev,
        _adb: s.adb,
    }
}

/// A rig whose Shop app was launched (and observed: the rows are in).
async fn launched() -> Rig {
    let r = rig().await;
    r.mcp
        .ok(
            "mobile_launch_app",
            json!({"device": r.dev, "packageName": SHOP}),
        )
        .await;
    r
}

fn screen(phone: &PhoneHandle) -> String {
    phone
        .state()
        .foreground()
        .map(|f| f.screen.clone())
        .unwrap_or_default()
}

fn texts(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect()
}

fn center(e: &Value) -> (i64, i64) {
    let c = &e["coordinates"];
    (
        c["x"].as_i64().unwrap() + c["width"].as_i64().unwrap() / 2,
        c["y"].as_i64().unwrap() + c["height"].as_i64().unwrap() / 2,
    )
}

/// The element with `text` in a list.
fn find<'a>(list: &'a Value, text: &str) -> &'a Value {
    list.as_array()
        .into_iter()
        .flatten()
        .find(|e| e["text"] == text)
        .unwrap_or_else(|| panic!("no {text:?} in {list}"))
}

/// Waits on the phone itself (no server call) until `cond` holds; bounded.
fn until_phone(phone: &PhoneHandle, what: &str, cond: impl Fn(&str) -> bool) {
    let start = Instant::now();
    while !cond(&phone.ui_dump()) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what} never happened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_returns_the_settled_new_screen() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = rig().await;
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": dev, "packageName": SHOP}),
            )
            .await;
        let t = text_of(&r);
        assert!(t.starts_with(&format!("Launched {SHOP}\n")), "{t}");
        let sc = r.structured_content.clone().unwrap();
        assert_eq!(sc["settle"]["settled"], true, "{sc}");
        assert_eq!(sc["changes"]["newScreen"], true);
        let added = &sc["changes"]["added"];
        // The late list is in (the spinner kept the screen moving until it came) and every
        // element is where the resting screen has it, not somewhere on the slide.
        assert!(texts(added).contains(&"Product 1".to_string()), "{added}");
        for name in ["Live", "Product 1", "Product 2"] {
            let (x, y) = center(find(added, name));
            let rest = phone.element_center(name).unwrap();
            assert_eq!(
                (x as i32, y as i32),
                rest,
                "{name} is reported where it rests"
            );
        }

        // A tap that starts a transition returns the new screen, not the old one.
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Product 1"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).starts_with("Tapped at ("));
        assert_eq!(screen(&phone), "detail");
        let sc = r.structured_content.unwrap();
        let now = &sc["changes"]["added"];
        let names = texts(now);
        assert!(names.contains(&"Buy now".to_string()), "{sc}");
        assert!(
            !names.iter().any(|n| n
                .strip_prefix("Product ")
                .is_some_and(|r| r.parse::<u32>().is_ok())),
            "old rows: {names:?}"
        );
        let (x, y) = center(find(now, "Buy now"));
        assert_eq!(
            (x as i32, y as i32),
            phone.element_center("Buy now").unwrap()
        );
        assert_eq!(
            phone.state().input_events.len(),
            1,
            "one tap reached the phone"
        );
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spinner_is_reported_not_settled_within_the_bound() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Live", "settleTimeoutMs": 700}),
            )
            .await;
        assert_ne!(
            r.is_error,
            Some(true),
            "not settling is no failure: {}",
            text_of(&r)
        );
        assert!(text_of(&r).contains("not settled"), "{}", text_of(&r));
        let sc = r.structured_content.unwrap();
        assert_eq!(sc["settle"]["settled"], false);
        assert!(sc["settle"]["waitedMs"].as_u64().unwrap() < 700 + 1000);
        assert_eq!(screen(&phone), "live");
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_sees_late_content_arrive_and_a_snackbar_go() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = rig().await;
        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": SHOP, "settleTimeoutMs": 0, "observe": "none"}),
        )
        .await;
        let r = mcp
            .call(
                "mobile_wait_for",
                json!({"device": dev, "until": "exists", "text": "Product 3"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let sc = r.structured_content.unwrap();
        assert_eq!(sc["met"], true);
        assert!(phone.ui_dump().contains("Product 3"));

        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "text": "Product 3"}),
        )
        .await;
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "text": "Add to cart", "observe": "none", "settleTimeoutMs": 2000}),
        )
        .await;
        assert!(
            phone.ui_dump().contains("Added to cart"),
            "the snackbar shows"
        );
        let r = mcp
            .call(
                "mobile_wait_for",
                json!({"device": dev, "until": "gone", "text": "Added to cart", "timeoutMs": 8000}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(
            !phone.ui_dump().contains("Added to cart"),
            "gone on the phone too"
        );
        let r = mcp
            .call(
                "mobile_wait_for",
                json!({"device": dev, "until": "app_in_front", "packageName": SHOP}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ref_taken_before_the_layout_moved_still_taps_its_element() {
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
        let sc = r.structured_content.unwrap();
        let els = &sc["elements"];
        assert!(
            texts(els).contains(&"Added to cart".to_string()),
            "{}",
            sc["settle"]
        );
        let buy = find(els, "Buy now").clone();
        let stale = center(&buy);
        // The snackbar goes by itself and the rows move up; the agent does not look again.
        until_phone(&phone, "the snackbar leaving", |d| {
            !d.contains("Added to cart")
        });
        until_phone(&phone, "the rows resting", |_| {
            phone.element_center("Buy now") == phone.element_center("Buy now")
        });
        std::thread::sleep(Duration::from_millis(400));
        let rest = phone.element_center("Buy now").unwrap();
        assert_ne!((rest.0 as i64, rest.1 as i64), stale, "the layout moved");
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "ref": buy["ref"]}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::Tap {
                x: rest.0 as f64,
                y: rest.1 as f64
            }],
            "the tap went where Buy now is now"
        );
        assert_eq!(
            screen(&phone),
            "checkout",
            "Buy now was tapped, not its neighbour"
        );
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_find_refuse_ambiguity_and_suggest_near_misses() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        phone.update_state(|s| s.input_events.clear());

        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "product", "match": "contains"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("elements match") && t.contains("\"Product 1\""),
            "{t}"
        );
        assert!(t.contains("@e"), "the candidates carry refs: {t}");

        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Lve"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("No element matches") && t.contains("\"Live\""),
            "{t}"
        );
        assert!(phone.state().input_events.is_empty(), "nothing was tapped");

        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "id": "live"}),
        )
        .await;
        assert_eq!(screen(&phone), "live");
        assert_eq!(phone.state().input_events.len(), 1);
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}
