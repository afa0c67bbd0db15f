//! Every tool that takes a point also takes a ref or a selector, through one resolver: the
//! gestures land on the element's centre as the phone has it now (its input records say
//! so), ambiguity and near misses are refused before anything reaches the phone, and a ref
//! whose element has gone is refused. And the list a tap by selector was found on is not
//! read twice when the screen did not change.

use serde_json::json;

use super::{DEADLINE, Rig, launched, screen};
use test_support::text_of;
use virtual_phone::PhoneHandle;
use virtual_phone::state::InputEvent;

fn at(phone: &PhoneHandle, name: &str) -> (f64, f64) {
    let (x, y) = phone
        .element_center(name)
        .unwrap_or_else(|| panic!("{name} on the phone"));
    (f64::from(x), f64::from(y))
}

/// How many `uiautomator dump`s the phone has run.
fn dumps(phone: &PhoneHandle) -> usize {
    phone
        .shell_commands()
        .iter()
        .filter(|r| r.command.contains("uiautomator"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drag_long_press_and_double_tap_act_on_the_named_elements() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        phone.update_state(|s| s.input_events.clear());

        let (p1, p3) = (at(&phone, "Product 1"), at(&phone, "Product 3"));
        let r = mcp
            .call(
                "mobile_drag_on_screen",
                json!({"device": dev, "from": {"text": "Product 1"}, "to": {"text": "Product 3"}, "duration": 200}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).contains("\"Product 1\""), "{}", text_of(&r));
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::DragAndDrop {
                x1: p1.0,
                y1: p1.1,
                x2: p3.0,
                y2: p3.1,
                duration_ms: 200
            }]
        );
        assert!(
            at(&phone, "Product 1").1 > at(&phone, "Product 3").1,
            "the row was moved below Product 3"
        );

        phone.update_state(|s| s.input_events.clear());
        let p2 = at(&phone, "Product 2");
        let r = mcp
            .call(
                "mobile_long_press_on_screen_at_coordinates",
                json!({"device": dev, "text": "Product 2", "duration": 600}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).starts_with("Long-pressed at ("), "{}", text_of(&r));
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::LongPress {
                x: p2.0,
                y: p2.1,
                duration_ms: 600
            }]
        );
        assert_eq!(screen(&phone), "detail");

        phone.update_state(|s| s.input_events.clear());
        let share = at(&phone, "Share");
        let r = mcp
            .call(
                "mobile_double_tap_on_screen",
                json!({"device": dev, "id": "share", "settleTimeoutMs": 1500}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).starts_with("Double-tapped at ("));
        let tap = InputEvent::Tap {
            x: share.0,
            y: share.1,
        };
        assert_eq!(phone.state().input_events, vec![tap.clone(), tap]);
        assert_eq!(screen(&phone), "share");
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swipe_starts_on_the_named_element_and_a_clip_crops_to_it() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        let r = mcp
            .call(
                "mobile_take_screenshot",
                json!({"device": dev, "clip": {"text": "Live"}}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let r = mcp
            .call(
                "mobile_take_screenshot",
                json!({"device": dev, "clip": {"text": "Product", "match": "contains"}}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).contains("elements match"), "{}", text_of(&r));

        phone.update_state(|s| s.input_events.clear());
        let p2 = at(&phone, "Product 2");
        let before = phone.state().foreground().unwrap().scroll;
        let r = mcp
            .call(
                "mobile_swipe_on_screen",
                json!({"device": dev, "direction": "up", "text": "Product 2"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let events = phone.state().input_events;
        assert!(
            matches!(events.as_slice(), [InputEvent::Swipe { x1, y1, y2, .. }] if (*x1, *y1) == p2 && y2 < y1),
            "{events:?}"
        );
        assert_ne!(
            phone.state().foreground().unwrap().scroll,
            before,
            "the list scrolled"
        );
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_gesture_refuses_ambiguity_near_misses_and_gone_refs() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        phone.update_state(|s| s.input_events.clear());
        let many = json!({"text": "product", "match": "contains"});
        for (tool, args) in [
            ("mobile_double_tap_on_screen", many.clone()),
            ("mobile_long_press_on_screen_at_coordinates", many.clone()),
            (
                "mobile_swipe_on_screen",
                json!({"direction": "up", "text": "product", "match": "contains"}),
            ),
            (
                "mobile_drag_on_screen",
                json!({"from": many, "to": {"x": 10, "y": 10}}),
            ),
        ] {
            let mut a = args.clone();
            a["device"] = dev.clone();
            let r = mcp.call(tool, a).await;
            assert_eq!(r.is_error, Some(true), "{tool}: {}", text_of(&r));
            let t = text_of(&r);
            assert!(
                t.contains("elements match") && t.contains("@e") && t.contains("\"Product 2\""),
                "{tool}: {t}"
            );
        }
        let r = mcp
            .call(
                "mobile_long_press_on_screen_at_coordinates",
                json!({"device": dev, "text": "Prodct 2"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("No element matches") && t.contains("\"Product 2\""),
            "{t}"
        );
        assert!(
            phone.state().input_events.is_empty(),
            "nothing reached the phone"
        );

        // A ref from the main screen, after the agent left it, names nothing on screen.
        let r = mcp
            .call(
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            )
            .await;
        let list = r.structured_content.unwrap()["elements"].clone();
        let p1 = super::find(&list, "Product 1")["ref"].clone();
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "id": "live", "observe": "none", "settleTimeoutMs": 0}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        super::until_phone(&phone, "the live screen", |d| d.contains("Live now"));
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_drag_on_screen",
                json!({"device": dev, "from": p1, "to": {"x": 10, "y": 10}}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        let t = text_of(&r);
        assert!(t.contains("no longer on screen"), "{t}");
        assert!(t.contains("\"Live now\""), "the fresh candidates: {t}");
        // The refusal showed the fresh list, so the old ref is now unknown: still refused.
        let r = mcp
            .call(
                "mobile_double_tap_on_screen",
                json!({"device": dev, "ref": p1}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(phone.state().input_events.is_empty(), "nothing was sent");
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tap_by_selector_reads_the_list_once_unless_the_screen_changed() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            dev,
            _adb,
        } = launched().await;
        // The screen moves without the server: the list is read again, and the tap goes
        // where the element is now.
        phone.shell("input swipe 540 1500 540 1200 300");
        std::thread::sleep(std::time::Duration::from_millis(700));
        let before = dumps(&phone);
        phone.update_state(|s| s.input_events.clear());
        let p4 = at(&phone, "Product 4");
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "text": "Product 4"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(
            dumps(&phone) - before,
            2,
            "a fresh lookup and the observation"
        );
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::Tap { x: p4.0, y: p4.1 }]
        );
        assert_eq!(screen(&phone), "detail");

        // Nothing moved since the agent's last look: that list is still the screen.
        let before = dumps(&phone);
        phone.update_state(|s| s.input_events.clear());
        let share = at(&phone, "Share");
        let r = mcp
            .call(
                "mobile_long_press_on_screen_at_coordinates",
                json!({"device": dev, "text": "Share", "duration": 500}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(dumps(&phone) - before, 1, "only the observation's dump");
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::LongPress {
                x: share.0,
                y: share.1,
                duration_ms: 500
            }]
        );
        assert_eq!(screen(&phone), "share");
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}
