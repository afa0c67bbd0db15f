//! Heavy work in flight is bounded: many screenshots, element lists and UI dumps asked of
//! one phone at once all succeed, and the phone never has more of them running at once
//! than the server's per-device bound (2). Without the bound each call opened its own
//! phone command at once, and the server held every capture in memory together.

use futures_util::future::join_all;
use serde_json::json;

/// The server's default bound on heavy calls in flight per device.
const PER_DEVICE: usize = 2;

#[tokio::test]
async fn many_heavy_calls_at_once_are_served_a_few_at_a_time() {
    let s = crate::phone_rig::start(Default::default()).await;
    let serial = s.phone.serial();
    crate::phone_rig::wait_online(&s.mcp, &serial).await;
    s.phone.reset_peak_services();
    let before = s.phone.shell_commands().len();

    let calls = (0..36).map(|i| {
        let (tool, args) = match i % 3 {
            0 => (
                "mobile_take_screenshot",
                json!({"device": serial, "maxSize": 2400}),
            ),
            1 => ("mobile_list_elements_on_screen", json!({"device": serial})),
            _ => ("mobile_ui_dump", json!({"device": serial})),
        };
        let mcp = &s.mcp;
        async move { (tool, mcp.call(tool, args).await) }
    });
    let results = join_all(calls).await;
    for (tool, r) in &results {
        assert_ne!(
            r.is_error,
            Some(true),
            "{tool}: {}",
            test_support::text_of(r)
        );
    }
    let screenshots = results
        .iter()
        .filter(|(t, r)| {
            *t == "mobile_take_screenshot" && r.content.iter().any(|c| c.as_image().is_some())
        })
        .count();
    assert_eq!(screenshots, 12, "every screenshot came back with its image");
    let ran = s.phone.shell_commands().len() - before;
    let peak = s.phone.peak_services();
    eprintln!("36 heavy calls: {ran} phone commands, at most {peak} at once");
    assert!(ran >= 36, "each call reached the phone ({ran} commands)");
    assert!(
        peak <= PER_DEVICE,
        "the phone had {peak} services running at once (bound {PER_DEVICE})"
    );
    assert!(s.phone.injections().is_empty());
}
