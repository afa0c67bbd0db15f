//! The phone's state machine, driven in-process through its shell (`PhoneHandle::shell`, which
//! records and splits exactly like a `shell:` service).

use virtual_phone::state::{InputEvent, LAUNCHER_PACKAGE};
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone, fake_apk};

fn phone() -> PhoneHandle {
    VirtualPhone::start(PhoneConfig::default()).unwrap()
}

fn fg(p: &PhoneHandle) -> (String, String) {
    let s = p.state();
    let f = s.foreground().unwrap();
    (f.package.clone(), f.activity.clone())
}

fn tap(p: &PhoneHandle, label: &str) {
    let (x, y) = p
        .element_center(label)
        .unwrap_or_else(|| panic!("no {label} on screen:\n{}", p.ui_dump()));
    p.shell(&format!("input tap {x} {y}"));
}

#[test]
fn starts_on_the_launcher_with_app_icons() {
    let p = phone();
    assert_eq!(fg(&p).0, LAUNCHER_PACKAGE);
    let dump = p.ui_dump();
    for label in ["Settings", "Chrome", "Qwen", "Notes"] {
        assert!(
            dump.contains(&format!("text=\"{label}\"")),
            "{label} icon missing"
        );
    }
    tap(&p, "Qwen");
    assert_eq!(
        fg(&p),
        (
            "com.alibaba.qwen".into(),
            "com.alibaba.qwen.MainActivity".into()
        )
    );
}

#[test]
fn am_start_monkey_force_stop_and_view_intents() {
    let p = phone();
    let out = p.shell("am start -n com.android.settings/.Settings");
    assert_eq!(
        out,
        "Starting: Intent { cmp=com.android.settings/.Settings }\n"
    );
    assert_eq!(fg(&p).1, "com.android.settings.Settings");
    let out = p.shell("am start -n com.nope/.Main");
    assert!(out.contains("Error type 3"), "{out}");
    p.shell("monkey -p com.example.notes -c android.intent.category.LAUNCHER 1");
    assert_eq!(fg(&p).0, "com.example.notes");
    let out = p.shell("monkey -p com.nope -c android.intent.category.LAUNCHER 1");
    assert!(out.contains("** No activities found to run, monkey aborted."));
    p.shell("am force-stop com.example.notes");
    assert_eq!(fg(&p).0, "com.android.settings", "back to the app below");
    p.shell("am force-stop com.android.settings");
    assert_eq!(fg(&p).0, LAUNCHER_PACKAGE);
    let out = p.shell("am start -a android.intent.action.VIEW -d 'https://example.com/a?b=1&c=2'");
    assert_eq!(
        out,
        "Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n"
    );
    assert_eq!(fg(&p).0, "com.android.chrome");
    assert_eq!(p.state().browser_url, "https://example.com/a?b=1&c=2");
    assert!(
        p.ui_dump()
            .contains("text=\"https://example.com/a?b=1&amp;c=2\"")
    );
    let focus = p.shell("dumpsys window displays");
    assert!(focus.contains("mCurrentFocus=Window{8d5a5a9 u0 com.android.chrome/org.chromium.chrome.browser.ChromeTabbedActivity}"), "{focus}");
    assert!(p.injections().is_empty());
    // Typing an address and ENTER loads it.
    tap(&p, "https://example.com/a?b=1&c=2");
    p.shell("input keyevent KEYCODE_DEL");
    p.shell("input text /b");
    p.shell("input keyevent KEYCODE_ENTER");
    assert_eq!(p.state().browser_url, "https://example.com/a?b=1&c=/b");
    // POWER turns the screen off: screenshots go black.
    p.shell("input keyevent KEYCODE_POWER");
    let img = image::load_from_memory(&p.screenshot_png())
        .unwrap()
        .to_rgba8();
    assert!(img.pixels().all(|px| px.0 == [0, 0, 0, 255]));
    p.shell("input keyevent KEYCODE_WAKEUP");
    let img = image::load_from_memory(&p.screenshot_png())
        .unwrap()
        .to_rgba8();
    assert!(img.pixels().any(|px| px.0 != [0, 0, 0, 255]));
}

#[test]
fn keys_navigate_and_edit() {
    let p = phone();
    p.shell("am start -n com.example.notes/.MainActivity");
    tap(&p, "Settings");
    assert_eq!(fg(&p).1, "com.example.notes.SettingsActivity");
    tap(&p, "About");
    assert_eq!(fg(&p).1, "com.example.notes.AboutActivity");
    p.shell("input keyevent KEYCODE_BACK");
    assert_eq!(fg(&p).1, "com.example.notes.SettingsActivity");
    p.shell("input keyevent 4");
    assert_eq!(fg(&p).1, "com.example.notes.MainActivity");
    p.shell("input keyevent KEYCODE_HOME");
    assert_eq!(fg(&p).0, LAUNCHER_PACKAGE);
    // Qwen: type, delete, ENTER submits the message.
    p.shell("am start -n com.alibaba.qwen/.MainActivity");
    tap(&p, "Message Qwen");
    p.shell("input text hello%sworld");
    p.shell("input keyevent KEYCODE_DEL");
    p.shell("input keyevent KEYCODE_D 62 KEYCODE_1");
    assert_eq!(p.state().focused_text().as_deref(), Some("hello world 1"));
    p.shell("input keyevent KEYCODE_ENTER");
    assert!(p.ui_dump().contains("text=\"You: hello world 1\""));
    assert_eq!(p.state().focused_text(), None);
    let keys: Vec<u32> = p
        .state()
        .input_events
        .iter()
        .filter_map(|e| match e {
            InputEvent::Key { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    assert_eq!(keys, vec![4, 4, 3, 67, 32, 62, 8, 66]);
}

#[test]
fn swipes_scroll_long_lists() {
    let p = phone();
    p.shell("am start -n com.android.settings/.Settings");
    assert!(p.element_center("About phone").is_none(), "below the fold");
    assert!(p.ui_dump().contains("scrollable=\"true\""));
    let before = p.screenshot_png();
    p.shell("input swipe 540 1800 540 300 300");
    let (x, y) = p.element_center("About phone").expect("scrolled into view");
    assert!(
        p.element_center("Search settings").is_none(),
        "scrolled out of view"
    );
    assert_ne!(before, p.screenshot_png());
    p.shell(&format!("input tap {x} {y}"));
    assert_eq!(
        fg(&p).1,
        "com.android.settings.Settings$MyDeviceInfoActivity"
    );
    p.shell("input keyevent KEYCODE_BACK");
    // Scroll back to the top (clamped).
    p.shell("input swipe 540 600 540 2000 300");
    p.shell("input swipe 540 600 540 2000 300");
    assert!(p.element_center("Search settings").is_some());
    // Horizontal swipes and short lists do not scroll.
    p.shell("am start -n com.example.notes/.MainActivity");
    let dump = p.ui_dump();
    p.shell("input swipe 540 1500 540 500 300");
    assert_eq!(dump, p.ui_dump());
}

#[test]
fn input_text_decoding_and_non_ascii() {
    let p = phone();
    p.shell("am start -n com.example.notes/.EditorActivity");
    tap(&p, "Title");
    // What a careful backend sends: quoted, %s for spaces.
    p.shell("input text 'a%sb;c$(id)'");
    assert_eq!(p.state().focused_text().as_deref(), Some("a b;c$(id)"));
    assert!(p.injections().is_empty());
    let out = p.shell("input text 'héllo'");
    assert!(
        out.starts_with("Exception occurred while executing 'text'"),
        "{out}"
    );
    assert_eq!(
        p.state().focused_text().as_deref(),
        Some("a b;c$(id)"),
        "nothing typed"
    );
    // The ADBKeyboard IME, once installed and selected, types any text from a broadcast.
    p.update_state(|s| {
        s.files.insert(
            "/data/local/tmp/ime.apk".into(),
            virtual_phone::state::FileEntry {
                data: fake_apk("com.android.adbkeyboard", "ADBKeyboard"),
                mode: 0o100644,
                mtime: 0,
            },
        );
    });
    p.shell("pm install /data/local/tmp/ime.apk");
    p.shell("am broadcast -a ADB_INPUT_B64 --es msg aMOpbGxv");
    assert_eq!(
        p.state().focused_text().as_deref(),
        Some("a b;c$(id)"),
        "IME not selected yet"
    );
    p.shell("settings put secure default_input_method com.android.adbkeyboard/.AdbIME");
    let out = p.shell("am broadcast -a ADB_INPUT_B64 --es msg aMOpbGxv");
    assert_eq!(
        out,
        "Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"
    );
    assert_eq!(p.state().focused_text().as_deref(), Some("a b;c$(id)héllo"));
    p.shell("am broadcast -a ADB_CLEAR_TEXT");
    assert_eq!(p.state().focused_text().as_deref(), Some(""));
    p.shell("input text 'a b;c$(id)'");
    // Clipboard paste.
    p.update_state(|s| s.clipboard = "你好".into());
    p.shell("input keyevent KEYCODE_PASTE");
    assert_eq!(p.state().focused_text().as_deref(), Some("a b;c$(id)你好"));
}

#[test]
fn rotation_changes_dump_and_screenshot() {
    let p = phone();
    p.shell("am start -n com.android.settings/.Settings");
    assert_eq!(p.shell("settings get system user_rotation"), "0\n");
    p.shell("settings put system accelerometer_rotation 0");
    p.shell("content insert --uri content://settings/system --bind name:s:user_rotation --bind value:i:1");
    assert_eq!(p.shell("settings get system user_rotation"), "1\n");
    let dump = p.ui_dump();
    assert!(dump.contains("<hierarchy rotation=\"1\">"));
    assert!(dump.contains("bounds=\"[0,0][2400,1080]\""), "{dump}");
    let img = image::load_from_memory(&p.screenshot_png()).unwrap();
    assert_eq!((img.width(), img.height()), (2400, 1080));
    assert_eq!(
        p.shell("wm size"),
        "Physical size: 1080x2400\n",
        "physical size does not rotate"
    );
    p.shell("settings put system user_rotation 0");
    let img = image::load_from_memory(&p.screenshot_png()).unwrap();
    assert_eq!((img.width(), img.height()), (1080, 2400));
}

#[test]
fn packages_install_and_uninstall() {
    let p = phone();
    p.update_state(|s| {
        s.files.insert(
            "/data/local/tmp/x.apk".into(),
            virtual_phone::state::FileEntry {
                data: fake_apk("com.example.maps", "Maps"),
                mode: 0o100644,
                mtime: 0,
            },
        );
    });
    assert_eq!(
        p.shell("pm install -r -g /data/local/tmp/x.apk"),
        "Success\n"
    );
    assert!(
        p.shell("pm list packages -3")
            .contains("package:com.example.maps\n")
    );
    assert!(
        p.shell("cmd package resolve-activity --brief com.example.maps")
            .ends_with("com.example.maps/.MainActivity\n")
    );
    assert!(p.ui_dump().contains("text=\"Maps\""), "launcher icon");
    assert_eq!(p.shell("pm uninstall com.example.maps"), "Success\n");
    assert_eq!(
        p.shell("pm uninstall com.android.settings"),
        "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    );
    assert_eq!(
        p.shell("pm uninstall com.nope"),
        "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    );
    assert!(
        p.shell("pm install /data/local/tmp/missing.apk")
            .starts_with("Failure [")
    );
    assert_eq!(
        p.shell("pm path com.alibaba.qwen"),
        "package:/data/app/~~vdev10150==/com.alibaba.qwen-vdev10150==/base.apk\n"
    );
}

#[test]
fn files_and_small_commands() {
    let p = phone();
    assert_eq!(p.shell("echo -n a b"), "a b");
    assert_eq!(p.shell("echo $EXTERNAL_STORAGE"), "/sdcard\n");
    assert!(p.shell("id").starts_with("uid=2000(shell) gid=2000(shell)"));
    assert_eq!(p.shell("true"), "");
    assert_eq!(
        p.shell("ls /sdcard/nothing"),
        "ls: /sdcard/nothing: No such file or directory\n"
    );
    p.shell("screencap -p /sdcard/Pictures/s.png");
    assert_eq!(p.shell("ls /storage/emulated/0/Pictures"), "s.png\n");
    assert_eq!(&p.file("/sdcard/Pictures/s.png").unwrap()[1..4], b"PNG");
    p.shell("rm /sdcard/Pictures/s.png");
    assert_eq!(p.shell("ls /sdcard/Pictures"), "");
    assert_eq!(
        p.shell("rm /sdcard/Pictures/s.png"),
        "rm: /sdcard/Pictures/s.png: No such file or directory\n"
    );
    assert_eq!(p.shell("rm -f /sdcard/Pictures/s.png"), "");
    assert_eq!(
        p.shell("cat /sdcard/none"),
        "cat: /sdcard/none: No such file or directory\n"
    );
    let all = p.shell("getprop");
    assert!(
        all.lines()
            .all(|l| l.starts_with('[') && l.contains("]: [") && l.ends_with(']'))
    );
    assert!(all.contains("[ro.build.version.release]: [14]\n"));
    assert_eq!(p.shell("getprop no.such.prop"), "\n");
    assert_eq!(
        p.shell("settings get global device_name"),
        "Virtual Pixel\n"
    );
    assert_eq!(p.shell("settings get secure nope"), "null\n");
    assert_eq!(
        p.shell("dumpsys SurfaceFlinger --display-id"),
        "Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName=\"Built-in Screen\"\n"
    );
    // Unquoted patterns expand against the files; quoted ones stay literal.
    p.shell("touch /sdcard/a1.png /sdcard/a2.png /sdcard/b.jpg");
    assert_eq!(
        p.shell("ls /sdcard/*.png"),
        "/sdcard/a1.png\n/sdcard/a2.png\n"
    );
    assert_eq!(
        p.shell("ls '/sdcard/*.png'"),
        "ls: /sdcard/*.png: No such file or directory\n"
    );
    assert_eq!(p.shell("echo /sdcard/*.gif"), "/sdcard/*.gif\n");
    p.shell("rm /sdcard/a?.png");
    assert_eq!(
        p.shell("ls /sdcard/*.png"),
        "ls: /sdcard/*.png: No such file or directory\n"
    );
    // A nested sh -c runs too, and is checked for metacharacters.
    assert_eq!(p.shell("sh -c 'echo inner'"), "inner\n");
    assert!(p.injections().is_empty());
    assert_eq!(p.shell("sh -c 'echo a; echo b'"), "");
    assert_eq!(p.injections().len(), 1);
}

#[test]
fn screenrecord_time_limit_and_logcat_tail() {
    let p = phone();
    let t = std::time::Instant::now();
    p.shell("screenrecord --time-limit 1 /sdcard/r.mp4");
    assert!(t.elapsed() >= std::time::Duration::from_millis(900));
    assert!(p.file("/sdcard/r.mp4").is_some());
    p.shell("am start -n com.example.notes/.MainActivity");
    let tail = p.shell("logcat -d -b main -t 1");
    assert!(
        tail.contains("START u0 {flg=0x10000000 cmp=com.example.notes/.MainActivity}"),
        "{tail}"
    );
    // In-process runs never follow (no host could stop them).
    assert!(
        p.shell("logcat -v threadtime,year")
            .contains("--------- beginning of main")
    );
    let w = p.shell("am start -W -n com.android.settings/.Settings");
    assert!(w.ends_with("Status: ok\nLaunchState: COLD\nActivity: com.android.settings/.Settings\nTotalTime: 312\nWaitTime: 315\nComplete\n"), "{w}");
    p.shell("logcat -c");
    assert_eq!(p.shell("logcat -d"), "");
}

#[test]
fn command_log_records_argv_and_json_lines_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let p = VirtualPhone::start(PhoneConfig {
        log_path: Some(log.clone()),
        ..PhoneConfig::default()
    })
    .unwrap();
    p.shell("input text 'it'\\''s'");
    p.shell("am force-stop com.x;reboot");
    let recs = p.commands();
    assert_eq!(
        recs[0].argv,
        vec![vec!["input".to_string(), "text".into(), "it's".into()]]
    );
    assert!(!recs[0].injection);
    assert!(recs[1].injection);
    assert_eq!(p.injections().len(), 1);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["injection"], true);
    assert_eq!(lines[1]["argv"][1][0], "reboot");
    assert!(lines[0]["timestamp_ms"].as_u64().unwrap() > 1_600_000_000_000);
    p.clear_log();
    assert!(p.commands().is_empty());
}

#[test]
fn scenario_json_round_trips_and_partial_files_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.json");
    std::fs::write(&path, r#"{"clipboard": "from scenario", "props": {"ro.product.model": "Tablet X", "ro.product.name": "tab", "ro.product.device": "tab"}}"#).unwrap();
    let state = virtual_phone::load_state(&path).unwrap();
    assert_eq!(state.clipboard, "from scenario");
    assert!(
        state.packages.contains_key("com.alibaba.qwen"),
        "unspecified fields keep the defaults"
    );
    let p = VirtualPhone::start(PhoneConfig {
        state: Some(state),
        ..PhoneConfig::default()
    })
    .unwrap();
    assert_eq!(p.shell("getprop ro.product.model"), "Tablet X\n");
    let full = serde_json::to_string(&p.state()).unwrap();
    let back: virtual_phone::PhoneState = serde_json::from_str(&full).unwrap();
    assert_eq!(back, p.state());
}

#[test]
fn crash_button_fills_the_crash_buffer() {
    let p = phone();
    p.shell("am start -n com.example.notes/.MainActivity");
    assert_eq!(p.shell("pidof com.example.notes"), "4160\n");
    assert!(p.shell("ps -A").contains(" com.example.notes\n"));
    tap(&p, "Settings");
    tap(&p, "Crash app");
    assert_eq!(fg(&p).0, LAUNCHER_PACKAGE);
    assert_eq!(p.shell("pidof com.example.notes"), "");
    let crash = p.shell("logcat -b crash -d -v year");
    let last: Vec<&str> = crash.lines().rev().take(6).collect();
    assert!(
        last.iter()
            .any(|l| l.ends_with("E AndroidRuntime: Process: com.example.notes, PID: 4160")),
        "{crash}"
    );
    assert!(
        last.iter()
            .any(|l| l.ends_with("java.lang.IllegalStateException: Crash button pressed"))
    );
    assert!(
        crash.lines().nth(1).unwrap().starts_with("20"),
        "-v year prints the year"
    );
    assert!(
        p.shell("pm list packages --show-versioncode com.alibaba")
            .contains("package:com.alibaba.qwen versionCode:1\n")
    );
}
