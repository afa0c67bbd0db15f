//! Settle and observe on a simulator: a tap that opens another screen, which slides in for
//! a few hundred ms (the fake's `transition_ms`), returns the new screen's elements where
//! they rest and "settled", found through the element-list signal (iOS has no frame hash).

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tap_returns_the_settled_new_screen_on_a_simulator() {
    let Some(mac) = Mac::fake_with(|state, _| {
        for s in &mut state.simulators {
            s.transition_ms = 400;
        }
    }) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), async {
        let mcp = mac.ios_server(&[]).await;
        let dev = json!(BOOTED_UDID);
        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.apple.Preferences", "observe": "none"}),
        )
        .await;
        mcp.ok("mobile_list_elements_on_screen", json!({"device": dev}))
            .await;

        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "label": "General"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let t = text_of(&r);
        assert!(t.starts_with("Tapped at (201, 286)"), "{t}");
        let sc = r.structured_content.unwrap();
        assert_eq!(sc["settle"]["settled"], true, "{sc}");
        assert_eq!(sc["settle"]["signal"], "element list");
        assert!(
            sc["settle"]["samples"].as_u64().unwrap() > 2,
            "the slide was seen moving: {sc}"
        );
        let added = &sc["changes"]["added"];
        let about = added
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["label"] == "About")
            .unwrap_or_else(|| panic!("the new screen's elements: {sc}"));
        // Where it rests (the fake's screen), not somewhere on the slide.
        let rest = &mac.fake_sim().screens["com.apple.Preferences/general"][0];
        assert_eq!(about["coordinates"]["x"].as_f64(), Some(rest.x), "{about}");

        let sim = mac.fake_sim();
        assert_eq!(sim.gestures, vec!["tap 201,286".to_string()]);
        assert_eq!(
            sim.shown.get("com.apple.Preferences").map(String::as_str),
            Some("com.apple.Preferences/general"),
            "the tap opened General"
        );
        assert!(sim.transition.is_some(), "the slide ran");
    })
    .await
    .expect("bounded");
}
