//! The fb-idb 1.1 and 1.5 profiles and the simulator behaviours modelled on real
//! captures and sources (`fixtures/SOURCES.md`).

use super::*;

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| a.to_string()).collect()
}

fn idb(s: &mut IosState, a: &[&str]) -> Reply {
    let mut v = args(a);
    v.extend(args(&["--udid", BOOTED_UDID]));
    run_idb(s, &v)
}

fn state(version: &str) -> IosState {
    let mut s = default_state();
    s.idb_version = version.into();
    s
}

#[test]
fn idb_1_1_has_no_rotate_multi_tap_or_modifiers() {
    let mut s = state(IDB_1_1);
    let r = idb(&mut s, &["ui", "rotate", "LANDSCAPE_LEFT"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "usage: idb ui [-h] {describe-all,describe-point,tap,button,text,key,key-sequence,swipe} ...\n\
         idb ui: error: argument ui: invalid choice: 'rotate' (choose from 'describe-all', 'describe-point', 'tap', 'button', 'text', 'key', 'key-sequence', 'swipe')\n"
    );
    assert_eq!(s.simulators[0].orientation, "PORTRAIT");
    let r = idb(&mut s, &["ui", "multi-tap", "10", "10"]);
    assert!(
        r.stderr.contains("invalid choice: 'multi-tap'"),
        "{}",
        r.stderr
    );
    let r = idb(&mut s, &["ui", "key", "25", "--command"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("unrecognized arguments: --command"),
        "{}",
        r.stderr
    );

    let mut s = state(IDB_1_5);
    assert_eq!(idb(&mut s, &["ui", "rotate", "LANDSCAPE_LEFT"]).code, 0);
    assert_eq!(s.simulators[0].orientation, "LANDSCAPE_LEFT");
}

#[test]
fn idb_text_outside_its_key_map_is_a_traceback_and_types_nothing() {
    for v in [IDB_1_1, IDB_1_5] {
        let mut s = state(v);
        s.simulators[0].foreground = Some("com.alibaba.qwen".into());
        idb(&mut s, &["ui", "tap", "100", "800"]);
        let r = idb(&mut s, &["ui", "text", "café"]);
        assert_eq!(r.code, 1);
        assert!(r.stderr.starts_with("2026-09-05 10:00:00,123 [ERROR] - root - Exception thrown in main\nTraceback (most recent call last):\n"));
        assert!(
            r.stderr.ends_with("\nException: No keycode found for é\n"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.len() > 600, "as long as a real traceback");
        let tree = json::compact(&screen::describe_all(&s.simulators[0], false));
        assert!(!tree.contains("caf"), "nothing typed: {tree}");
        assert!(idb_can_type('~') && idb_can_type('\n') && !idb_can_type('\t'));
    }
}

#[test]
fn paste_with_cmd_v_and_multi_tap_on_1_5() {
    let mut s = state(IDB_1_5);
    s.simulators[0].foreground = Some("com.alibaba.qwen".into());
    idb(&mut s, &["ui", "tap", "100", "800"]);
    s.simulators[0].clipboard = "café 世界 🎉".into();
    assert_eq!(idb(&mut s, &["ui", "key", "25", "--command"]).code, 0);
    let tree = json::compact(&screen::describe_all(&s.simulators[0], false));
    assert!(tree.contains("\"AXValue\":\"café 世界 🎉\""), "{tree}");
    assert_eq!(idb(&mut s, &["ui", "multi-tap", "5", "6"]).code, 0);
    assert_eq!(
        s.simulators[0].gestures,
        ["tap 100,800", "paste", "double-tap 5,6"]
    );
}

#[test]
fn home_screen_label_is_a_space_and_icons_are_buttons() {
    let s = default_state();
    let tree = screen::describe_all(&s.simulators[0], false);
    let text = json::compact(&tree);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v[0]["AXLabel"], " ");
    assert_eq!(v[1]["type"], "Button");
    assert_eq!(v[1]["role"], "AXButton");
    assert_eq!(v[1]["AXUniqueId"], "Settings");
    let last = v.as_array().unwrap().last().unwrap();
    assert_eq!(
        (last["type"].as_str(), last["AXUniqueId"].as_str()),
        (Some("Slider"), Some("spotlight-pill"))
    );
    // 1.1 prints the 14 keys of the captures; 1.5 adds pid and traits.
    assert_eq!(v[0].as_object().unwrap().len(), 14);
    let mut s = state(IDB_1_5);
    let out = idb(&mut s, &["ui", "describe-all", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["pid"], 812);
    assert_eq!(v[0]["traits"], serde_json::json!([]));
}

#[test]
fn real_element_types_with_roles_and_subroles() {
    let mut s = default_state();
    s.simulators[0].foreground = Some("com.apple.Preferences".into());
    s.simulators[0].shown.insert(
        "com.apple.Preferences".into(),
        "com.apple.Preferences/general".into(),
    );
    let v: serde_json::Value = serde_json::from_str(&json::compact(&screen::describe_all(
        &s.simulators[0],
        false,
    )))
    .unwrap();
    let by = |label: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|e| e["AXLabel"] == label)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            by("Airplane Mode")["type"].clone(),
            by("Airplane Mode")["subrole"].clone()
        ),
        ("CheckBox".into(), "AXSwitch".into())
    );
    assert_eq!(by("Light")["role"], "AXRadioButton");
    assert_eq!(by("Date Format")["type"], "PopUpButton");
    assert_eq!(by("Brightness")["role"], "AXSlider");
    assert_eq!(by("Notes")["type"], "TextArea");
}

#[test]
fn custom_scheme_waits_behind_a_confirmation() {
    let mut s = default_state();
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "openurl", BOOTED_UDID, "qwen://chat"]),
        b"",
    );
    assert_eq!(r.code, 0, "simctl delivered it");
    let sim = &s.simulators[0];
    assert_eq!(sim.foreground, None, "the app did not open");
    assert_eq!(sim.alert.as_ref().unwrap().title, "Open in “Qwen”?");
    let open = sim
        .visible()
        .into_iter()
        .find(|e| e.label.as_deref() == Some("Open"))
        .unwrap();
    let (x, y) = ((open.x + 10.0) as i64, (open.y + 10.0) as i64);
    assert_eq!(
        idb(&mut s, &["ui", "tap", &x.to_string(), &y.to_string()]).code,
        0
    );
    let sim = &s.simulators[0];
    assert_eq!(sim.foreground.as_deref(), Some("com.alibaba.qwen"));
    assert_eq!(sim.opened_urls, ["qwen://chat"]);
    assert!(sim.alert.is_none());
    // Confirmed once, the scheme opens directly.
    s.simulators[0].foreground = None;
    run_xcrun(
        &mut s,
        &args(&["simctl", "openurl", BOOTED_UDID, "qwen://again"]),
        b"",
    );
    assert_eq!(
        s.simulators[0].foreground.as_deref(),
        Some("com.alibaba.qwen")
    );
}

#[test]
fn launching_a_running_app_keeps_its_arguments() {
    let mut s = default_state();
    let launch = |s: &mut IosState, extra: &[&str]| {
        let mut a = args(&["simctl", "launch"]);
        a.extend(args(extra));
        run_xcrun(s, &a, b"")
    };
    launch(
        &mut s,
        &[BOOTED_UDID, "com.alibaba.qwen", "-AppleLanguages", "(en)"],
    );
    let first = s.simulators[0].running["com.alibaba.qwen"];
    let r = launch(
        &mut s,
        &[BOOTED_UDID, "com.alibaba.qwen", "-AppleLanguages", "(fr)"],
    );
    assert_eq!(
        String::from_utf8(r.stdout).unwrap(),
        format!("com.alibaba.qwen: {first}\n")
    );
    assert_eq!(
        s.simulators[0].launch_args["com.alibaba.qwen"],
        ["-AppleLanguages", "(en)"]
    );
    launch(
        &mut s,
        &[
            "--terminate-running-process",
            BOOTED_UDID,
            "com.alibaba.qwen",
            "-AppleLanguages",
            "(fr)",
        ],
    );
    assert_ne!(s.simulators[0].running["com.alibaba.qwen"], first);
    assert_eq!(
        s.simulators[0].launch_args["com.alibaba.qwen"],
        ["-AppleLanguages", "(fr)"]
    );
}

#[test]
fn screenshots_stay_portrait_unless_the_profile_turns_them() {
    let mut s = default_state();
    s.simulators[0].orientation = "LANDSCAPE_LEFT".into();
    assert_eq!(s.simulators[0].capture_points(), (402, 874));
    assert_eq!(s.simulators[0].points(), (874, 402));
    s.simulators[0].screenshot_follows_rotation = true;
    assert_eq!(s.simulators[0].capture_points(), (874, 402));
}
