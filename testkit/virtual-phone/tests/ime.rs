//! `ime` / `cmd input_method` per release: the selected and enabled IMEs live in the secure
//! settings, and each release words the answers its own way (`commands/ime.rs`).

use virtual_phone::profile::{self, Profile};
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone, fake_apk};

const GBOARD: &str = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
const ADB_IME: &str = "com.android.adbkeyboard/.AdbIME";

fn phone(sdk: u32) -> PhoneHandle {
    VirtualPhone::start(PhoneConfig {
        state: Some(profile::state_for(Profile::android(sdk))),
        ..PhoneConfig::default()
    })
    .unwrap()
}

fn with_adb_keyboard(p: &PhoneHandle) {
    p.update_state(|s| {
        s.files.insert(
            "/data/local/tmp/k.apk".into(),
            virtual_phone::state::FileEntry {
                data: fake_apk("com.android.adbkeyboard", "ADBKeyboard"),
                mode: 0o100644,
                mtime: 0,
            },
        );
    });
    assert!(
        p.shell("pm install /data/local/tmp/k.apk")
            .contains("Success")
    );
}

fn selected(p: &PhoneHandle) -> String {
    p.shell("settings get secure default_input_method")
        .trim()
        .to_string()
}

#[test]
fn list_shows_the_enabled_imes_and_all_with_a() {
    let p = phone(34);
    with_adb_keyboard(&p);
    assert_eq!(p.shell("ime list -s"), format!("{GBOARD}\n"));
    assert_eq!(p.shell("ime list -a -s"), format!("{GBOARD}\n{ADB_IME}\n"));
    let long = p.shell("ime list");
    assert!(
        long.starts_with(&format!("{GBOARD}:\n  mId={GBOARD} ")),
        "{long}"
    );
    assert!(long.contains("mInlineSuggestionsEnabled=false"), "{long}");
    assert!(long.contains("      packageName=com.google.android.inputmethod.latin\n"));
    // Android 8: the older InputMethodInfo.dump has neither field.
    let old = phone(26).shell("ime list");
    assert!(
        !old.contains("mIsVrOnly") && old.contains("mSettingsActivityName="),
        "{old}"
    );
}

#[test]
fn enable_set_and_reset_word_their_answers_per_release() {
    for (sdk, user, set_gap) in [
        (26, "", " "),
        (28, "", "  "),
        (29, " for user #0", " "),
        (34, " for user #0", " "),
    ] {
        let p = phone(sdk);
        with_adb_keyboard(&p);
        assert_eq!(
            p.shell(&format!("ime enable {ADB_IME}")),
            format!("Input method {ADB_IME}: now enabled{user}\n"),
            "SDK {sdk}"
        );
        assert_eq!(
            p.shell(&format!("ime enable {ADB_IME}")),
            format!("Input method {ADB_IME}: already enabled{user}\n")
        );
        assert_eq!(
            p.shell(&format!("ime set {ADB_IME}")),
            format!("Input method {ADB_IME}{set_gap}selected{user}\n")
        );
        assert_eq!(selected(&p), ADB_IME, "SDK {sdk}");
        assert_eq!(p.shell("ime list -s"), format!("{GBOARD}\n{ADB_IME}\n"));
        let reset = p.shell("ime reset");
        match sdk {
            26 => {
                assert!(
                    reset.starts_with("Error: unknown command 'reset'\nusage: ime list"),
                    "{reset}"
                );
                assert_eq!(selected(&p), ADB_IME, "no reset on Android 8");
            }
            28 => {
                assert_eq!(
                    reset,
                    format!(
                        "Reset current and enabled IMEs\nNewly selected IME:\n  {GBOARD}\nNewly enabled IMEs:\n  {GBOARD}\n"
                    )
                );
                assert_eq!(selected(&p), GBOARD);
            }
            _ => {
                assert_eq!(
                    reset,
                    format!(
                        "Reset current and enabled IMEs for user #0\n  Selected: {GBOARD}\n   Enabled: {GBOARD}\n"
                    )
                );
                assert_eq!(selected(&p), GBOARD);
                assert_eq!(p.shell("ime list -s"), format!("{GBOARD}\n"));
            }
        }
    }
}

#[test]
fn an_unknown_ime_is_refused_and_changes_nothing() {
    let p = phone(34);
    assert_eq!(
        p.shell("ime set com.example/.Nope"),
        "Unknown input method com.example/.Nope cannot be selected for user #0\n"
    );
    assert_eq!(
        p.shell("cmd input_method enable com.example/.Nope"),
        "Unknown input method com.example/.Nope cannot be enabled for user #0\n"
    );
    assert_eq!(selected(&p), GBOARD);
    assert_eq!(
        phone(26).shell("ime set com.example/.Nope"),
        "Error: Unknown id: com.example/.Nope\n"
    );
}
