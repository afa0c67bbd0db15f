//! The payload filter over stdio, on the raw wire: what the model would see contains no
//! term (every string and key, except image data), tokens sent back arrive decoded,
//! colliding keys get -32602, and with the filter off the bytes are the unfiltered server's.

use base64::Engine;
use mcp_payload_filter::Filter;
use serde_json::{Value, json};
use test_support::RawStdio;

/// Every string and key of `v` except image/audio `data`.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => {
            let media = matches!(
                o.get("type").and_then(Value::as_str),
                Some("image" | "audio")
            );
            for (k, x) in o {
                out.push(k.clone());
                if !(media && k == "data") {
                    strings(x, out);
                }
            }
        }
        _ => {}
    }
}

fn assert_no_term(msgs: &[Value]) {
    let f = Filter::global();
    for m in msgs {
        let mut all = Vec::new();
        strings(m, &mut all);
        for s in all {
            assert!(!f.contains_term(&s), "a term leaked in {s:?} of {m}");
        }
    }
}

/// No device backend answers here (closed adb port, no adb, no xcrun), so the exchange is
/// the same on every run.
const NO_DEVICES: &[&str] = &["--adb-server", "127.0.0.1:1"];

fn scripted_exchange(filter: Option<&str>, with_terms: bool) -> Vec<String> {
    let mut w = RawStdio::start(crate::SERVER, NO_DEVICES, filter);
    w.initialize();
    w.request(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    w.call(2, "mobile_list_available_devices", json!({}));
    let dev = if with_terms {
        "qwen-phone"
    } else {
        "plain-phone"
    };
    w.call(3, "mobile_list_apps", json!({"device": dev}));
    w.call(
        4,
        "mobile_launch_app",
        json!({"device": dev, "packageName": "com.x;y"}),
    );
    w.call(
        5,
        "mobile_open_url",
        json!({"device": dev, "url": "javascript:alert(1)"}),
    );
    std::mem::take(&mut w.seen)
}

#[test]
fn filter_on_hides_every_term_and_decodes_arguments() {
    let mut w = RawStdio::start(crate::SERVER, NO_DEVICES, Some("1"));
    w.initialize();
    let list = w.request(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    assert_no_term(&list);

    // An error result that echoes an argument with terms: encoded on the way out.
    let r = w.call(
        2,
        "mobile_list_apps",
        json!({"device": "Alibaba-Qwen phone"}),
    );
    assert_no_term(&r);
    let text = r.last().unwrap()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(r.last().unwrap()["result"]["isError"], true);
    assert!(
        Filter::global()
            .decode_str(&text)
            .contains("Device \"Alibaba-Qwen phone\" was not found"),
        "{text}"
    );

    // A token sent back is decoded before validation: a valid name passes the schema and
    // reaches device lookup; a token of an invalid value is reported as invalid, decoded.
    let r = w.call(3, "mobile_launch_app", json!({"device": "d", "packageName": "com.__mcp_ref_616c6962616261__.__mcp_ref_7177656e__"}));
    let text = r.last().unwrap()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("Device \\\"d\\\"") || text.contains("Device \"d\""),
        "a valid token passed validation: {text}"
    );
    let r = w.call(
        4,
        "mobile_launch_app",
        json!({"device": "d", "packageName": "com.__mcp_ref_7177656e__;reboot"}),
    );
    let text = r.last().unwrap()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("not a valid app id"), "{text}");
    assert!(
        Filter::global()
            .decode_str(&text)
            .contains("\"com.qwen;reboot\""),
        "{text}"
    );
    assert_no_term(&r);

    // Keys that collide once decoded: -32602, and the service never ran the call.
    let r = w.call(
        5,
        "mobile_list_apps",
        json!({"device": "d", "__mcp_ref_646576696365__": "e"}),
    );
    let last = r.last().unwrap();
    assert_eq!(last["error"]["code"], -32602, "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("collide")
    );
}

#[test]
fn filter_off_is_byte_identical_whatever_the_variable_says() {
    let unset = scripted_exchange(None, true);
    for off in ["", "0", "01", "true", "TRUE", "yes", " 1"] {
        assert_eq!(
            scripted_exchange(Some(off), true),
            unset,
            "MCP_MODEL_PAYLOAD_FILTER={off:?}"
        );
    }
    // And "1" does change it (so the comparison above can fail).
    assert_ne!(scripted_exchange(Some("1"), true), unset);
    // With nothing to filter, the filtering layer is transparent to the byte.
    assert_eq!(
        scripted_exchange(Some("1"), false),
        scripted_exchange(None, false)
    );
}

#[test]
fn progress_and_images_on_the_demo_phone() {
    let mut w = RawStdio::start(crate::SERVER, &["--demo"], Some("1"));
    w.initialize();
    let r = w.call(1, "mobile_list_available_devices", json!({}));
    let dev = r.last().unwrap()["result"]["structuredContent"]["devices"][0]["id"].clone();
    assert_no_term(&r);

    // An image result: the image bytes are untouched and decode; the rest has no term.
    let r = w.call(2, "mobile_take_screenshot", json!({"device": dev}));
    assert_no_term(&r);
    let content = &r.last().unwrap()["result"]["content"];
    let data = content[1]["data"].as_str().unwrap();
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert!(image::load_from_memory(&jpeg).is_ok());

    // A progress notification whose text names the file: encoded, and the client's
    // progressToken comes back exactly as sent, terms and all.
    let dir = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let apk = dir.path().join("qwen-helper.apk");
    let mut bytes = virtual_phone::fake_apk("com.example.helper", "Helper");
    bytes.resize(300_000, 0);
    std::fs::write(&apk, bytes).unwrap();
    let r = w.request(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{
        "_meta": {"progressToken": "qwen-token-1"},
        "name": "mobile_install_app",
        "arguments": {"device": dev, "path": apk.display().to_string()}}}),
    );
    let last = r.last().unwrap();
    assert_ne!(last["result"]["isError"], true, "{last}");
    let progress: Vec<&Value> = r
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress notification in {r:?}");
    for p in &progress {
        assert_eq!(p["params"]["progressToken"], "qwen-token-1");
        let msg = p["params"]["message"].as_str().unwrap();
        assert!(msg.contains("__mcp_ref_"), "{msg}");
        assert!(
            Filter::global().decode_str(msg).contains("qwen-helper.apk"),
            "{msg}"
        );
    }
    let mut without_token: Vec<Value> = r.clone();
    for m in &mut without_token {
        if let Some(p) = m.get_mut("params") {
            p.as_object_mut().unwrap().remove("progressToken");
        }
    }
    assert_no_term(&without_token);
}

/// With the filter on, a `notifications/cancelled` whose keys collide once decoded (in its
/// `_meta`, which the typed stdio read keeps: `reason` next to the token for `reason`)
/// still cancels the running call: the upload stops and the package never lands on the
/// phone. Before, the notification was dropped and the upload ran to its end.
#[test]
fn a_colliding_cancellation_still_cancels() {
    use std::time::{Duration, Instant};

    // Held whole, so the adb server and the package file live as long as the test.
    let mut install = crate::big_install::started(Some("1"));
    let (phone, w) = (&install.phone, &mut install.wire);
    w.send(
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{
        "requestId": 9, "reason": "changed my mind",
        "_meta": {"reason": 1, "__mcp_ref_726561736f6e__": 2}}}),
    );
    let r = w.call(
        10,
        "mobile_get_orientation",
        json!({"device": phone.serial()}),
    );
    assert_ne!(r.last().unwrap()["result"]["isError"], true, "{r:?}");
    assert!(
        r.iter().all(|m| m["id"] != 9),
        "the install answered: {r:?}"
    );
    // Several times what the whole upload takes on loopback when not cancelled: no
    // answer to the call, and no package.
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(10) {
        assert!(
            !phone.state().packages.contains_key("com.example.big"),
            "the cancelled upload completed"
        );
        if let Some(line) = w.next_line(Duration::from_millis(200)) {
            let v: Value = serde_json::from_str(&line).unwrap();
            assert!(
                !(v["id"] == 9 && v.get("method").is_none()),
                "the cancelled install answered: {v}"
            );
        }
    }
}
