//! The built binary over stdio with rmcp's client: initialize, tools/list, and the rules
//! every tool must meet (description, all four annotations, strict input schema, name).

use std::collections::BTreeSet;
use std::time::Duration;

use mobile_mcp::strictness_problems;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

/// The tools of the peer server that prompts are written for, by the same names (without
/// its four cloud-only tools), plus mobile_ui_dump, mobile_adb_push, mobile_adb_pull and
/// the Maestro flow tools, which this server adds.
const EXPECTED: &[&str] = &[
    "mobile_list_available_devices",
    "mobile_list_apps",
    "mobile_get_foreground_app",
    "mobile_launch_app",
    "mobile_terminate_app",
    "mobile_install_app",
    "mobile_uninstall_app",
    "mobile_wait_for",
    "mobile_get_screen_size",
    "mobile_click_on_screen_at_coordinates",
    "mobile_double_tap_on_screen",
    "mobile_long_press_on_screen_at_coordinates",
    "mobile_list_elements_on_screen",
    "mobile_press_button",
    "mobile_open_url",
    "mobile_swipe_on_screen",
    "mobile_type_keys",
    "mobile_save_screenshot",
    "mobile_take_screenshot",
    "mobile_set_orientation",
    "mobile_get_orientation",
    "mobile_set_location",
    "mobile_clipboard",
    "mobile_get_device_logs",
    "mobile_start_screen_recording",
    "mobile_stop_screen_recording",
    "mobile_list_crashes",
    "mobile_get_crash",
    "mobile_batch_commands",
    "mobile_ui_dump",
    "mobile_adb_push",
    "mobile_adb_pull",
    "mobile_drag_on_screen",
    "mobile_fold_device",
    "mobile_run_flow",
    "mobile_export_flow",
];

/// Parameter names the peer uses, which prompts written for it pass.
const PARITY_PARAMS: &[(&str, &[&str])] = &[
    ("mobile_launch_app", &["device", "packageName", "locale"]),
    ("mobile_terminate_app", &["device", "packageName"]),
    ("mobile_install_app", &["device", "path"]),
    ("mobile_uninstall_app", &["device", "bundle_id"]),
    (
        "mobile_click_on_screen_at_coordinates",
        &["device", "x", "y", "ref"],
    ),
    (
        "mobile_long_press_on_screen_at_coordinates",
        &["device", "x", "y", "duration"],
    ),
    ("mobile_list_elements_on_screen", &["device", "format"]),
    ("mobile_press_button", &["device", "button"]),
    ("mobile_open_url", &["device", "url"]),
    (
        "mobile_swipe_on_screen",
        &["device", "direction", "x", "y", "distance"],
    ),
    ("mobile_type_keys", &["device", "text", "submit"]),
    (
        "mobile_save_screenshot",
        &["device", "saveTo", "maxSize", "scale"],
    ),
    ("mobile_take_screenshot", &["device", "maxSize", "scale"]),
    ("mobile_set_orientation", &["device", "orientation"]),
    ("mobile_set_location", &["device", "latitude", "longitude"]),
    ("mobile_clipboard", &["device", "text"]),
    (
        "mobile_get_device_logs",
        &["device", "limit", "filter", "saveTo"],
    ),
    (
        "mobile_start_screen_recording",
        &["device", "output", "timeLimit"],
    ),
    ("mobile_get_crash", &["device", "id"]),
    (
        "mobile_batch_commands",
        &["device", "steps", "stopOnError", "listElementsAtEnd"],
    ),
];

#[tokio::test]
async fn tools_list_over_stdio_meets_the_rules() {
    let bin = std::path::PathBuf::from(crate::SERVER);
    let mut cmd = tokio::process::Command::new(bin);
    cmd.env("RUST_LOG", "warn");
    let transport = TokioChildProcess::new(cmd).expect("spawn mobile-mcp");
    let client = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize");
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("mobile-mcp")
    );
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: BTreeSet<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let expected: BTreeSet<String> = EXPECTED.iter().map(|s| s.to_string()).collect();
    assert_eq!(names, expected);

    for t in &tools {
        let name = t.name.as_ref();
        assert!(name.len() <= 63, "{name} is too long");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
            "{name} has a character strict clients reject"
        );
        let desc = t.description.as_deref().unwrap_or("");
        assert!(desc.len() > 20, "{name} lacks a description");
        let a = t
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{name} lacks annotations"));
        for (hint, v) in [
            ("readOnlyHint", a.read_only_hint),
            ("destructiveHint", a.destructive_hint),
            ("idempotentHint", a.idempotent_hint),
            ("openWorldHint", a.open_world_hint),
        ] {
            assert!(v.is_some(), "{name} does not set {hint}");
        }
        let schema = Value::Object((*t.input_schema).clone());
        assert_eq!(schema["type"], "object", "{name}");
        let problems = strictness_problems(&schema);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        if let Some(out) = &t.output_schema {
            let out = Value::Object((**out).clone());
            assert_eq!(out["type"], "object", "{name} outputSchema");
            assert!(strictness_problems(&out).is_empty(), "{name} outputSchema");
        }
        let props = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (pname, p) in &props {
            assert!(
                p.get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| !d.is_empty()),
                "{name}.{pname} has no description"
            );
        }
        // `device` may be left out when exactly one device is connected, so no tool requires
        // it; every tool but the listing takes it.
        if name != "mobile_list_available_devices" {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            assert!(
                !required.contains(&"device"),
                "{name} must not require device"
            );
            assert!(
                schema["properties"].get("device").is_some(),
                "{name} must take device"
            );
        }
    }
    for (tool, params) in PARITY_PARAMS {
        let t = tools.iter().find(|t| t.name == *tool).unwrap();
        let props = t
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap();
        for p in *params {
            assert!(props.contains_key(*p), "{tool} lacks parameter {p}");
        }
    }

    // The annotation matrix, spot-checked where the issue names it.
    let hints = |n: &str| {
        let a = tools
            .iter()
            .find(|t| t.name == n)
            .unwrap()
            .annotations
            .clone()
            .unwrap();
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
    };
    assert_eq!(
        hints("mobile_get_orientation"),
        (Some(true), Some(false), Some(true))
    );
    assert_eq!(
        hints("mobile_set_orientation"),
        (Some(false), Some(false), Some(true))
    );
    assert_eq!(hints("mobile_uninstall_app").1, Some(true));
    assert_eq!(
        hints("mobile_click_on_screen_at_coordinates"),
        (Some(false), Some(false), Some(false))
    );
    for n in [
        "mobile_list_available_devices",
        "mobile_list_apps",
        "mobile_list_elements_on_screen",
        "mobile_get_screen_size",
        "mobile_get_orientation",
        "mobile_get_foreground_app",
        "mobile_list_crashes",
    ] {
        let t = tools.iter().find(|t| t.name == n).unwrap();
        assert!(
            t.output_schema.is_some(),
            "{n} should declare an outputSchema"
        );
    }
    client.cancel().await.expect("clean shutdown");
}

#[test]
fn exits_cleanly_on_stdin_eof_and_sigterm() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let bin = std::path::PathBuf::from(crate::SERVER);

    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n")
        .unwrap();
    let status = wait_with_deadline(&mut child, Duration::from_secs(10));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "EOF on stdin ends the server with 0"
    );

    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = wait_with_deadline(&mut child, Duration::from_secs(10));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "SIGTERM ends the server with 0"
    );

    let out = Command::new(&bin).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--listen",
        "--adb-server",
        "--demo",
        "--log-file",
        "--read-only",
        "--allow-url-scheme",
        "MCP_MODEL_PAYLOAD_FILTER",
        "RUST_LOG",
        "ADB_SERVER_SOCKET",
        "MOBILE_MCP_XCRUN",
    ] {
        assert!(help.contains(flag), "--help does not document {flag}");
    }
}

fn wait_with_deadline(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let start = std::time::Instant::now();
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
