//! Any language on Android: `mobile_type_keys` pastes what `input text` cannot type through
//! the on-device helper and the clipboard, and `mobile_clipboard` gets and sets the clip,
//! on Android 8, 10, 13 and 14 profiles. Each test checks the field, the clip, the phone's
//! input records and the commands it received.

use super::*;

const USER_CLIP: &str = "the user's copy";

/// The four texts of the issue: CJK with full-width punctuation, Arabic, an emoji with a
/// skin-tone modifier (surrogate pairs in Java) and an accent, and 2,000 mixed characters
/// (Hebrew, a combining mark, newlines).
fn texts() -> Vec<String> {
    let mix = "你好，世界 مرحبا 👋🏽 café e\u{301} שלום\n日本語 ";
    let long: String = mix.chars().cycle().take(2000).collect();
    vec!["你好，世界".into(), "مرحبا".into(), "👋🏽 café".into(), long]
}

/// The Notes editor in front with its body field focused and empty, the user's clip set by
/// another app.
fn ready(phone: &PhoneHandle) {
    phone.update_state(|s| {
        if s.foreground_package() != Some("com.example.notes") {
            let _ = s.start_activity("com.example.notes", None);
        }
        s.stack.last_mut().unwrap().screen = "editor".into();
        s.focus(Some("com.example.notes:id/body_input".into()));
        if let Some(e) = s
            .packages
            .get_mut("com.example.notes")
            .and_then(|p| p.screens.get_mut("editor"))
            .and_then(|sc| {
                sc.elements
                    .iter_mut()
                    .find(|e| e.resource_id == "com.example.notes:id/body_input")
            })
        {
            e.text.clear();
        }
        s.clipboard = USER_CLIP.into();
        s.clip.has_clip = true;
        s.clip.source = Some("com.example.notes".into());
        s.clip.overlays.clear();
        s.clip.calls.clear();
        s.input_events.clear();
    });
    phone.clear_log();
}

fn no_input_text_beyond_ascii(phone: &PhoneHandle) {
    for e in phone.state().input_events {
        if let InputEvent::Text { text } = e {
            assert!(
                text.is_ascii(),
                "non-ASCII went through `input text`: {text:?}"
            );
        }
    }
    for a in argvs(phone) {
        if a.first().is_some_and(|w| w == "input") && a.get(1).is_some_and(|w| w == "text") {
            assert!(a.iter().all(|w| w.is_ascii()), "{a:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_language_is_typed_exactly_and_the_users_clip_is_back_on_8_10_13_and_14() {
    bounded(async {
        for sdk in [26, 29, 33, 34] {
            let r = rig(Profile::android(sdk)).await;
            for text in texts() {
                ready(&r.phone);
                r.mcp
                    .ok(
                        "mobile_type_keys",
                        json!({"device": r.dev, "text": text, "submit": false}),
                    )
                    .await;
                let s = r.phone.state();
                assert_eq!(
                    s.focused_text().as_deref(),
                    Some(text.as_str()),
                    "SDK {sdk}"
                );
                assert_eq!(s.clipboard, USER_CLIP, "SDK {sdk}: the user's clip is back");
                assert!(s.clip.has_clip, "SDK {sdk}");
                assert!(
                    s.clip.overlays.is_empty(),
                    "SDK {sdk}: {:?}",
                    s.clip.overlays
                );
                assert!(
                    s.input_events
                        .iter()
                        .any(|e| matches!(e, InputEvent::Key { code: 279, .. })),
                    "SDK {sdk}: pasted"
                );
                no_input_text_beyond_ascii(&r.phone);
                assert!(
                    r.phone.injections().is_empty(),
                    "{:?}",
                    r.phone.injections()
                );
            }
            // Pushed once, under its content hash.
            let helpers: Vec<String> = r
                .phone
                .state()
                .files
                .keys()
                .filter(|k| k.contains("mobilemcp-helper-"))
                .cloned()
                .collect();
            assert_eq!(helpers.len(), 1, "{helpers:?}");
            let pushed = r.phone.state().files[&helpers[0]].data.clone();
            let built = std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../android/helper/mobile-mcp-helper.dex"
            ))
            .unwrap();
            assert_eq!(pushed, built);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clipboard_set_then_get_round_trips_on_every_release() {
    bounded(async {
        for sdk in [26, 29, 33, 34] {
            let r = rig(Profile::android(sdk)).await;
            for text in texts() {
                r.mcp
                    .ok("mobile_clipboard", json!({"device": r.dev, "text": text}))
                    .await;
                assert_eq!(r.phone.state().clipboard, text, "SDK {sdk}");
                let got = r.mcp.ok("mobile_clipboard", json!({"device": r.dev})).await;
                assert_eq!(got, text, "SDK {sdk}");
            }
            assert!(r.phone.state().clip.overlays.is_empty());
            assert!(
                r.phone.injections().is_empty(),
                "{:?}",
                r.phone.injections()
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_helper_is_pushed_again_and_typing_still_works() {
    bounded(async {
        let r = rig(Profile::android(34)).await;
        ready(&r.phone);
        r.mcp
            .ok(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "你好", "submit": false}),
            )
            .await;
        let path = r
            .phone
            .state()
            .files
            .keys()
            .find(|k| k.contains("mobilemcp-helper-"))
            .cloned()
            .unwrap();
        let good = r.phone.state().files[&path].data.clone();
        r.phone.update_state(|s| {
            let f = s.files.get_mut(&path).unwrap();
            let n = f.data.len();
            f.data[n - 1] ^= 0xff;
        });
        ready(&r.phone);
        r.mcp
            .ok(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "世界", "submit": false}),
            )
            .await;
        assert_eq!(r.phone.state().focused_text().as_deref(), Some("世界"));
        assert_eq!(r.phone.state().files[&path].data, good);
        assert_eq!(r.phone.state().clipboard, USER_CLIP);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_the_clip_cannot_work_the_error_says_why_and_the_users_clip_stays() {
    bounded(async {
        // The shell's WRITE_CLIPBOARD app op set to ignore: the service drops the clip
        // silently; the helper reads it back, so nothing (not the user's clip) is pasted.
        let r = rig(Profile::android(34)).await;
        ready(&r.phone);
        r.phone.update_state(|s| {
            s.location
                .app_ops
                .entry("com.android.shell".into())
                .or_default()
                .insert("WRITE_CLIPBOARD".into(), "ignore".into());
        });
        let res = r
            .mcp
            .call(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "你好", "submit": false}),
            )
            .await;
        let t = err_text(&res);
        assert!(t.contains("did not take the shell's clip"), "{t}");
        assert!(t.contains("WRITE_CLIPBOARD"), "{t}");
        let s = r.phone.state();
        assert_eq!(s.clipboard, USER_CLIP);
        assert_eq!(s.focused_text().as_deref(), Some(""));
        assert!(
            !s.input_events
                .iter()
                .any(|e| matches!(e, InputEvent::Key { code: 279, .. })),
            "nothing pasted"
        );

        // No app_process for the shell: refused before the clip or the field change.
        let mut p = Profile::android(34);
        p.no_app_process = true;
        let r = rig(p).await;
        ready(&r.phone);
        let res = r
            .mcp
            .call(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "مرحبا", "submit": false}),
            )
            .await;
        let t = err_text(&res);
        assert!(t.contains("no `app_process`"), "{t}");
        assert!(t.contains("ASCII"), "{t}");
        let s = r.phone.state();
        assert_eq!(s.clipboard, USER_CLIP);
        assert!(s.clip.calls.is_empty(), "{:?}", s.clip.calls);
        assert!(
            !s.input_events
                .iter()
                .any(|e| matches!(e, InputEvent::Key { code: 279, .. }))
        );
        let res = r
            .mcp
            .call("mobile_clipboard", json!({"device": r.dev}))
            .await;
        assert!(err_text(&res).contains("no `app_process`"));
    })
    .await;
}

const GBOARD: &str = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
const ADB_IME: &str = "com.android.adbkeyboard/.AdbIME";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_any_language_leaves_the_users_ime_as_it_was() {
    bounded(async {
        for sdk in [26, 29, 33, 34] {
            let r = rig(Profile::android(sdk)).await;
            // The user has Gboard selected and ADBKeyboard installed and enabled: an IME the
            // server could switch to, and must not.
            r.phone.update_state(|s| {
                s.files.insert(
                    "/data/local/tmp/k.apk".into(),
                    virtual_phone::state::FileEntry {
                        data: virtual_phone::fake_apk("com.android.adbkeyboard", "ADBKeyboard"),
                        mode: 0o100644,
                        mtime: 0,
                    },
                );
            });
            r.phone.shell("pm install /data/local/tmp/k.apk");
            r.phone.shell(&format!("ime enable {ADB_IME}"));
            let before = |p: &PhoneHandle| {
                let s = p.state();
                (
                    s.setting("secure", "default_input_method")
                        .map(str::to_string),
                    s.setting("secure", "enabled_input_methods")
                        .map(str::to_string),
                )
            };
            let was = before(&r.phone);
            assert_eq!(was.0.as_deref(), Some(GBOARD), "SDK {sdk}");
            for text in texts() {
                ready(&r.phone);
                r.mcp
                    .ok(
                        "mobile_type_keys",
                        json!({"device": r.dev, "text": text, "submit": false}),
                    )
                    .await;
                assert_eq!(
                    r.phone.state().focused_text().as_deref(),
                    Some(text.as_str())
                );
                assert_eq!(before(&r.phone), was, "SDK {sdk}: the IMEs changed");
                for a in argvs(&r.phone) {
                    let ime_cmd = a.first().is_some_and(|w| w == "ime")
                        || a.windows(2)
                            .any(|w| w[0] == "cmd" && w[1] == "input_method")
                        || (a.first().is_some_and(|w| w == "settings")
                            && a.iter().any(|w| w == "put")
                            && a.iter().any(|w| w.contains("input_method")));
                    assert!(!ime_cmd, "SDK {sdk}: {a:?}");
                }
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_12_and_13_show_the_access_toasts_and_the_users_clip_comes_back() {
    bounded(async {
        for sdk in [29, 31, 33] {
            let r = rig(Profile::android(sdk)).await;
            ready(&r.phone);
            r.phone.update_state(|s| {
                s.clip.toasts.clear();
                s.clip.notified.clear();
            });
            r.mcp
                .ok(
                    "mobile_type_keys",
                    json!({"device": r.dev, "text": "你好，世界", "submit": false}),
                )
                .await;
            let s = r.phone.state();
            assert_eq!(s.focused_text().as_deref(), Some("你好，世界"), "SDK {sdk}");
            assert_eq!(s.clipboard, USER_CLIP, "SDK {sdk}: the user's clip is back");
            assert!(
                s.clip.overlays.is_empty(),
                "SDK {sdk}: {:?}",
                s.clip.overlays
            );
            if sdk >= 31 {
                // The helper read the user's clip (set by Notes), and Notes read the
                // shell's clip to paste it: one toast each, as the phone showed them.
                assert_eq!(
                    s.clip.toasts,
                    [
                        "Shell pasted from your clipboard",
                        "Notes pasted from your clipboard"
                    ],
                    "SDK {sdk}"
                );
            } else {
                assert!(s.clip.toasts.is_empty(), "SDK {sdk}: {:?}", s.clip.toasts);
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_focused_field_or_a_locked_phone_typing_says_why_and_changes_nothing() {
    bounded(async {
        // No field has the focus.
        let r = rig(Profile::android(34)).await;
        ready(&r.phone);
        r.phone.update_state(|s| s.focus(None));
        let res = r
            .mcp
            .call(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "你好", "submit": false}),
            )
            .await;
        let t = err_text(&res);
        assert!(t.contains("no field has the focus"), "{t}");
        let s = r.phone.state();
        assert_eq!(s.clipboard, USER_CLIP);
        assert!(s.clip.calls.is_empty(), "{:?}", s.clip.calls);
        assert!(s.input_events.is_empty(), "{:?}", s.input_events);

        // The keyguard is in front of the Notes editor, whose body had the focus.
        let r = rig(Profile {
            keyguard: true,
            ..Profile::android(34)
        })
        .await;
        ready(&r.phone);
        let res = r
            .mcp
            .call(
                "mobile_type_keys",
                json!({"device": r.dev, "text": "مرحبا", "submit": false}),
            )
            .await;
        let t = err_text(&res);
        assert!(
            t.contains("no field has the focus") || t.contains("locked") || t.contains("keyguard"),
            "{t}"
        );
        let s = r.phone.state();
        assert_eq!(s.focused_text().as_deref(), Some(""));
        assert_eq!(s.clipboard, USER_CLIP);
        assert!(
            !s.input_events
                .iter()
                .any(|e| matches!(e, InputEvent::Key { code: 279, .. })),
            "nothing pasted"
        );
    })
    .await;
}
