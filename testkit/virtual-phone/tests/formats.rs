//! The phone's output formats against real captures in `fixtures/android/` (see
//! `SOURCES-virtual-device.md`): both are parsed by the same code and must have the same
//! structure.

use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../fixtures/android/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn phone() -> PhoneHandle {
    VirtualPhone::start(PhoneConfig::default()).unwrap()
}

/// Attribute names of every `<node>` in document order, plus the hierarchy's attributes.
fn ui_shape(xml: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let doc = roxmltree::Document::parse(xml).expect("well-formed uiautomator XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "hierarchy");
    let root_attrs = root.attributes().map(|a| a.name().to_string()).collect();
    let nodes = root
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "node")
        .map(|n| {
            let bounds = n.attribute("bounds").unwrap();
            let nums: Vec<i32> = bounds
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split("][")
                .flat_map(|p| p.split(','))
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(nums.len(), 4, "bounds {bounds}");
            for flag in [
                "checkable",
                "checked",
                "clickable",
                "enabled",
                "focusable",
                "focused",
                "scrollable",
                "long-clickable",
                "password",
                "selected",
            ] {
                assert!(
                    matches!(n.attribute(flag), Some("true" | "false")),
                    "{flag}"
                );
            }
            n.attributes().map(|a| a.name().to_string()).collect()
        })
        .collect();
    (root_attrs, nodes)
}

#[test]
fn uiautomator_dump_has_the_real_attribute_set_and_order() {
    let real = fixture("uiautomator-dump.xml");
    let (real_root, real_nodes) = ui_shape(&real);
    let p = phone();
    for setup in [
        "",
        "am start -n com.example.notes/.MainActivity",
        "am start -n com.android.settings/.Settings",
    ] {
        if !setup.is_empty() {
            p.shell(setup);
        }
        let ours = p.ui_dump();
        assert!(ours.starts_with(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        ));
        assert!(real.starts_with(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        ));
        assert!(!ours.ends_with('\n') && !real.ends_with('\n'));
        let (our_root, our_nodes) = ui_shape(&ours);
        assert_eq!(our_root, real_root);
        assert!(our_nodes.len() > 3);
        for n in &our_nodes {
            assert_eq!(
                n, &real_nodes[0],
                "attribute names and order match the capture"
            );
        }
    }
    // Through the shell: to a file and to /dev/tty.
    assert_eq!(
        p.shell("uiautomator dump"),
        "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    );
    let tty = p.shell("uiautomator dump /dev/tty");
    let xml = tty
        .strip_suffix("UI hierchary dumped to: /dev/tty\n")
        .unwrap();
    ui_shape(xml);
}

/// `(indent, key)` of every `key=value` line start of a query-activities block.
fn query_shape(text: &str) -> (usize, Vec<(usize, String)>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let n: usize = header
        .strip_suffix(" activities found:")
        .unwrap()
        .parse()
        .unwrap();
    let mut first_block = Vec::new();
    let mut blocks = 0;
    for l in text.lines().skip(1) {
        let indent = l.len() - l.trim_start().len();
        let t = l.trim_start();
        if t.starts_with("Activity #") {
            blocks += 1;
            assert_eq!(indent, 2);
            continue;
        }
        if blocks == 1 {
            let key = t.split(['=', ':', ' ']).next().unwrap().to_string();
            first_block.push((indent, key));
        }
    }
    assert_eq!(blocks, n);
    (n, first_block)
}

fn activity_components(text: &str) -> Vec<(String, String)> {
    // packageName= / name= at the ActivityInfo indentation (6 spaces).
    let mut out = Vec::new();
    let mut name = None;
    for l in text.lines() {
        if let Some(v) = l.strip_prefix("      name=") {
            name = Some(v.to_string());
        }
        if let Some(v) = l.strip_prefix("      packageName=") {
            out.push((v.to_string(), name.take().unwrap()));
        }
    }
    out
}

#[test]
fn query_activities_blocks_match_the_capture() {
    let real = fixture("query-activities.txt");
    let (_, real_block) = query_shape(&real);
    let ours = phone().shell("cmd package query-activities -a android.intent.action.MAIN -c android.intent.category.LAUNCHER");
    let (n, our_block) = query_shape(&ours);
    assert_eq!(n, 4, "Settings, Chrome, Qwen, Notes:\n{ours}");
    // Every key of our block appears in the real block at the same indentation, in order.
    let mut it = real_block.iter();
    for k in &our_block {
        assert!(
            it.any(|r| r == k),
            "{k:?} not in the capture's block (or out of order)"
        );
    }
    let real_comps = activity_components(&real);
    assert_eq!(
        real_comps[0],
        (
            "com.android.settings".into(),
            "com.android.settings.Settings".into()
        )
    );
    let comps = activity_components(&ours);
    assert!(comps.contains(&(
        "com.alibaba.qwen".to_string(),
        "com.alibaba.qwen.MainActivity".to_string()
    )));
    assert!(ours.contains("nonLocalizedLabel=Qwen "));
}

#[test]
fn resolve_activity_brief_matches_the_capture() {
    let real = fixture("resolve-activity-brief.txt");
    let ours = phone().shell("cmd package resolve-activity --brief com.android.settings");
    assert_eq!(ours, real);
    let ours = phone().shell("cmd package resolve-activity --brief com.alibaba.qwen");
    assert_eq!(ours.lines().last(), Some("com.alibaba.qwen/.MainActivity"));
    assert_eq!(ours.lines().next(), real.lines().next());
}

fn focus_of(text: &str) -> (String, String) {
    let cur = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mCurrentFocus=Window{"))
        .unwrap();
    let app = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mFocusedApp=ActivityRecord{"))
        .unwrap();
    let comp = |s: &str| {
        s.split(' ')
            .nth(2)
            .unwrap()
            .trim_end_matches('}')
            .to_string()
    };
    assert_eq!(cur.split(' ').nth(1), Some("u0"));
    assert!(app.split(' ').nth(3).unwrap().starts_with('t'));
    (comp(cur), comp(app))
}

#[test]
fn dumpsys_window_focus_lines_match_the_capture() {
    let real = fixture("dumpsys-window-focus.txt");
    assert_eq!(
        focus_of(&real),
        (
            "com.android.settings/com.android.settings.Settings".into(),
            "com.android.settings/.Settings".into()
        )
    );
    let p = phone();
    p.shell("am start -n com.android.settings/.Settings");
    let ours = p.shell("dumpsys window displays");
    assert_eq!(focus_of(&ours), focus_of(&real));
    let header = |t: &str| t.lines().next().unwrap().to_string();
    assert_eq!(header(&ours), header(&real));
    let acts = p.shell("dumpsys activity activities");
    assert!(acts.contains("mResumedActivity: ActivityRecord{"), "{acts}");
    assert!(
        acts.contains(" u0 com.android.settings/.Settings t"),
        "{acts}"
    );
}

fn threadtime_ok(line: &str) -> bool {
    // MM-DD HH:MM:SS.mmm PID TID L TAG: message
    let b = line.as_bytes();
    if b.len() < 33
        || b[2] != b'-'
        || b[5] != b' '
        || b[8] != b':'
        || b[11] != b':'
        || b[14] != b'.'
    {
        return false;
    }
    let rest = &line[18..];
    let mut parts = rest.split_whitespace();
    let pid = parts.next().and_then(|p| p.parse::<u32>().ok());
    let tid = parts.next().and_then(|p| p.parse::<u32>().ok());
    let level = parts.next();
    pid.is_some()
        && tid.is_some()
        && matches!(level, Some("V" | "D" | "I" | "W" | "E" | "F"))
        && rest.contains(": ")
}

#[test]
fn logcat_lines_match_the_capture() {
    for (fixture_name, cmd) in [
        ("logcat-crash.txt", "logcat -b crash -d"),
        ("logcat-threadtime.txt", "logcat -d -v threadtime"),
    ] {
        let real = fixture(fixture_name);
        let ours = phone().shell(cmd);
        for text in [&real, &ours] {
            for l in text.lines() {
                assert!(
                    l.starts_with("--------- beginning of ") || threadtime_ok(l),
                    "{fixture_name}: bad line {l:?}"
                );
            }
        }
        assert_eq!(real.lines().next(), ours.lines().next(), "{fixture_name}");
    }
    let crash = phone().shell("logcat -b crash -d");
    assert!(
        crash
            .lines()
            .any(|l| l.ends_with("E AndroidRuntime: FATAL EXCEPTION: main"))
    );
    let tail = phone().shell("logcat -d -t 2");
    assert_eq!(
        tail.lines().filter(|l| !l.starts_with("---")).count(),
        4,
        "2 main + 2 crash:\n{tail}"
    );
}

#[test]
fn pm_list_packages_lines_match_the_capture() {
    let real = fixture("pm-list-packages.txt");
    let ours = phone().shell("pm list packages");
    for text in [&real, &ours] {
        for l in text.lines() {
            let name = l.strip_prefix("package:").expect("package: prefix");
            assert!(name.split('.').count() >= 2 || name == "android", "{l}");
        }
    }
    assert!(ours.contains("package:com.alibaba.qwen\n"));
    let with_paths = phone().shell("pm list packages -f");
    assert!(
        with_paths
            .lines()
            .all(|l| l.starts_with("package:/") && l.contains(".apk=")),
        "{with_paths}"
    );
    assert_eq!(
        phone().shell("pm list packages -3"),
        "package:com.alibaba.qwen\npackage:com.example.notes\n"
    );
}

#[test]
fn dumpsys_package_launcher_entry_matches_the_capture() {
    let real = fixture("dumpsys-package-resolver.txt");
    let launcher_of = |text: &str| {
        let lines: Vec<&str> = text.lines().collect();
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim() == "Category: \"android.intent.category.LAUNCHER\"")
            .filter_map(|(i, _)| lines[..i].iter().rev().find(|l| l.contains(" filter ")))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        launcher_of(&real),
        vec!["com.sunpower.energylink.commissioning2/.MainActivity"]
    );
    let ours = phone().shell("dumpsys package com.alibaba.qwen");
    assert_eq!(launcher_of(&ours), vec!["com.alibaba.qwen/.MainActivity"]);
}
