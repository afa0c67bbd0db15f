//! Router tests of `mobile_batch_commands`' bounds and failures: a failed batch says first
//! which step failed and why, and keeps what the earlier steps returned (their images
//! too); a batch past its step or delay cap is refused before anything reaches the device,
//! and its schema says the caps.

use mobile_mcp::ServerOptions;
use rmcp::model::ContentBlock;
use serde_json::json;

use crate::router::{start, text_of};

#[tokio::test]
async fn a_failed_batch_says_which_step_failed_first_and_keeps_the_rest() {
    let h = start(ServerOptions::default()).await;
    // 40 steps of output (more than an error text's 1,500 characters), a screenshot, then
    // a failing step.
    let mut steps: Vec<_> = (0..40)
        .map(|_| json!({"name": "mobile_get_screen_size"}))
        .collect();
    steps.push(json!({"name": "mobile_take_screenshot", "arguments": {"maxSize": 64}}));
    steps.push(json!({"name": "mobile_press_button", "arguments": {"button": "BOGUS"}}));
    steps.push(json!({"name": "mobile_press_button", "arguments": {"button": "HOME"}}));
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": steps}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let first = match r.content.first() {
        Some(ContentBlock::Text(t)) => t.text.clone(),
        other => panic!("the first block is not text: {other:?}"),
    };
    assert!(
        first.starts_with(
            "Step 42 (mobile_press_button) failed: Invalid arguments: Unknown button \"BOGUS\""
        ),
        "{first}"
    );
    let all = text_of(&r);
    // The earlier steps' results are all there, and the screenshot's image.
    assert_eq!(all.matches("Screen size is 1080x2400").count(), 40, "{all}");
    assert!(
        r.content
            .iter()
            .any(|c| matches!(c, ContentBlock::Image(i) if !i.data.is_empty())),
        "the screenshot taken before the failure is kept"
    );
    assert!(all.contains("Stopped at the first failure"), "{all}");
    // The device got the 40 size reads and the screenshot, and not the step after the failure.
    let calls = h.calls.take();
    assert_eq!(
        calls.iter().filter(|c| *c == "screen_size").count(),
        40,
        "{calls:?}"
    );
    assert!(calls.contains(&"screenshot".to_string()), "{calls:?}");
    assert!(
        !calls.iter().any(|c| c.starts_with("press_button")),
        "{calls:?}"
    );
}

#[tokio::test]
async fn batches_past_their_caps_are_refused_before_the_device() {
    let h = start(ServerOptions::default()).await;
    let many: Vec<_> = (0..51)
        .map(|_| json!({"name": "mobile_press_button", "arguments": {"button": "HOME"}}))
        .collect();
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": many}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let t = text_of(&r);
    assert!(t.contains("at most 50 steps"), "{t}");
    assert!(t.contains("has 51"), "{t}");
    // Four 10 s delays: each is allowed, together they are past 30 s.
    let delays: Vec<_> = (0..4)
        .map(|_| json!({"name": "delay", "arguments": {"duration": 10000}}))
        .chain([json!({"name": "mobile_press_button", "arguments": {"button": "HOME"}})])
        .collect();
    let started = std::time::Instant::now();
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": delays}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let t = text_of(&r);
    assert!(
        t.contains("30000 ms in all") && t.contains("40000 ms"),
        "{t}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "refused before waiting"
    );
    assert!(h.calls.take().is_empty());
    // The schema says the caps.
    let tools = h.client.list_all_tools().await.unwrap();
    let batch = tools
        .iter()
        .find(|t| t.name == "mobile_batch_commands")
        .unwrap();
    assert_eq!(batch.input_schema["properties"]["steps"]["maxItems"], 50);
    let d = batch.description.as_deref().unwrap_or_default();
    assert!(d.contains("At most 50 steps") && d.contains("120 s"), "{d}");
}
