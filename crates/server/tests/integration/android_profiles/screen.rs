//! The screen on profiles: rotation and landscape panels, uiautomator's refusals, input on
//! Android 8–11.

use super::*;

/// Every swipe stays inside the current (rotated) screen.
fn inside(phone: &PhoneHandle) {
    let (w, h) = phone.state().oriented_size();
    for (x1, y1, x2, y2) in swipes(phone) {
        for (x, y) in [(x1, y1), (x2, y2)] {
            assert!(
                (0.0..w as f64).contains(&x) && (0.0..h as f64).contains(&y),
                "({x},{y}) is outside {w}x{h}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_that_rotates_itself_while_auto_rotate_is_on() {
    bounded(async {
        let mut p = Profile::default();
        p.app_rotation.insert("com.example.notes".into(), 1);
        let r = rig(p).await;
        r.mcp
            .ok(
                "mobile_launch_app",
                json!({"device": r.dev, "packageName": "com.example.notes"}),
            )
            .await;
        assert_eq!(r.phone.state().rotation(), 1);
        let res = r
            .mcp
            .call("mobile_get_orientation", json!({"device": r.dev}))
            .await;
        assert_eq!(res.structured_content.unwrap()["orientation"], "landscape");
        let res = r
            .mcp
            .call("mobile_get_screen_size", json!({"device": r.dev}))
            .await;
        let s = res.structured_content.unwrap();
        assert_eq!(
            (s["width"].as_u64(), s["height"].as_u64()),
            (Some(2400), Some(1080))
        );
        for d in ["up", "down", "left", "right"] {
            r.mcp
                .ok(
                    "mobile_swipe_on_screen",
                    json!({"device": r.dev, "direction": d}),
                )
                .await;
        }
        assert_eq!(swipes(&r.phone).len(), 4);
        inside(&r.phone);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_landscape_tablet_is_landscape_at_rotation_zero() {
    bounded(async {
        let r = rig(Profile {
            landscape_natural: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call("mobile_get_orientation", json!({"device": r.dev}))
            .await;
        assert_eq!(res.structured_content.unwrap()["orientation"], "landscape");
        // Portrait on a landscape panel is rotation 1 (or 3).
        r.mcp
            .ok(
                "mobile_set_orientation",
                json!({"device": r.dev, "orientation": "portrait"}),
            )
            .await;
        let (w, h) = r.phone.state().oriented_size();
        assert!(w < h, "the tablet is not portrait: {w}x{h}");
        let res = r
            .mcp
            .call("mobile_get_orientation", json!({"device": r.dev}))
            .await;
        assert_eq!(res.structured_content.unwrap()["orientation"], "portrait");
        r.mcp
            .ok(
                "mobile_swipe_on_screen",
                json!({"device": r.dev, "direction": "left"}),
            )
            .await;
        inside(&r.phone);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_animated_screen_ends_in_a_hint_within_the_deadline() {
    bounded(async {
        let r = rig(Profile {
            animated: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call("mobile_list_elements_on_screen", json!({"device": r.dev}))
            .await;
        let t = err_text(&res);
        assert!(t.contains("animating"), "{t}");
        // Each refusal costs a real phone 10 s: the retries must fit the 30 s deadline.
        let spent = r.phone.state().profile.clock.now_ms;
        assert!(spent < 30_000, "uiautomator would have run {spent} ms");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_uiautomation_client_is_named() {
    bounded(async {
        let r = rig(Profile {
            other_uiautomation: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call("mobile_list_elements_on_screen", json!({"device": r.dev}))
            .await;
        let t = err_text(&res);
        assert!(t.contains("another UiAutomation client"), "{t}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_tap_on_android_10_is_a_double_tap() {
    bounded(async {
        let r = rig(Profile::android(29)).await;
        r.mcp
            .ok(
                "mobile_double_tap_on_screen",
                json!({"device": r.dev, "x": 300, "y": 400}),
            )
            .await;
        let s = r.phone.state();
        let taps: Vec<_> = s
            .input_events
            .iter()
            .filter(|e| matches!(e, InputEvent::Tap { x, y } if *x == 300.0 && *y == 400.0))
            .collect();
        assert_eq!(taps.len(), 2, "{:?}", s.input_events);
        assert_eq!(
            s.profile.clock.double_taps, 1,
            "the taps were too far apart: {:?}",
            s.profile.clock
        );
        assert!(r.phone.injections().is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crlf_presses_enter_once() {
    bounded(async {
        let r = rig(Profile::default()).await;
        r.mcp
            .ok(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "a\r\nb", "submit": false}),
            )
            .await;
        let enters = r
            .phone
            .state()
            .input_events
            .iter()
            .filter(|e| matches!(e, InputEvent::Key { name, .. } if name.contains("ENTER")))
            .count();
        assert_eq!(enters, 1);
    })
    .await;
}
