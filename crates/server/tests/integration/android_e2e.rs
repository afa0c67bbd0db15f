//! End to end on Android: the built binary, rmcp's client over stdio, the real adb server
//! (Debian `adb`) on a private port, and the virtual phone. Every tool is called and the
//! phone's state and command log are checked, not only the server's text.
//!
//! With `MOBILE_MCP_TEST_SERIAL` set, the device-independent parts could run against a
//! real device; the phone-state assertions need the virtual phone, so this file always
//! uses it (see README: the emulator workflow runs the backend suite instead).

use std::time::Duration;

use base64::Engine;
use rmcp::model::ContentBlock;
use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::state::InputEvent;

const DEADLINE: Duration = Duration::from_secs(240);

struct Rig {
    mcp: McpChild,
    phone: PhoneHandle,
    serial: String,
    _adb: PrivateAdbServer,
}

async fn rig(extra_env: &[(&str, &str)]) -> Rig {
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        env: extra_env,
        ..Default::default()
    })
    .await;
    let serial = s.phone.serial();
    Rig {
        mcp: s.mcp,
        phone: s.phone,
        serial,
        _adb: s.adb,
    }
}

fn events(phone: &PhoneHandle) -> Vec<InputEvent> {
    phone.state().input_events
}

fn shell_argvs(phone: &PhoneHandle) -> Vec<Vec<String>> {
    phone
        .shell_commands()
        .into_iter()
        .flat_map(|c| c.argv)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_changes_the_phone() {
    tokio::time::timeout(DEADLINE, async {
        let Rig { mcp, phone, serial, _adb } = rig(&[]).await;
        let dev = json!(serial);
        let tmp = tempfile::Builder::new().tempdir_in(std::env::temp_dir()).unwrap();
        let path = |n: &str| tmp.path().join(n).display().to_string();

        // Devices and apps.
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let devices = r.structured_content.clone().unwrap()["devices"].clone();
        let me = devices
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == dev)
            .unwrap_or_else(|| panic!("{serial} not listed: {devices}"));
        assert_eq!(me["state"], "online");
        assert_eq!(me["platform"], "android");
        let r = mcp.call("mobile_list_apps", json!({"device": dev})).await;
        let apps = r.structured_content.clone().unwrap()["apps"].clone();
        assert!(
            apps.as_array().unwrap().iter().any(|a| a["packageName"] == "com.alibaba.qwen" && a["appName"] == "Qwen"),
            "{apps}"
        );

        // Launch, foreground, terminate.
        mcp.ok("mobile_launch_app", json!({"device": dev, "packageName": "com.example.notes"})).await;
        assert_eq!(phone.state().foreground_package(), Some("com.example.notes"));
        let r = mcp.call("mobile_get_foreground_app", json!({"device": dev})).await;
        assert_eq!(r.structured_content.unwrap()["packageName"], "com.example.notes");

        // Screen size and elements.
        let r = mcp.call("mobile_get_screen_size", json!({"device": dev})).await;
        let s = r.structured_content.unwrap();
        assert_eq!((s["width"].as_u64(), s["height"].as_u64()), (Some(1080), Some(2400)));
        let r = mcp
            .call("mobile_list_elements_on_screen", json!({"device": dev, "format": "json"}))
            .await;
        let els = r.structured_content.clone().unwrap()["elements"].clone();
        let new_note = els
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["identifier"] == "com.example.notes:id/new_note")
            .unwrap_or_else(|| panic!("no new_note in {els}"))
            .clone();
        assert!(text_of(&r).starts_with("Found these elements on screen: ["));
        let c = &new_note["coordinates"];
        let (cx, cy) = (
            c["x"].as_i64().unwrap() + c["width"].as_i64().unwrap() / 2,
            c["y"].as_i64().unwrap() + c["height"].as_i64().unwrap() / 2,
        );

        // Tap by ref lands at the element's centre and the screen changes.
        let before = phone.ui_dump();
        phone.update_state(|s| s.input_events.clear());
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "ref": new_note["ref"]}),
        )
        .await;
        assert_eq!(events(&phone), vec![InputEvent::Tap { x: cx as f64, y: cy as f64 }]);
        assert_ne!(phone.ui_dump(), before, "the tap opened another screen");

        // A screenshot, and a tap at screenshot coordinates mapped as its text says.
        let r = mcp.call("mobile_take_screenshot", json!({"device": dev})).await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let mapping = text_of(&r);
        assert!(mapping.starts_with("Screenshot is 461x1024. Screen coordinates are 1080x2400."), "{mapping}");
        let ContentBlock::Image(img) = &r.content[1] else { panic!("no image") };
        let jpeg = base64::engine::general_purpose::STANDARD.decode(&img.data).unwrap();
        let decoded = image::load_from_memory(&jpeg).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (461, 1024));
        let fx: f64 = mapping.split("multiply its x by ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        let fy: f64 = mapping.split(" and y by ").nth(1).unwrap().trim_end_matches('.').parse().unwrap();
        phone.update_state(|s| s.input_events.clear());
        let (sx, sy) = (200.0, 500.0);
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "x": sx * fx, "y": sy * fy}),
        )
        .await;
        assert_eq!(
            events(&phone),
            vec![InputEvent::Tap { x: (sx * fx).round(), y: (sy * fy).round() }]
        );

        // Typing lands in the focused field exactly; hostile text stays literal.
        let r = mcp.call("mobile_list_elements_on_screen", json!({"device": dev})).await;
        let els = r.structured_content.unwrap()["elements"].clone();
        let title = els
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["identifier"] == "com.example.notes:id/title_input")
            .unwrap_or_else(|| panic!("the editor has no title field: {els}"))
            .clone();
        mcp.ok("mobile_click_on_screen_at_coordinates", json!({"device": dev, "ref": title["ref"]})).await;
        let typed = "Shop list; $(reboot) `id` 'a' \"b\" 100%s";
        phone.update_state(|s| s.input_events.clear());
        mcp.ok("mobile_type_keys", json!({"device": dev, "text": typed, "submit": false})).await;
        assert_eq!(phone.state().focused_text().as_deref(), Some(typed));
        mcp.ok("mobile_press_button", json!({"device": dev, "button": "ENTER"})).await;
        let ev = events(&phone);
        let text: String = ev
            .iter()
            .filter_map(|e| match e {
                InputEvent::Text { text } => Some(text.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(text, typed);
        assert!(matches!(ev.last(), Some(InputEvent::Key { name, .. }) if name == "ENTER"), "{ev:?}");
        // ENTER saved the note: the list the agent reads next shows the exact title.
        let r = mcp.call("mobile_list_elements_on_screen", json!({"device": dev})).await;
        let els = r.structured_content.unwrap()["elements"].clone();
        assert!(
            els.as_array().unwrap().iter().any(|e| e["text"] == typed),
            "the saved note is not listed: {els}"
        );

        // Buttons and gestures.
        phone.update_state(|s| s.input_events.clear());
        mcp.ok("mobile_press_button", json!({"device": dev, "button": "BACK"})).await;
        mcp.ok("mobile_swipe_on_screen", json!({"device": dev, "direction": "up"})).await;
        mcp.ok("mobile_swipe_on_screen", json!({"device": dev, "direction": "left", "x": 100, "y": 300, "distance": 5000})).await;
        mcp.ok("mobile_long_press_on_screen_at_coordinates", json!({"device": dev, "x": 100, "y": 200, "duration": 700})).await;
        mcp.ok("mobile_double_tap_on_screen", json!({"device": dev, "x": 10, "y": 20})).await;
        let ev = events(&phone);
        assert!(matches!(&ev[0], InputEvent::Key { name, .. } if name == "BACK"), "{ev:?}");
        assert!(matches!(ev[1], InputEvent::Swipe { x1, y1, x2, y2, .. } if x1 == 540.0 && y1 == 1680.0 && x2 == 540.0 && y2 == 720.0), "{ev:?}");
        assert!(matches!(ev[2], InputEvent::Swipe { x1, x2, y2, .. } if x1 == 100.0 && x2 == 0.0 && y2 == 300.0), "bounded to the screen: {ev:?}");
        assert!(
            matches!(ev[3], InputEvent::LongPress { x, y, duration_ms: 700 } if x == 100.0 && y == 200.0)
                || matches!(ev[3], InputEvent::Swipe { x1, y1, duration_ms: 700, .. } if x1 == 100.0 && y1 == 200.0),
            "{ev:?}"
        );
        assert_eq!(ev[4..], [InputEvent::Tap { x: 10.0, y: 20.0 }, InputEvent::Tap { x: 10.0, y: 20.0 }]);

        // Orientation.
        mcp.ok("mobile_set_orientation", json!({"device": dev, "orientation": "landscape"})).await;
        assert_eq!(phone.state().settings["system"].get("user_rotation").map(String::as_str), Some("1"));
        let r = mcp.call("mobile_get_orientation", json!({"device": dev})).await;
        assert_eq!(r.structured_content.unwrap()["orientation"], "landscape");
        let r = mcp.call("mobile_take_screenshot", json!({"device": dev, "maxSize": 500})).await;
        assert!(text_of(&r).starts_with("Screenshot is 500x225. Screen coordinates are 2400x1080."), "{}", text_of(&r));
        mcp.ok("mobile_set_orientation", json!({"device": dev, "orientation": "portrait"})).await;
        assert_eq!(phone.state().settings["system"].get("user_rotation").map(String::as_str), Some("0"));

        // URL: shell syntax arrives as one literal argument.
        let url = "https://example.com/a?b=1&c=$(id);x='y'";
        phone.clear_log();
        mcp.ok("mobile_open_url", json!({"device": dev, "url": url})).await;
        assert_eq!(phone.state().browser_url, url);
        assert!(shell_argvs(&phone).iter().any(|a| a.last().map(String::as_str) == Some(url)));

        // Terminate.
        mcp.ok("mobile_launch_app", json!({"device": dev, "packageName": "com.example.notes"})).await;
        mcp.ok("mobile_terminate_app", json!({"device": dev, "packageName": "com.example.notes"})).await;
        assert_ne!(phone.state().foreground_package(), Some("com.example.notes"));

        // Files byte for byte (5 MB), install and uninstall.
        let data: Vec<u8> = (0..5_000_000u32).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
        std::fs::write(path("up.bin"), &data).unwrap();
        mcp.ok("mobile_adb_push", json!({"device": dev, "local_path": path("up.bin"), "remote_path": "/sdcard/Download/up.bin"})).await;
        assert!(phone.file("/sdcard/Download/up.bin").as_deref() == Some(&data[..]), "pushed byte for byte");
        mcp.ok("mobile_adb_pull", json!({"device": dev, "remote_path": "/sdcard/Download/up.bin", "local_path": path("down.bin")})).await;
        assert!(std::fs::read(path("down.bin")).unwrap() == data, "pulled byte for byte");
        std::fs::write(path("hello.apk"), virtual_phone::fake_apk("com.example.hello", "Hello")).unwrap();
        mcp.ok("mobile_install_app", json!({"device": dev, "path": path("hello.apk")})).await;
        assert!(phone.state().packages.contains_key("com.example.hello"));
        mcp.ok("mobile_uninstall_app", json!({"device": dev, "bundle_id": "com.example.hello"})).await;
        assert!(!phone.state().packages.contains_key("com.example.hello"));

        // Logs, crashes, raw dump, saved screenshot, recording, clipboard, batch.
        let r = mcp.call("mobile_get_device_logs", json!({"device": dev, "limit": 5})).await;
        let lines = r.structured_content.unwrap()["lines"].as_array().unwrap().len();
        assert!((1..=5).contains(&lines));
        let r = mcp.call("mobile_list_crashes", json!({"device": dev})).await;
        let crashes = r.structured_content.unwrap()["crashes"].clone();
        if let Some(first) = crashes.as_array().unwrap().first() {
            let t = mcp.ok("mobile_get_crash", json!({"device": dev, "id": first["id"]})).await;
            assert!(!t.is_empty());
        }
        let xml = mcp.ok("mobile_ui_dump", json!({"device": dev})).await;
        assert!(xml.contains("<hierarchy"), "{xml}");
        mcp.ok("mobile_save_screenshot", json!({"device": dev, "saveTo": path("shot.png")})).await;
        let saved = image::open(path("shot.png")).unwrap();
        assert_eq!((saved.width(), saved.height()), (1080, 2400));
        mcp.ok("mobile_start_screen_recording", json!({"device": dev, "output": path("rec.mp4"), "timeLimit": 30})).await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        mcp.ok("mobile_stop_screen_recording", json!({"device": dev})).await;
        assert!(std::fs::metadata(path("rec.mp4")).unwrap().len() > 0);
        let r = mcp.call("mobile_clipboard", json!({"device": dev, "text": "copied text"})).await;
        if r.is_error != Some(true) {
            assert_eq!(phone.state().clipboard, "copied text");
            assert_eq!(mcp.ok("mobile_clipboard", json!({"device": dev})).await, "copied text");
        } else {
            assert!(text_of(&r).contains("not supported"), "{}", text_of(&r));
        }
        let r = mcp.call("mobile_set_location", json!({"device": dev, "latitude": 1.5, "longitude": 2.5})).await;
        if r.is_error == Some(true) {
            assert!(text_of(&r).contains("not supported"), "{}", text_of(&r));
        }
        phone.update_state(|s| s.input_events.clear());
        let t = mcp
            .ok(
                "mobile_batch_commands",
                json!({"device": dev, "steps": [
                    {"name": "mobile_press_button", "arguments": {"button": "HOME"}},
                    {"name": "mobile_double_tap_on_screen", "arguments": {"x": 1, "y": 2}}
                ]}),
            )
            .await;
        assert!(t.contains("Step 2 (mobile_double_tap_on_screen)"), "{t}");
        assert_eq!(events(&phone).len(), 3);

        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("the test finished within its deadline");
}

/// Every string parameter, filled with hostile text, either fails validation with a clear
/// message or reaches the phone's shell as exactly one literal argument.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_strings_never_reach_the_shell_unquoted() {
    tokio::time::timeout(DEADLINE, async {
        let Rig { mcp, phone, serial, _adb } = rig(&[]).await;
        let dev = json!(serial);
        let long = "x".repeat(10_000);
        let local_file = std::env::temp_dir().join(format!("mm-hostile-{}.txt", std::process::id()));
        std::fs::write(&local_file, b"payload").unwrap();
        let local_file = local_file.display().to_string();
        let hostile: Vec<String> = vec![
            "a;reboot".into(),
            "a && reboot".into(),
            "a | cat /etc/passwd".into(),
            "$(reboot)".into(),
            "`reboot`".into(),
            "'quoted' \"double\"".into(),
            "line1\nline2".into(),
            "with spaces".into(),
            "%s %% %s".into(),
            "日本語 émoji 🙂".into(),
            long,
        ];
        // (tool, the parameter that carries the string, other arguments)
        let targets: Vec<(&str, &str, Value)> = vec![
            ("mobile_launch_app", "packageName", json!({})),
            ("mobile_launch_app", "locale", json!({"packageName": "com.example.notes"})),
            ("mobile_launch_app", "arguments", json!({"packageName": "com.example.notes", "observe": "none"})),
            ("mobile_launch_app", "permissions", json!({"packageName": "com.example.notes", "observe": "none"})),
            ("mobile_terminate_app", "packageName", json!({})),
            ("mobile_uninstall_app", "bundle_id", json!({})),
            ("mobile_open_url", "url", json!({})),
            ("mobile_press_button", "button", json!({})),
            ("mobile_type_keys", "text", json!({"submit": false})),
            ("mobile_get_crash", "id", json!({})),
            ("mobile_adb_pull", "remote_path", json!({"local_path": std::env::temp_dir().join("mm-hostile.bin").display().to_string()})),
            ("mobile_clipboard", "text", json!({})),
            ("mobile_adb_push", "remote_path", json!({"local_path": local_file.clone()})),
            ("mobile_get_device_logs", "filter", json!({})),
            ("mobile_list_apps", "device", json!({})),
            ("mobile_ui_dump", "output_path", json!({})),
            ("mobile_save_screenshot", "saveTo", json!({})),
            ("mobile_swipe_on_screen", "direction", json!({})),
            ("mobile_click_on_screen_at_coordinates", "ref", json!({})),
            ("mobile_batch_commands", "steps", json!({})),
        ];
        for (tool, param, base) in &targets {
            for h in &hostile {
                let mut args = base.clone();
                args["device"] = dev.clone();
                args[*param] = match *param {
                    "filter" => json!([format!("tag={h}")]),
                    "steps" => json!([{"name": h, "arguments": {}}]),
                    "arguments" => json!({"key": h}),
                    "permissions" => json!({h.as_str(): "allow"}),
                    _ => json!(h),
                };
                let r = mcp.call(tool, args).await;
                let t = text_of(&r);
                assert!(!t.is_empty(), "{tool}.{param}: empty answer");
                if r.is_error == Some(true) {
                    assert!(t.len() < 2_000 || t.contains("…"), "{tool}.{param}: error text floods the model");
                }
                let inj = phone.injections();
                assert!(inj.is_empty(), "{tool}.{param}={h:?} reached the shell unquoted: {inj:?}");
            }
        }
        // Typed text arrives exactly, whatever it holds (ASCII; non-ASCII is refused clearly).
        for h in hostile.iter().filter(|h| h.is_ascii() && !h.contains('\n') && h.len() < 100) {
            phone.update_state(|s| s.input_events.clear());
            mcp.ok("mobile_type_keys", json!({"device": dev, "text": h, "submit": false})).await;
            let got: String = events(&phone)
                .into_iter()
                .filter_map(|e| match e {
                    InputEvent::Text { text } => Some(text),
                    _ => None,
                })
                .collect();
            assert_eq!(&got, h);
        }
    })
    .await
    .expect("the test finished within its deadline");
}

/// The user's case for the payload filter: the app is listed only as tokens, and the token
/// text launches the real package on the phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_package_names_round_trip_through_the_real_adb_server() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig(&[("MCP_MODEL_PAYLOAD_FILTER", "1")]).await;
        let filter = mcp_payload_filter::Filter::global();
        let r = mcp
            .call("mobile_list_apps", json!({"device": serial}))
            .await;
        let whole = serde_json::to_string(&r).unwrap();
        assert!(!filter.contains_term(&whole), "a term leaked: {whole}");
        let apps = r.structured_content.unwrap()["apps"].clone();
        let tokenized = apps
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["packageName"].as_str().unwrap().to_string())
            .find(|p| filter.decode_str(p) == "com.alibaba.qwen")
            .unwrap_or_else(|| panic!("no tokenized qwen package in {apps}"));
        assert_ne!(tokenized, "com.alibaba.qwen");
        assert!(tokenized.contains("__mcp_ref_"), "{tokenized}");
        mcp.ok(
            "mobile_launch_app",
            json!({"device": serial, "packageName": tokenized}),
        )
        .await;
        assert_eq!(phone.state().foreground_package(), Some("com.alibaba.qwen"));
        let r = mcp
            .call("mobile_list_elements_on_screen", json!({"device": serial}))
            .await;
        assert!(!filter.contains_term(&serde_json::to_string(&r).unwrap()));
    })
    .await
    .expect("the test finished within its deadline");
}

/// `mobile-mcp --demo` needs no adb and no phone: it lists its built-in phone and the
/// tools work on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_lists_its_phone_and_every_tool_works() {
    tokio::time::timeout(DEADLINE, async {
        let mcp = McpChild::spawn(crate::SERVER, &["--demo"], &[("PATH".into(), "/nonexistent".into())]).await;
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let devices = r.structured_content.unwrap()["devices"].clone();
        assert_eq!(devices.as_array().unwrap().len(), 1, "{devices}");
        let dev = devices[0]["id"].clone();
        assert_eq!(devices[0]["state"], "online");
        let tmp = tempfile::Builder::new().tempdir_in(std::env::temp_dir()).unwrap();
        let p = |n: &str| tmp.path().join(n).display().to_string();
        std::fs::write(p("f.txt"), b"hello").unwrap();
        std::fs::write(p("a.apk"), virtual_phone::fake_apk("com.example.a", "A")).unwrap();
        let calls: Vec<(&str, Value)> = vec![
            ("mobile_list_apps", json!({})),
            ("mobile_launch_app", json!({"packageName": "com.example.notes"})),
            ("mobile_get_foreground_app", json!({})),
            ("mobile_get_screen_size", json!({})),
            ("mobile_list_elements_on_screen", json!({})),
            ("mobile_click_on_screen_at_coordinates", json!({"ref": "@e1"})),
            ("mobile_double_tap_on_screen", json!({"x": 5, "y": 5})),
            ("mobile_long_press_on_screen_at_coordinates", json!({"x": 5, "y": 5})),
            ("mobile_swipe_on_screen", json!({"direction": "down"})),
            ("mobile_type_keys", json!({"text": "hi", "submit": false})),
            ("mobile_press_button", json!({"button": "HOME"})),
            ("mobile_open_url", json!({"url": "https://example.com"})),
            ("mobile_take_screenshot", json!({})),
            ("mobile_save_screenshot", json!({"saveTo": p("s.jpg")})),
            ("mobile_set_orientation", json!({"orientation": "landscape"})),
            ("mobile_get_orientation", json!({})),
            ("mobile_get_device_logs", json!({"limit": 3})),
            ("mobile_list_crashes", json!({})),
            ("mobile_ui_dump", json!({})),
            ("mobile_adb_push", json!({"local_path": p("f.txt"), "remote_path": "/sdcard/f.txt"})),
            ("mobile_adb_pull", json!({"remote_path": "/sdcard/f.txt", "local_path": p("g.txt")})),
            ("mobile_install_app", json!({"path": p("a.apk")})),
            ("mobile_uninstall_app", json!({"bundle_id": "com.example.a"})),
            ("mobile_terminate_app", json!({"packageName": "com.example.notes"})),
            ("mobile_start_screen_recording", json!({"output": p("r.mp4"), "timeLimit": 5})),
            ("mobile_stop_screen_recording", json!({})),
            ("mobile_batch_commands", json!({"steps": [{"name": "mobile_press_button", "arguments": {"button": "BACK"}}]})),
        ];
        for (name, mut args) in calls {
            args["device"] = dev.clone();
            mcp.ok(name, args).await;
        }
        assert_eq!(std::fs::read(p("g.txt")).unwrap(), b"hello");
    })
    .await
    .expect("the test finished within its deadline");
}
