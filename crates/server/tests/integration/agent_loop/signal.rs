//! Which settle signal the Android backend samples: the frame timeline on Android 12 and
//! later, the frame hash before (where `--frametimeline` would fall through to the full
//! dump), judged by the shell commands the phone received.

use super::*;
use virtual_phone::profile::{Profile, apply};

/// A rig on Android `sdk` whose Shop app was launched.
async fn launched_on(sdk: u32) -> Rig {
    let mut state = living_state();
    apply(&mut state, Profile::android(sdk));
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        state: Some(state),
        ..Default::default()
    })
    .await;
    let r = Rig {
        dev: json!(s.phone.serial()),
        mcp: s.mcp,
        phone: s.phone,
        _adb: s.adb,
    };
    r.mcp
        .ok(
            "mobile_launch_app",
            json!({"device": r.dev, "packageName": SHOP}),
        )
        .await;
    r
}

/// Taps "Product 1" and checks the settled new screen; returns the settle's signal and the
/// shell lines the phone ran during the tap.
async fn tap_product(r: &Rig) -> (String, Vec<String>) {
    let before = r.phone.commands().len();
    let res = r
        .mcp
        .call(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": r.dev, "text": "Product 1"}),
        )
        .await;
    assert_ne!(res.is_error, Some(true), "{}", text_of(&res));
    assert_eq!(screen(&r.phone), "detail");
    let sc = res.structured_content.unwrap();
    assert_eq!(sc["settle"]["settled"], true, "{sc}");
    let added = &sc["changes"]["added"];
    let (x, y) = center(find(added, "Buy now"));
    assert_eq!(
        (x as i32, y as i32),
        r.phone.element_center("Buy now").unwrap(),
        "the resting screen, not one on the slide"
    );
    assert!(
        r.phone.injections().is_empty(),
        "{:?}",
        r.phone.injections()
    );
    let lines = r.phone.commands()[before..]
        .iter()
        .map(|c| c.command.clone())
        .collect();
    (sc["settle"]["signal"].as_str().unwrap().to_string(), lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_12_and_later_settle_on_the_frame_timeline() {
    tokio::time::timeout(DEADLINE, async {
        let r = launched_on(34).await;
        let (signal, lines) = tap_product(&r).await;
        assert_eq!(signal, "frame timeline");
        let timeline = lines
            .iter()
            .filter(|l| l.contains("--frametimeline -all") && l.ends_with("| sha1sum"))
            .count();
        assert!(timeline >= 2, "two samples at least: {lines:?}");
        assert!(
            !lines.iter().any(|l| l.contains("screencap")),
            "no frame captured: {lines:?}"
        );
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_11_settles_on_the_frame_hash() {
    tokio::time::timeout(DEADLINE, async {
        let r = launched_on(30).await;
        let (signal, lines) = tap_product(&r).await;
        assert_eq!(signal, "frame hash");
        assert!(
            lines.iter().any(|l| l == "screencap | sha1sum"),
            "{lines:?}"
        );
        let all = r.phone.commands();
        assert!(
            !all.iter().any(|c| c.command.contains("--frametimeline")),
            "the frame timeline is not asked for before Android 12"
        );
    })
    .await
    .expect("bounded");
}
