//! An app's own state through the phone's shell: `pm clear`, `pm grant` / `revoke` and
//! what `dumpsys package` says of them, and the intent `am start` gives an app (sources in
//! `src/state/app_data.rs`, `src/commands/intent.rs` and `fixtures/SOURCES.md`).

use virtual_phone::state::Extra;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

const NOTES: &str = "com.example.notes";

fn phone() -> PhoneHandle {
    VirtualPhone::start(PhoneConfig::default()).unwrap()
}

fn runtime_line<'a>(dump: &'a str, perm: &str) -> &'a str {
    dump.lines()
        .find(|l| l.trim_start().starts_with(&format!("{perm}: granted=")))
        .unwrap_or_else(|| panic!("no runtime line for {perm}:\n{dump}"))
}

#[test]
fn dumpsys_lists_requested_install_and_runtime_permissions() {
    let p = phone();
    let dump = p.shell(&format!("dumpsys package {NOTES}"));
    for section in [
        "    requested permissions:\n      android.permission.INTERNET\n",
        "    install permissions:\n      android.permission.INTERNET: granted=true\n",
        "      runtime permissions:\n        android.permission.CAMERA: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]\n",
    ] {
        assert!(dump.contains(section), "{section} missing:\n{dump}");
    }
    assert_eq!(
        p.shell(&format!("pm grant {NOTES} android.permission.CAMERA")),
        ""
    );
    assert!(
        runtime_line(
            &p.shell(&format!("dumpsys package {NOTES}")),
            "android.permission.CAMERA"
        )
        .contains("granted=true")
    );
    assert_eq!(
        p.shell(&format!("pm revoke {NOTES} android.permission.CAMERA")),
        ""
    );
    assert!(
        runtime_line(
            &p.shell(&format!("dumpsys package {NOTES}")),
            "android.permission.CAMERA"
        )
        .contains("granted=false")
    );
}

#[test]
fn pm_grant_refuses_as_the_permission_service_does() {
    let p = phone();
    for (perm, said) in [
        (
            "android.permission.READ_SMS",
            "java.lang.SecurityException: Package com.example.notes has not requested permission android.permission.READ_SMS",
        ),
        (
            "android.permission.INTERNET",
            "java.lang.SecurityException: Permission android.permission.INTERNET requested by com.example.notes is not a changeable permission type",
        ),
        (
            "android.permission.NOPE",
            "java.lang.IllegalArgumentException: Unknown permission: android.permission.NOPE",
        ),
    ] {
        let out = p.shell(&format!("pm grant {NOTES} {perm}"));
        assert!(
            out.contains("Exception occurred while executing 'grant':") && out.contains(said),
            "{perm}: {out}"
        );
    }
    assert!(p.state().packages[NOTES].granted.is_empty());
}

#[test]
fn pm_clear_puts_the_app_back_as_installed() {
    let p = phone();
    p.shell(&format!("am start -n {NOTES}/.MainActivity"));
    p.update_state(|s| {
        // What using the app did: a note added on its main screen, a preference file.
        s.app_screen_mut(NOTES, "main")
            .unwrap()
            .elements
            .push(virtual_phone::state::Element::new(
                virtual_phone::state::ElementKind::Text,
                "Buy milk",
            ));
    });
    p.shell(&format!("pm grant {NOTES} android.permission.CAMERA"));
    assert!(p.ui_dump().contains("Buy milk"));
    assert_eq!(p.shell(&format!("pm clear {NOTES}")), "Success\n");
    let s = p.state();
    assert!(
        !s.packages[NOTES].screens["main"]
            .elements
            .iter()
            .any(|e| e.text == "Buy milk")
    );
    assert!(s.packages[NOTES].granted.is_empty());
    assert_ne!(
        s.foreground_package(),
        Some(NOTES),
        "clearing stops the app"
    );
    assert_eq!(p.shell("pm clear com.example.absent"), "Failed\n");
}

#[test]
fn am_start_gives_the_app_its_extras_and_a_running_app_keeps_its_intent() {
    let p = phone();
    let out = p.shell(&format!(
        "am start -n {NOTES}/.MainActivity --es user 'ada lovelace' --ei count 3 --ez pro true"
    ));
    assert!(out.contains("(has extras)"), "{out}");
    let s = p.state();
    let intent = s.foreground().unwrap().intent.clone().unwrap();
    assert_eq!(intent.extras["user"], Extra::String("ada lovelace".into()));
    assert_eq!(intent.extras["count"], Extra::Int(3));
    assert_eq!(intent.extras["pro"], Extra::Bool(true));
    // Started again while running: the task comes to the front, the new extras are lost.
    let out = p.shell(&format!(
        "am start -n {NOTES}/.MainActivity --es user grace"
    ));
    assert!(
        out.contains(
            "Warning: Activity not started, its current task has been brought to the front"
        ),
        "{out}"
    );
    let again = p.state().foreground().unwrap().intent.clone().unwrap();
    assert_eq!(again.extras["user"], Extra::String("ada lovelace".into()));
}

#[test]
fn a_view_intent_limited_to_a_package_opens_its_link_screen() {
    let p = phone();
    let out = p.shell(&format!(
        "am start -a android.intent.action.VIEW -d notes://new/today {NOTES}"
    ));
    assert!(out.contains("pkg=com.example.notes"), "{out}");
    let s = p.state();
    let f = s.foreground().unwrap();
    assert_eq!(f.package, NOTES);
    assert_eq!(f.screen, "editor");
    assert_eq!(
        f.intent.as_ref().unwrap().data.as_deref(),
        Some("notes://new/today")
    );
    // Settings handles no notes:// link, nor Notes an https one.
    let out = p.shell("am start -a android.intent.action.VIEW -d notes://x com.android.settings");
    assert!(
        out.contains("Error: Activity not started, unable to resolve Intent"),
        "{out}"
    );
    let out = p.shell(&format!(
        "am start -a android.intent.action.VIEW -d https://example.com {NOTES}"
    ));
    assert!(out.contains("unable to resolve Intent"), "{out}");
}
