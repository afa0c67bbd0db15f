//! End to end on iOS: the built binary with `MOBILE_MCP_XCRUN`/`MOBILE_MCP_IDB` pointing at
//! the fake toolchain, rmcp's client over stdio, beside the virtual Android phone behind a
//! private adb server. Checks the exact argv the fakes received and their state afterwards.
//! (Verified against the fakes only; see README for running on a Mac.)

use std::path::PathBuf;
use std::time::Duration;

use mobile_mcp_e2e::{McpChild, cargo_bin, text_of};
use serde_json::{Value, json};
use virtual_device::adb_server::PrivateAdbServer;
use virtual_device::ios::{
    BOOTED_UDID, LoggedCommand, NOTES_BUNDLE, NOTES_NAME, SHUTDOWN_UDID, read_command_log,
    read_state, write_default_state,
};
use virtual_device::{PhoneConfig, VirtualPhone};

const DEADLINE: Duration = Duration::from_secs(240);

struct Sim {
    dir: tempfile::TempDir,
}

impl Sim {
    fn new() -> Sim {
        let dir = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        write_default_state(&dir.path().join("state.json")).unwrap();
        Sim { dir }
    }
    fn state_path(&self) -> PathBuf {
        self.dir.path().join("state.json")
    }
    fn log_path(&self) -> PathBuf {
        self.dir.path().join("log.jsonl")
    }
    fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                "MOBILE_MCP_XCRUN".into(),
                cargo_bin("virtual-device", "fake-xcrun")
                    .display()
                    .to_string(),
            ),
            (
                "MOBILE_MCP_IDB".into(),
                cargo_bin("virtual-device", "fake-idb")
                    .display()
                    .to_string(),
            ),
            (
                "FAKE_IOS_STATE".into(),
                self.state_path().display().to_string(),
            ),
            ("FAKE_IOS_LOG".into(), self.log_path().display().to_string()),
        ]
    }
    /// Takes the command log (and clears it).
    fn commands(&self) -> Vec<LoggedCommand> {
        let log = read_command_log(&self.log_path()).unwrap();
        let _ = std::fs::remove_file(self.log_path());
        log
    }
    fn foreground(&self) -> Option<String> {
        read_state(&self.state_path())
            .unwrap()
            .simulator(BOOTED_UDID)
            .unwrap()
            .foreground
            .clone()
    }
}

fn has_argv(log: &[LoggedCommand], tool: &str, argv: &[&str]) -> bool {
    log.iter()
        .any(|c| c.tool == tool && c.argv.iter().map(String::as_str).eq(argv.iter().copied()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulators_beside_the_android_phone_and_every_tool_works() {
    tokio::time::timeout(DEADLINE, async {
        let sim = Sim::new();
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        let mut env = sim.env();
        env.extend(adb.env());
        let server = format!("127.0.0.1:{}", adb.port());
        let mcp = McpChild::spawn(&["--adb-server", &server], &env).await;

        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let devices = r.structured_content.unwrap()["devices"].clone();
        let find = |id: &str| devices.as_array().unwrap().iter().find(|d| d["id"] == id).cloned();
        let iphone = find(BOOTED_UDID).unwrap_or_else(|| panic!("no booted simulator in {devices}"));
        assert_eq!(iphone["platform"], "ios");
        assert_eq!(iphone["type"], "simulator");
        assert_eq!(iphone["state"], "online");
        let ipad = find(SHUTDOWN_UDID).unwrap();
        assert_eq!(ipad["state"], "shutdown");
        assert!(ipad["hint"].as_str().unwrap().contains("simctl boot"), "{ipad}");
        assert!(find(&phone.serial()).is_some(), "the Android phone is listed too: {devices}");
        let dev = json!(BOOTED_UDID);

        // An app name with spaces, quotes and CJK survives listing and launching.
        let r = mcp.call("mobile_list_apps", json!({"device": dev})).await;
        let apps = r.structured_content.clone().unwrap()["apps"].clone();
        assert!(
            apps.as_array().unwrap().iter().any(|a| a["packageName"] == NOTES_BUNDLE && a["appName"] == NOTES_NAME),
            "{apps}"
        );
        assert!(text_of(&r).contains(NOTES_NAME));
        sim.commands();
        mcp.ok("mobile_launch_app", json!({"device": dev, "packageName": NOTES_BUNDLE})).await;
        assert!(has_argv(&sim.commands(), "xcrun", &["simctl", "launch", BOOTED_UDID, NOTES_BUNDLE]));
        assert_eq!(sim.foreground().as_deref(), Some(NOTES_BUNDLE));
        let r = mcp.call("mobile_get_foreground_app", json!({"device": dev})).await;
        if r.is_error != Some(true) {
            assert_eq!(r.structured_content.unwrap()["packageName"], NOTES_BUNDLE);
        }

        // Screen, elements, taps by ref.
        let r = mcp.call("mobile_get_screen_size", json!({"device": dev})).await;
        assert!(text_of(&r).contains("points"), "{}", text_of(&r));
        let r = mcp.call("mobile_list_elements_on_screen", json!({"device": dev})).await;
        let els = r.structured_content.unwrap()["elements"].clone();
        let first = els.as_array().unwrap().iter().find(|e| e["coordinates"]["width"].as_i64().unwrap_or(0) > 0).unwrap().clone();
        sim.commands();
        mcp.ok("mobile_click_on_screen_at_coordinates", json!({"device": dev, "ref": first["ref"]})).await;
        let log = sim.commands();
        assert!(log.iter().any(|c| c.tool == "idb" && c.argv.first().map(String::as_str) == Some("ui") && c.argv.get(1).map(String::as_str) == Some("tap")), "{log:?}");
        let r = mcp.call("mobile_take_screenshot", json!({"device": dev})).await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(text_of(&r).contains("Screen coordinates are"), "{}", text_of(&r));

        // Input, gestures, buttons, URL, orientation: each reaches idb/simctl with exact argv.
        sim.commands();
        mcp.ok("mobile_type_keys", json!({"device": dev, "text": "hi there; $(x)", "submit": false})).await;
        mcp.ok("mobile_press_button", json!({"device": dev, "button": "HOME"})).await;
        mcp.ok("mobile_swipe_on_screen", json!({"device": dev, "direction": "up"})).await;
        mcp.ok("mobile_double_tap_on_screen", json!({"device": dev, "x": 10, "y": 20})).await;
        mcp.ok("mobile_long_press_on_screen_at_coordinates", json!({"device": dev, "x": 10, "y": 20})).await;
        mcp.ok("mobile_open_url", json!({"device": dev, "url": "https://example.com/?a=1&b=$(id)"})).await;
        let log = sim.commands();
        assert!(has_argv(&log, "idb", &["ui", "text", "hi there; $(x)", "--udid", BOOTED_UDID]), "{log:?}");
        assert!(has_argv(&log, "idb", &["ui", "button", "HOME", "--udid", BOOTED_UDID]), "{log:?}");
        assert!(has_argv(&log, "xcrun", &["simctl", "openurl", BOOTED_UDID, "https://example.com/?a=1&b=$(id)"]), "{log:?}");
        let e = mcp.call("mobile_press_button", json!({"device": dev, "button": "BACK"})).await;
        assert_eq!(e.is_error, Some(true));
        assert!(text_of(&e).contains("HOME, LOCK, SIDE_BUTTON, SIRI, APPLE_PAY"), "{}", text_of(&e));

        mcp.ok("mobile_terminate_app", json!({"device": dev, "packageName": NOTES_BUNDLE})).await;
        assert!(has_argv(&sim.commands(), "xcrun", &["simctl", "terminate", BOOTED_UDID, NOTES_BUNDLE]));
        mcp.ok("mobile_get_device_logs", json!({"device": dev, "limit": 5})).await;
        mcp.ok("mobile_ui_dump", json!({"device": dev})).await;

        // Install from an .app folder, refuse an .ipa, uninstall.
        let app = sim.dir.path().join("Hello.app");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(app.join("Info.plist"), br#"<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.hello</string><key>CFBundleName</key><string>Hello</string></dict></plist>"#).unwrap();
        mcp.ok("mobile_install_app", json!({"device": dev, "path": app.display().to_string()})).await;
        let log = sim.commands();
        assert!(log.iter().any(|c| c.argv.get(1).map(String::as_str) == Some("install")), "{log:?}");
        let installed = read_state(&sim.state_path()).unwrap();
        assert!(
            installed.simulator(BOOTED_UDID).unwrap().apps.iter().any(|a| a.bundle_id == "com.example.hello"),
            "the simulator has the new app"
        );
        mcp.ok("mobile_uninstall_app", json!({"device": dev, "bundle_id": "com.example.hello"})).await;
        let after = read_state(&sim.state_path()).unwrap();
        assert!(!after.simulator(BOOTED_UDID).unwrap().apps.iter().any(|a| a.bundle_id == "com.example.hello"));
        let ipa = sim.dir.path().join("x.ipa");
        std::fs::write(&ipa, b"PK").unwrap();
        let r = mcp.call("mobile_install_app", json!({"device": dev, "path": ipa.display().to_string()})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).contains(".ipa"), "{}", text_of(&r));

        // Clear messages: bad bundle id, not booted, not installed.
        sim.commands();
        let r = mcp.call("mobile_launch_app", json!({"device": dev, "packageName": "com.x;rm -rf ~"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).contains("not a valid app id"));
        let r = mcp.call("mobile_launch_app", json!({"device": dev, "packageName": "-rf"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(sim.commands().is_empty(), "nothing ran for invalid ids");
        let r = mcp.call("mobile_launch_app", json!({"device": SHUTDOWN_UDID, "packageName": NOTES_BUNDLE})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).to_lowercase().contains("boot"), "{}", text_of(&r));
        let r = mcp.call("mobile_launch_app", json!({"device": dev, "packageName": "com.example.missing"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).to_lowercase().contains("not installed"), "{}", text_of(&r));
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_simulator_app_lists_as_tokens_and_launches_from_the_token() {
    tokio::time::timeout(DEADLINE, async {
        let sim = Sim::new();
        let mut env = sim.env();
        env.push(("MCP_MODEL_PAYLOAD_FILTER".into(), "1".into()));
        let mcp = McpChild::spawn(&["--adb-server", "127.0.0.1:1"], &env).await;
        let filter = mcp_payload_filter::Filter::global();
        let r = mcp
            .call("mobile_list_apps", json!({"device": BOOTED_UDID}))
            .await;
        assert!(!filter.contains_term(&serde_json::to_string(&r).unwrap()));
        let apps: Value = r.structured_content.unwrap()["apps"].clone();
        let token = apps
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["packageName"].as_str())
            .find(|p| filter.decode_str(p) == "com.alibaba.qwen")
            .unwrap_or_else(|| panic!("qwen not listed as a token: {apps}"))
            .to_string();
        assert!(token.contains("__mcp_ref_"));
        mcp.ok(
            "mobile_launch_app",
            json!({"device": BOOTED_UDID, "packageName": token}),
        )
        .await;
        assert!(has_argv(
            &sim.commands(),
            "xcrun",
            &["simctl", "launch", BOOTED_UDID, "com.alibaba.qwen"]
        ));
        assert_eq!(sim.foreground().as_deref(), Some("com.alibaba.qwen"));
    })
    .await
    .expect("the test finished within its deadline");
}
