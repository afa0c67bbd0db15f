use super::*;

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| a.to_string()).collect()
}

fn fixture(name: &str) -> String {
    let p = format!("{}/../../fixtures/ios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn list_devices_is_the_reference_capture_byte_for_byte() {
    let mut s = default_state();
    let r = run_xcrun(&mut s, &args(&["simctl", "list", "devices", "-j"]), b"");
    assert_eq!(r.code, 0);
    assert_eq!(
        String::from_utf8(r.stdout).unwrap(),
        fixture("list-devices-xcode16-recon.json")
    );
}

#[test]
fn listapps_is_an_openstep_plist_with_escapes() {
    let mut s = default_state();
    let r = run_xcrun(&mut s, &args(&["simctl", "listapps", BOOTED_UDID]), b"");
    assert_eq!(r.code, 0);
    let text = String::from_utf8(r.stdout.clone()).unwrap();
    assert!(
        text.starts_with("{\n    \"com.alibaba.qwen\" =     {\n        ApplicationType = User;\n"),
        "{text}"
    );
    assert!(
        text.contains("CFBundleDisplayName = \"My \\\"Quick\\\" Notes {beta} \\U793a\\U4f8b\";"),
        "{text}"
    );
    assert!(text.contains("        CFBundleVersion = 42;\n"));
    let v = plist::Value::from_reader_ascii(std::io::Cursor::new(&r.stdout)).unwrap();
    let notes = v.as_dictionary().unwrap().get(NOTES_BUNDLE).unwrap();
    assert_eq!(
        notes
            .as_dictionary()
            .unwrap()
            .get("CFBundleDisplayName")
            .unwrap()
            .as_string(),
        Some(NOTES_NAME)
    );
}

#[test]
fn launch_terminate_and_their_errors() {
    let mut s = default_state();
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "launch", BOOTED_UDID, "com.alibaba.qwen"]),
        b"",
    );
    assert_eq!(
        String::from_utf8(r.stdout).unwrap(),
        "com.alibaba.qwen: 40000\n"
    );
    assert_eq!(
        s.simulators[0].foreground.as_deref(),
        Some("com.alibaba.qwen")
    );
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "launch", BOOTED_UDID, "com.nope"]),
        b"",
    );
    assert_eq!(r.code, 4);
    assert!(
        r.stderr
            .contains("The request to open \"com.nope\" failed.")
    );
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "terminate", BOOTED_UDID, "com.alibaba.qwen"]),
        b"",
    );
    assert_eq!(r.code, 0);
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "terminate", BOOTED_UDID, "com.alibaba.qwen"]),
        b"",
    );
    assert_eq!(r.code, 3);
    assert!(r.stderr.ends_with("found nothing to terminate\n"));
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "launch", SHUTDOWN_UDID, "com.apple.Preferences"]),
        b"",
    );
    assert_eq!(r.code, 149);
    assert!(
        r.stderr
            .contains("Unable to lookup in current state: Shutdown")
    );
    let r = run_xcrun(&mut s, &args(&["simctl", "listapps", "NOPE"]), b"");
    assert_eq!((r.code, r.stderr.as_str()), (148, "Invalid device: NOPE\n"));
    let r = run_xcrun(
        &mut s,
        &args(&["simctl", "openurl", BOOTED_UDID, "zzzz://nothing"]),
        b"",
    );
    assert_eq!(r.code, 115);
    let r = run_xcrun(&mut s, &args(&["simctl", "nosuchsub"]), b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, "Unrecognized subcommand: nosuchsub\n")
    );
}

#[test]
fn taps_open_apps_focus_fields_and_take_text() {
    let mut s = default_state();
    // The home screen lists every app as an icon; Qwen is the third.
    let tree = json::compact(&screen::describe_all(&s.simulators[0], false));
    assert!(tree.starts_with("[{\"AXFrame\":\"{{0, 0}, {402, 874}}\",\"AXUniqueId\":null,\"frame\":{\"y\":0,\"x\":0,\"width\":402,\"height\":874},\"role_description\":\"application\",\"AXLabel\":\" \""), "{tree}");
    assert_eq!(
        run_idb(
            &mut s,
            &args(&["ui", "tap", "230", "100", "--udid", BOOTED_UDID])
        )
        .code,
        0
    );
    assert_eq!(
        s.simulators[0].foreground.as_deref(),
        Some("com.alibaba.qwen")
    );
    run_idb(
        &mut s,
        &args(&["ui", "tap", "100", "800", "--udid", BOOTED_UDID]),
    );
    run_idb(
        &mut s,
        &args(&["ui", "text", "hello", "--udid", BOOTED_UDID]),
    );
    let tree = json::compact(&screen::describe_all(&s.simulators[0], true));
    assert!(tree.contains("\"AXLabel\":\"Ask Qwen\",\"content_required\":false,\"type\":\"TextField\",\"title\":null,\"help\":null,\"custom_actions\":[],\"AXValue\":\"hello\""), "{tree}");
    let r = run_idb(
        &mut s,
        &args(&["ui", "button", "VOLUME_UP", "--udid", BOOTED_UDID]),
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid choice: 'VOLUME_UP'"));
    run_idb(
        &mut s,
        &args(&["ui", "button", "HOME", "--udid", BOOTED_UDID]),
    );
    assert_eq!(s.simulators[0].foreground, None);
    let r = run_idb(
        &mut s,
        &args(&["ui", "tap", "1", "1", "--udid", SHUTDOWN_UDID]),
    );
    assert!(r.stderr.starts_with("Failed to connect to companion"));
}

#[test]
fn list_targets_is_python_ndjson() {
    let mut s = default_state();
    let r = run_idb(&mut s, &args(&["list-targets", "--json"]));
    let text = String::from_utf8(r.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("{\"name\": \"iPad Pro 11-inch (M4)\", \"udid\": \"3F1C114D"),
        "{first}"
    );
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn idb_listings_have_the_captured_keys_in_order() {
    fn keys(line: &str) -> Vec<String> {
        // Keys in printed order: the quoted string before each `": `.
        let mut out = Vec::new();
        let mut rest = line;
        while let Some(i) = rest.find("\": ") {
            let head = &rest[..i];
            if let Some(q) = head.rfind('"') {
                out.push(head[q + 1..].to_string());
            }
            rest = &rest[i + 3..];
        }
        assert!(out.len() >= 6, "{line}: {out:?}");
        out
    }
    let mut s = default_state();
    let targets =
        String::from_utf8(run_idb(&mut s, &args(&["list-targets", "--json"])).stdout).unwrap();
    let want = fixture("idb-list-targets.ndjson");
    assert_eq!(
        keys(targets.lines().next().unwrap()),
        keys(want.lines().next().unwrap())
    );
    let apps = String::from_utf8(
        run_idb(
            &mut s,
            &args(&["list-apps", "--json", "--udid", BOOTED_UDID]),
        )
        .stdout,
    )
    .unwrap();
    let want = fixture("idb-list-apps.ndjson");
    let mut want_keys = keys(want.lines().next().unwrap());
    want_keys.push("pid".into()); // newer idb adds it
    assert_eq!(keys(apps.lines().next().unwrap()), want_keys);
}
