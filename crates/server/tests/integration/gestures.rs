//! Drag and fold end to end on Android: the built binary over stdio, the real adb server on
//! a private port and the virtual phone, whose state is checked after each call (the row
//! order of a list after a drag, the committed device state after a fold).

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::state::InputEvent;

const DEADLINE: Duration = Duration::from_secs(240);

pub(crate) struct Rig {
    pub(crate) mcp: McpChild,
    pub(crate) phone: PhoneHandle,
    pub(crate) serial: String,
    pub(crate) _adb: PrivateAdbServer,
}

pub(crate) async fn rig() -> Rig {
    let s = crate::phone_rig::start(Default::default()).await;
    let serial = s.phone.serial();
    crate::phone_rig::wait_online(&s.mcp, &serial).await;
    Rig {
        mcp: s.mcp,
        phone: s.phone,
        serial,
        _adb: s.adb,
    }
}

/// The texts of the current screen's elements, in order.
fn screen_texts(phone: &PhoneHandle) -> Vec<String> {
    let s = phone.state();
    s.current_screen()
        .map(|sc| sc.elements.iter().map(|e| e.text.clone()).collect())
        .unwrap_or_default()
}

fn element<'a>(els: &'a [Value], text: &str) -> &'a Value {
    els.iter()
        .find(|e| e["text"] == text)
        .unwrap_or_else(|| panic!("no {text:?} in {els:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dragging_a_list_row_onto_another_moves_it_there() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);
        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.android.settings"}),
        )
        .await;
        let before = screen_texts(&phone);
        let apps = before
            .iter()
            .position(|t| t == "Apps")
            .expect("Settings lists Apps");
        let battery = before
            .iter()
            .position(|t| t == "Battery")
            .expect("and Battery");
        assert!(apps < battery);
        let r = mcp
            .call(
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            )
            .await;
        let els = r.structured_content.unwrap()["elements"]
            .as_array()
            .unwrap()
            .clone();
        let (from, to) = (element(&els, "Apps"), element(&els, "Battery"));
        phone.update_state(|s| s.input_events.clear());

        // By refs: the row moves to the drop target's place, the rows between move up.
        let r = mcp
            .ok(
                "mobile_drag_on_screen",
                json!({"device": dev, "from": from["ref"], "to": to["ref"], "duration": 300}),
            )
            .await;
        assert!(r.starts_with("Dragged from"), "{r}");
        let after = screen_texts(&phone);
        let mut want = before.clone();
        let moved = want.remove(apps);
        want.insert(battery, moved);
        assert_eq!(after, want);
        let c = |e: &Value, k: &str, d: &str| {
            e["coordinates"][k].as_f64().unwrap() + e["coordinates"][d].as_f64().unwrap() / 2.0
        };
        let drags: Vec<InputEvent> = phone.state().input_events;
        assert_eq!(
            drags,
            vec![InputEvent::DragAndDrop {
                x1: c(from, "x", "width").floor(),
                y1: c(from, "y", "height").floor(),
                x2: c(to, "x", "width").floor(),
                y2: c(to, "y", "height").floor(),
                duration_ms: 300,
            }]
        );

        // By points: dragging it back restores the order.
        let r = mcp
            .call(
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            )
            .await;
        let els = r.structured_content.unwrap()["elements"]
            .as_array()
            .unwrap()
            .clone();
        let (a, b) = (element(&els, "Apps"), element(&els, "Notifications"));
        let pt = |e: &Value| json!({"x": c(e, "x", "width"), "y": c(e, "y", "height")});
        mcp.ok(
            "mobile_drag_on_screen",
            json!({"device": dev, "from": pt(a), "to": pt(b)}),
        )
        .await;
        let back = screen_texts(&phone);
        assert_eq!(back.iter().position(|t| t == "Apps"), Some(apps));

        // Bad input reaches nothing.
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_drag_on_screen",
                json!({"device": dev, "from": "@e999", "to": {"x": 1, "y": 1}}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(
            text_of(&r).contains("No element \"@e999\""),
            "{}",
            text_of(&r)
        );
        let r = mcp
            .call(
                "mobile_drag_on_screen",
                json!({"device": dev, "from": {"x": 1, "y": 1}, "to": {"x": 5000, "y": 1}}),
            )
            .await;
        assert!(
            text_of(&r).contains("outside the screen"),
            "{}",
            text_of(&r)
        );
        assert!(phone.state().input_events.is_empty());
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folding_a_foldable_commits_its_device_state_and_a_phone_says_it_cannot() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);

        // The default phone has only DEFAULT, as AOSP reports without a configuration.
        let r = mcp
            .call(
                "mobile_fold_device",
                json!({"device": dev, "posture": "folded"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("not a foldable") && t.contains("DEFAULT (0)"),
            "{t}"
        );
        assert_eq!(phone.state().device_state(), 0);

        phone.update_state(|s| s.make_foldable());
        let r = mcp
            .ok(
                "mobile_fold_device",
                json!({"device": dev, "posture": "half-open"}),
            )
            .await;
        assert!(r.contains("HALF_OPENED 2"), "{r}");
        assert_eq!(phone.state().device_state(), 2);
        mcp.ok("mobile_fold_device", json!({"device": dev, "angle": 30}))
            .await;
        assert_eq!(phone.state().device_state(), 1);
        mcp.ok(
            "mobile_fold_device",
            json!({"device": dev, "posture": "open"}),
        )
        .await;
        assert_eq!(phone.state().device_state(), 3);
        let argvs: Vec<Vec<String>> = phone
            .shell_commands()
            .into_iter()
            .flat_map(|c| c.argv)
            .filter(|a| a.first().is_some_and(|p| p == "cmd"))
            .collect();
        assert!(argvs.contains(&vec![
            "cmd".to_string(),
            "device_state".into(),
            "state".into(),
            "3".into()
        ]));
        let r = mcp.call("mobile_fold_device", json!({"device": dev})).await;
        assert!(text_of(&r).contains("Give posture"), "{}", text_of(&r));
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_point_is_checked_against_the_screen_as_it_is_turned_now() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);
        phone.update_state(|s| s.input_events.clear());
        // Upright, the 1080x2400 screen has no x of 2300 (it would, turned sideways).
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "x": 2300, "y": 1000, "observe": "none"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(
            text_of(&r).contains("outside the screen"),
            "{}",
            text_of(&r)
        );
        assert!(phone.state().input_events.is_empty(), "nothing was sent");
        // Turned sideways, the same point is on the screen and the tap is sent.
        mcp.ok(
            "mobile_set_orientation",
            json!({"device": dev, "orientation": "landscape"}),
        )
        .await;
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "x": 2300, "y": 1000, "observe": "none"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(
            phone.state().input_events,
            vec![InputEvent::Tap {
                x: 2300.0,
                y: 1000.0
            }]
        );
        // And a point only an upright screen has is now refused.
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_long_press_on_screen_at_coordinates",
                json!({"device": dev, "x": 500, "y": 2300, "observe": "none"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(phone.state().input_events.is_empty(), "nothing was sent");
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}
