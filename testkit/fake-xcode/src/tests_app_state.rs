//! `simctl privacy`, `get_app_container` and the clear-state route (copy the bundle,
//! uninstall, install the copy) on the fake simulator.

use super::*;

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| a.to_string()).collect()
}

fn simctl(s: &mut IosState, a: &[&str]) -> Reply {
    let mut v = vec!["simctl"];
    v.extend_from_slice(a);
    run_xcrun(s, &args(&v), b"")
}

#[test]
fn privacy_grants_revokes_and_resets_per_service() {
    let mut s = default_state();
    let r = simctl(
        &mut s,
        &["privacy", BOOTED_UDID, "grant", "photos", NOTES_BUNDLE],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(s.simulators[0].privacy[NOTES_BUNDLE]["photos"], "granted");
    simctl(&mut s, &["launch", BOOTED_UDID, NOTES_BUNDLE]);
    let r = simctl(
        &mut s,
        &["privacy", BOOTED_UDID, "revoke", "all", NOTES_BUNDLE],
    );
    assert_eq!(r.code, 0);
    let sim = &s.simulators[0];
    assert_eq!(sim.privacy[NOTES_BUNDLE]["microphone"], "revoked");
    assert!(
        !sim.running.contains_key(NOTES_BUNDLE),
        "a revoke ends the app"
    );
    simctl(
        &mut s,
        &["privacy", BOOTED_UDID, "reset", "photos", NOTES_BUNDLE],
    );
    assert!(!s.simulators[0].privacy[NOTES_BUNDLE].contains_key("photos"));
    for bad in [
        vec!["privacy", BOOTED_UDID, "grant", "camera", NOTES_BUNDLE],
        vec!["privacy", BOOTED_UDID, "grant", "photos"],
        vec!["privacy", BOOTED_UDID, "allow", "photos", NOTES_BUNDLE],
    ] {
        let r = simctl(&mut s, &bad);
        assert_ne!(r.code, 0, "{bad:?}");
        assert!(r.stderr.contains("Usage: simctl privacy"), "{}", r.stderr);
    }
}

#[test]
fn the_bundle_copied_out_reinstalls_the_same_app_without_its_data() {
    let home = tempfile::tempdir().unwrap();
    let mut s = default_state();
    s.home = home.path().display().to_string();
    let bid = "com.alibaba.qwen";
    let schemes = s.simulators[0]
        .apps
        .iter()
        .find(|a| a.bundle_id == bid)
        .unwrap()
        .url_schemes
        .clone();
    s.simulators[0].app_data.insert(
        bid.into(),
        [(
            "Library/Preferences/prefs.plist".to_string(),
            "logged-in".to_string(),
        )]
        .into(),
    );
    simctl(&mut s, &["privacy", BOOTED_UDID, "grant", "photos", bid]);
    let r = simctl(&mut s, &["get_app_container", BOOTED_UDID, bid]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let path = String::from_utf8(r.stdout).unwrap().trim().to_string();
    assert!(
        path.ends_with(".app") && path.starts_with(&s.home),
        "{path}"
    );
    let copy = tempfile::tempdir().unwrap();
    let to = copy.path().join("Qwen.app");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(&path).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    assert_eq!(simctl(&mut s, &["uninstall", BOOTED_UDID, bid]).code, 0);
    assert!(!s.simulators[0].app_data.contains_key(bid));
    assert!(!s.simulators[0].privacy.contains_key(bid));
    let r = simctl(&mut s, &["install", BOOTED_UDID, to.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let back = s.simulators[0]
        .apps
        .iter()
        .find(|a| a.bundle_id == bid)
        .unwrap();
    assert_eq!(back.url_schemes, schemes);
    let r = simctl(
        &mut s,
        &["get_app_container", BOOTED_UDID, "com.example.absent"],
    );
    assert_ne!(r.code, 0);
}
