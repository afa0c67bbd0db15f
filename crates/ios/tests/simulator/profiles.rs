//! The fake's fb-idb 1.1 and 1.5 profiles and real simulator behaviours
//! (testkit/fake-xcode/fixtures/SOURCES.md): what each tool does on them, checked on
//! the calls the fake received and its state afterwards.

use fake_xcode::{IDB_1_1, IDB_1_5, SPRINGBOARD};
use mobile_device::{DeviceError, LaunchOptions, Locales, Orientation, Point};

use crate::{Harness, U, app, real, run};

fn harness(idb: &str) -> Harness {
    let h = Harness::new();
    h.edit(|s| s.idb_version = idb.into());
    h
}

/// Opens Qwen and focuses its text field.
async fn focus_qwen(h: &Harness, dev: &dyn mobile_device::Device) {
    dev.launch_app(&app("com.alibaba.qwen"), &LaunchOptions::default())
        .await
        .unwrap();
    let field = dev
        .list_elements()
        .await
        .unwrap()
        .into_iter()
        .find(|e| e.label.as_deref() == Some("Ask Qwen"))
        .unwrap();
    dev.tap(field.rect.center()).await.unwrap();
    h.clear_log();
}

fn qwen_field(h: &Harness) -> Option<String> {
    h.sim().screens["com.alibaba.qwen"][1].children[0]
        .value
        .clone()
}

#[test]
fn home_screen_is_springboard_though_its_label_is_a_space() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        assert_eq!(h.sim().foreground, None);
        let fg = dev.foreground_app().await.unwrap();
        assert_eq!(fg.package_name, SPRINGBOARD);
    });
}

#[test]
fn rotation_on_idb_1_1_names_the_release_it_needs() {
    if real() {
        return;
    }
    run(async {
        let h = harness(IDB_1_1);
        let dev = h.device().await;
        h.clear_log();
        let e = dev
            .set_orientation(Orientation::Landscape)
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::Unsupported { .. }), "{e:?}");
        let m = e.to_string();
        assert!(m.contains("`idb ui rotate`") && m.contains("1.5.0"), "{m}");
        assert!(m.contains("pip install --upgrade --pre fb-idb"), "{m}");
        assert!(m.contains("Rotate Left"), "{m}");
        assert!(!m.contains("usage:") && !m.contains("Traceback"), "{m}");
        h.assert_calls(&[("idb", &["ui", "rotate", "LANDSCAPE_LEFT", "--udid", U])]);
        assert_eq!(h.sim().orientation, "PORTRAIT");
    });
}

#[test]
fn orientation_follows_the_interface_though_screenshots_stay_portrait() {
    if real() {
        return;
    }
    run(async {
        let h = harness(IDB_1_5);
        let dev = h.device().await;
        dev.set_orientation(Orientation::Landscape).await.unwrap();
        assert_eq!(h.sim().orientation, "LANDSCAPE_LEFT");
        assert!(!h.sim().screenshot_follows_rotation);
        assert_eq!(dev.orientation().await.unwrap(), Orientation::Landscape);
        let size = dev.screen_size().await.unwrap();
        assert_eq!((size.width, size.height, size.scale), (874, 402, 3.0));
        dev.set_orientation(Orientation::Portrait).await.unwrap();
        assert_eq!(dev.orientation().await.unwrap(), Orientation::Portrait);
    });
}

#[test]
fn double_tap_is_one_gesture_on_1_5_and_a_clear_limit_on_1_1() {
    if real() {
        return;
    }
    run(async {
        let h = harness(IDB_1_5);
        let dev = h.device().await;
        h.clear_log();
        dev.double_tap(Point::new(5, 6)).await.unwrap();
        h.assert_calls(&[("idb", &["ui", "multi-tap", "5", "6", "--udid", U])]);
        assert_eq!(h.sim().gestures, ["double-tap 5,6"]);

        let h = harness(IDB_1_1);
        let dev = h.device().await;
        let e = dev.double_tap(Point::new(5, 6)).await.unwrap_err();
        assert!(matches!(e, DeviceError::Unsupported { .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains("`idb ui multi-tap`") && m.contains("1.5.0"),
            "{m}"
        );
        assert!(h.sim().gestures.is_empty(), "no lone tap was sent");
    });
}

#[test]
fn non_ascii_text_is_pasted_on_1_5_and_left_on_the_clipboard_on_1_1() {
    if real() {
        return;
    }
    run(async {
        let text = "café 世界 🎉";
        let h = harness(IDB_1_5);
        let dev = h.device().await;
        focus_qwen(&h, dev.as_ref()).await;
        dev.set_clipboard("the user's copy").await.unwrap();
        h.clear_log();
        dev.type_text(text).await.unwrap();
        h.assert_calls(&[
            ("xcrun", &["simctl", "pbpaste", U]),
            ("xcrun", &["simctl", "pbcopy", U]),
            ("idb", &["ui", "key", "25", "--command", "--udid", U]),
            ("xcrun", &["simctl", "pbcopy", U]),
        ]);
        assert_eq!(qwen_field(&h).as_deref(), Some(text));
        // Typing does not replace what the user had on the clipboard.
        assert_eq!(h.sim().clipboard, "the user's copy");

        let h = harness(IDB_1_1);
        let dev = h.device().await;
        focus_qwen(&h, dev.as_ref()).await;
        let e = dev.type_text(text).await.unwrap_err();
        assert!(matches!(e, DeviceError::Unsupported { .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains("typing 'é'") && m.contains("1.5.0") && m.contains("Paste"),
            "{m}"
        );
        assert!(!m.contains("Traceback") && !m.contains("usage:"), "{m}");
        assert_eq!(qwen_field(&h), None, "nothing typed");
        assert_eq!(
            h.sim().clipboard,
            text,
            "left on the clipboard to paste by hand"
        );
        // ASCII still goes through idb's keys on 1.1.
        dev.type_text("ok").await.unwrap();
        assert_eq!(qwen_field(&h).as_deref(), Some("ok"));
    });
}

#[test]
fn locale_launch_of_a_running_app_starts_it_again() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let qwen = app("com.alibaba.qwen");
        dev.launch_app(&qwen, &LaunchOptions::default())
            .await
            .unwrap();
        let before = h.sim().running["com.alibaba.qwen"];
        dev.launch_app(
            &qwen,
            &LaunchOptions::in_locales(Some(Locales::parse("fr-FR").unwrap())),
        )
        .await
        .unwrap();
        let sim = h.sim();
        assert_ne!(sim.running["com.alibaba.qwen"], before, "a new process");
        assert_eq!(
            sim.launch_args["com.alibaba.qwen"],
            ["-AppleLanguages", "(fr-FR)", "-AppleLocale", "fr_FR"]
        );
    });
}

#[test]
fn real_element_types_are_listed_and_actionable() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        h.edit(|s| {
            let sim = &mut s.simulators[0];
            sim.foreground = Some("com.apple.Preferences".into());
            sim.running.insert("com.apple.Preferences".into(), 40100);
            sim.shown.insert(
                "com.apple.Preferences".into(),
                "com.apple.Preferences/general".into(),
            );
        });
        let dev = h.device().await;
        let els = dev.list_elements().await.unwrap();
        let find = |l: &str| els.iter().find(|e| e.label.as_deref() == Some(l)).unwrap();
        let switch = find("Airplane Mode");
        assert_eq!(switch.element_type, "Switch");
        assert!(switch.states.clickable && !switch.states.checked);
        for (label, kind) in [
            ("Light", "RadioButton"),
            ("Date Format", "PopUpButton"),
            ("Brightness", "Slider"),
            ("Notes", "TextArea"),
        ] {
            let e = find(label);
            assert_eq!(e.element_type, kind);
            assert!(e.states.clickable, "{kind}");
        }
        // A text area takes focus and text like a field.
        dev.tap(find("Notes").rect.center()).await.unwrap();
        dev.type_text("hi").await.unwrap();
        let notes = h.sim().screens["com.apple.Preferences/general"]
            .iter()
            .find(|e| e.kind == "TextArea")
            .unwrap()
            .value
            .clone();
        assert_eq!(notes.as_deref(), Some("hi"));
    });
}
