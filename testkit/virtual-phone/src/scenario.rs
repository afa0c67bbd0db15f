//! The default scenario: a Pixel 7-like phone (Android 14, SDK 34, 1080x2400, 420 dpi) with a
//! launcher, Settings, Chrome, Qwen and a Notes demo app, plus system packages without launcher
//! activities.
//!
//! # Packages
//!
//! | package | label | kind | launcher activity |
//! |---|---|---|---|
//! | `com.android.launcher3` | Pixel Launcher | system (HOME) | `com.android.launcher3.uioverrides.QuickstepLauncher` |
//! | `com.android.settings` | Settings | system | `com.android.settings.Settings` |
//! | `com.android.chrome` | Chrome | system | `com.google.android.apps.chrome.Main` (alias; shows `org.chromium.chrome.browser.ChromeTabbedActivity`) |
//! | `com.alibaba.qwen` | Qwen | user (`pm list packages -3`) | `com.alibaba.qwen.MainActivity` |
//! | `com.example.notes` | Notes | user | `com.example.notes.MainActivity` |
//! | `android`, `com.android.systemui`, `com.android.phone`, `com.android.shell`, `com.android.providers.settings`, `com.google.android.inputmethod.latin` | – | system, no launcher | – |
//!
//! # Screens and what leads where
//!
//! Elements are listed top to bottom; their bounds come from [`crate::layout`] (use
//! `PhoneHandle::element_center(label)` or the uiautomator dump to find them).
//!
//! - **Launcher** `home`: one `android.widget.TextView` icon per launcher app (text and
//!   content-desc = label); tapping one launches the app. HOME always returns here.
//! - **Settings** `main` (`.Settings`): EditText "Search settings"; list items "Network &
//!   internet" → `network`, "Connected devices", "Apps", "Notifications", "Battery", "Storage",
//!   "Sound & vibration" (inert), "Display" → `display`, more inert items, and "About phone" →
//!   `about` at the end. The list is taller than the screen: "About phone" appears only after
//!   scrolling (`input swipe 540 1800 540 600`; the list node is `scrollable="true"`). `network` (`.SubSettings`): Switches "Wi-Fi" (on), "Airplane mode". `display`
//!   (`.Settings$DisplaySettingsActivity`): Switches "Dark theme", "Auto-rotate screen". `about`
//!   (`.Settings$MyDeviceInfoActivity`): texts "Device name", "Virtual Pixel", "Android version", "14".
//! - **Chrome** `main` (`org.chromium.chrome.browser.ChromeTabbedActivity`): EditText
//!   `com.android.chrome:id/url_bar` (hint "Search or type web address"; shows the URL after
//!   `am start -a android.intent.action.VIEW -d URL`), text `page_content` ("New tab" / "Page at URL").
//! - **Qwen** `main` (`.MainActivity`, title "Qwen"): text "How can I help you today?", EditText
//!   `com.alibaba.qwen:id/input` (hint "Message Qwen"), Button "Send" (content-desc "Send"; or
//!   ENTER in the field) appends "You: TEXT" to the screen and clears the field, Button
//!   "History" → `history` (`.HistoryActivity`: "No conversations yet", Button "Back to chat" = BACK).
//! - **Notes** `main` (`.MainActivity`, title "Notes"): Button "New note" → `editor`, Button
//!   "Settings" → `settings`, text "Shopping list" (and every saved note below it).
//!   `editor` (`.EditorActivity`, title "New note"): EditTexts `title_input` (hint "Title") and
//!   `body_input` (hint "Note"), Button "Save" (adds the title as a note on `main` and returns
//!   there; ENTER in the title does the same), Button "Cancel" = BACK. `settings`
//!   (`.SettingsActivity`): Switch "Sync notes", Button "About" → `about` (`.AboutActivity`: "Notes 1.0"),
//!   Button "Crash app": the app crashes (a `FATAL EXCEPTION` block in `logcat -b crash`, the
//!   app leaves the stack, the screen below — usually the launcher — shows), Button "Delete all notes":
//!   an alert dialog ([`Dialog`]: title "Delete all notes?", a message, text buttons
//!   "Cancel" `android:id/button2` and "Delete" `android:id/button1`) over the dimmed screen;
//!   while it shows a `uiautomator dump` holds only the dialog's window, "Delete" removes every
//!   note from `main` and "Cancel", BACK or a tap outside the dialog only dismiss it.
//! - **Installed APKs** get one screen `main` (`<pkg>.MainActivity`, title = LABEL): text
//!   "Hello from LABEL", Button "OK" = BACK.
//!
//! A vertical `input swipe` starting on a list that is taller than the screen scrolls it by the
//! finger's travel (elements outside the list area are neither dumped nor drawn); a swipe with
//! the same start and end and a duration of at least 400 ms is a long press (acts as a tap).
//! A tap on an EditText focuses it (typed text lands there; an empty EditText reports its hint as
//! `text`, like Android's accessibility text); BACK first closes the keyboard (unfocuses), then
//! pops the stack; navigating to a screen already on the stack pops back to it.

use std::collections::{BTreeMap, BTreeSet};

use crate::state::*;

fn screen(activity: &str, title: &str, elements: Vec<Element>) -> Screen {
    Screen {
        activity: activity.to_string(),
        title: title.to_string(),
        elements,
    }
}

fn nav(s: &str) -> Action {
    Action::Navigate {
        screen: s.to_string(),
    }
}

fn package(
    name: &str,
    label: &str,
    system: bool,
    uid: u32,
    launcher: Option<&str>,
    screens: Vec<(&str, Screen)>,
) -> Package {
    let apk_path = if system {
        let short = label.replace(' ', "");
        if name.starts_with("com.android.") || name == "android" {
            format!("/system/priv-app/{short}/{short}.apk")
        } else {
            format!("/product/app/{short}/{short}.apk")
        }
    } else {
        format!("/data/app/~~vdev{uid}==/{name}-vdev{uid}==/base.apk")
    };
    let mut activities: Vec<String> = screens.iter().map(|(_, s)| s.activity.clone()).collect();
    if let Some(l) = launcher {
        activities.push(l.to_string());
    }
    activities.sort();
    activities.dedup();
    Package {
        name: name.to_string(),
        label: label.to_string(),
        system,
        version_name: if system { "14".into() } else { "1.0".into() },
        version_code: if system { 34 } else { 1 },
        apk_path,
        uid,
        launcher_activity: launcher.map(str::to_string),
        activities,
        main_screen: screens
            .first()
            .map(|(n, _)| n.to_string())
            .unwrap_or_default(),
        screens: screens
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect(),
        permissions: Vec::new(),
        granted: Default::default(),
        link_schemes: Default::default(),
        fresh_screens: None,
    }
}

/// A package installed from an APK: one launcher activity and one screen.
pub(crate) fn installed_package(name: &str, label: &str, uid: u32) -> Package {
    let act = format!("{name}.MainActivity");
    package(
        name,
        label,
        false,
        uid,
        Some(&act),
        vec![(
            "main",
            screen(
                &act,
                label,
                vec![
                    Element::new(ElementKind::Text, &format!("Hello from {label}"))
                        .id(&format!("{name}:id/hello")),
                    Element::new(ElementKind::Button, "OK")
                        .id(&format!("{name}:id/ok"))
                        .action(Action::Back),
                ],
            ),
        )],
    )
}

fn settings_app() -> Package {
    let p = "com.android.settings";
    let main = "com.android.settings.Settings";
    package(
        p,
        "Settings",
        true,
        1000,
        Some(main),
        vec![
            (
                "main",
                screen(
                    main,
                    "Settings",
                    vec![
                        Element::new(ElementKind::EditText, "")
                            .id("com.android.settings:id/search_action_bar")
                            .hint("Search settings"),
                        Element::new(ElementKind::ListItem, "Network & internet")
                            .id("android:id/title")
                            .action(nav("network")),
                        Element::new(ElementKind::ListItem, "Connected devices")
                            .id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Apps").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Notifications").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Battery").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Storage").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Sound & vibration")
                            .id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Display")
                            .id("android:id/title")
                            .action(nav("display")),
                        Element::new(ElementKind::ListItem, "Wallpaper & style")
                            .id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Accessibility").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Security & privacy")
                            .id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Location").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "Passwords & accounts")
                            .id("android:id/title"),
                        Element::new(ElementKind::ListItem, "System").id("android:id/title"),
                        Element::new(ElementKind::ListItem, "About phone")
                            .id("android:id/title")
                            .action(nav("about")),
                    ],
                ),
            ),
            (
                "network",
                screen(
                    "com.android.settings.SubSettings",
                    "Network & internet",
                    vec![
                        Element::new(ElementKind::Switch, "Wi-Fi")
                            .id("com.android.settings:id/switch_widget")
                            .checked(true)
                            .action(Action::Toggle),
                        Element::new(ElementKind::Switch, "Airplane mode")
                            .id("com.android.settings:id/airplane")
                            .action(Action::Toggle),
                    ],
                ),
            ),
            (
                "display",
                screen(
                    "com.android.settings.Settings$DisplaySettingsActivity",
                    "Display",
                    vec![
                        Element::new(ElementKind::Switch, "Dark theme")
                            .id("com.android.settings:id/dark_theme")
                            .action(Action::Toggle),
                        Element::new(ElementKind::Switch, "Auto-rotate screen")
                            .id("com.android.settings:id/auto_rotate")
                            .action(Action::Toggle),
                    ],
                ),
            ),
            (
                "about",
                screen(
                    "com.android.settings.Settings$MyDeviceInfoActivity",
                    "About phone",
                    vec![
                        Element::new(ElementKind::Text, "Device name"),
                        Element::new(ElementKind::Text, "Virtual Pixel").id("android:id/summary"),
                        Element::new(ElementKind::Text, "Android version"),
                        Element::new(ElementKind::Text, "14")
                            .id("com.android.settings:id/android_version"),
                    ],
                ),
            ),
        ],
    )
}

fn chrome_app() -> Package {
    let p = "com.android.chrome";
    let main = "com.google.android.apps.chrome.Main";
    package(
        p,
        "Chrome",
        true,
        10110,
        Some(main),
        vec![(
            "main",
            screen(
                "org.chromium.chrome.browser.ChromeTabbedActivity",
                "",
                vec![
                    Element::new(ElementKind::EditText, "")
                        .id("com.android.chrome:id/url_bar")
                        .hint("Search or type web address"),
                    Element::new(ElementKind::Text, "New tab")
                        .id("com.android.chrome:id/page_content"),
                ],
            ),
        )],
    )
}

fn qwen_app() -> Package {
    let p = "com.alibaba.qwen";
    let main = "com.alibaba.qwen.MainActivity";
    package(
        p,
        "Qwen",
        false,
        10150,
        Some(main),
        vec![
            (
                "main",
                screen(
                    main,
                    "Qwen",
                    vec![
                        Element::new(ElementKind::Text, "How can I help you today?")
                            .id("com.alibaba.qwen:id/greeting"),
                        Element::new(ElementKind::EditText, "")
                            .id("com.alibaba.qwen:id/input")
                            .hint("Message Qwen"),
                        Element::new(ElementKind::Button, "Send")
                            .id("com.alibaba.qwen:id/send")
                            .desc("Send")
                            .action(Action::Submit {
                                field: "com.alibaba.qwen:id/input".into(),
                                to: "main".into(),
                                prefix: "You: ".into(),
                            }),
                        Element::new(ElementKind::Button, "History")
                            .id("com.alibaba.qwen:id/history")
                            .action(nav("history")),
                    ],
                ),
            ),
            (
                "history",
                screen(
                    "com.alibaba.qwen.HistoryActivity",
                    "History",
                    vec![
                        Element::new(ElementKind::Text, "No conversations yet")
                            .id("com.alibaba.qwen:id/empty"),
                        Element::new(ElementKind::Button, "Back to chat")
                            .id("com.alibaba.qwen:id/back")
                            .action(Action::Back),
                    ],
                ),
            ),
        ],
    )
}

fn notes_app() -> Package {
    let p = "com.example.notes";
    let main = "com.example.notes.MainActivity";
    let mut notes = package(
        p,
        "Notes",
        false,
        10160,
        Some(main),
        vec![
            (
                "main",
                screen(
                    main,
                    "Notes",
                    vec![
                        Element::new(ElementKind::Button, "New note")
                            .id("com.example.notes:id/new_note")
                            .action(nav("editor")),
                        Element::new(ElementKind::Button, "Settings")
                            .id("com.example.notes:id/settings")
                            .action(nav("settings")),
                        Element::new(ElementKind::Text, "Shopping list")
                            .id("com.example.notes:id/note_title"),
                    ],
                ),
            ),
            (
                "editor",
                screen(
                    "com.example.notes.EditorActivity",
                    "New note",
                    vec![
                        Element::new(ElementKind::EditText, "")
                            .id("com.example.notes:id/title_input")
                            .hint("Title"),
                        Element::new(ElementKind::EditText, "")
                            .id("com.example.notes:id/body_input")
                            .hint("Note"),
                        Element::new(ElementKind::Button, "Save")
                            .id("com.example.notes:id/save")
                            .action(Action::Submit {
                                field: "com.example.notes:id/title_input".into(),
                                to: "main".into(),
                                prefix: String::new(),
                            }),
                        Element::new(ElementKind::Button, "Cancel")
                            .id("com.example.notes:id/cancel")
                            .action(Action::Back),
                    ],
                ),
            ),
            (
                "settings",
                screen(
                    "com.example.notes.SettingsActivity",
                    "Settings",
                    vec![
                        Element::new(ElementKind::Switch, "Sync notes")
                            .id("com.example.notes:id/sync")
                            .action(Action::Toggle),
                        Element::new(ElementKind::Button, "About")
                            .id("com.example.notes:id/about")
                            .action(nav("about")),
                        Element::new(ElementKind::Button, "Crash app")
                            .id("com.example.notes:id/crash")
                            .action(Action::Crash {
                                exception: "java.lang.IllegalStateException: Crash button pressed"
                                    .into(),
                            }),
                        Element::new(ElementKind::Button, "Delete all notes")
                            .id("com.example.notes:id/delete_all")
                            .action(Action::ShowDialog {
                                dialog: Dialog {
                                    title: "Delete all notes?".into(),
                                    message: "Your notes will be removed from this phone. This cannot be undone.".into(),
                                    positive: "Delete".into(),
                                    negative: "Cancel".into(),
                                    on_positive: Some(Box::new(Action::Remove {
                                        screen: "main".into(),
                                        ids: vec![
                                            "com.example.notes:id/note_title".into(),
                                            "com.example.notes:id/item".into(),
                                        ],
                                    })),
                                },
                            }),
                    ],
                ),
            ),
            (
                "about",
                screen(
                    "com.example.notes.AboutActivity",
                    "About",
                    vec![
                        Element::new(ElementKind::Text, "Notes 1.0")
                            .id("com.example.notes:id/version"),
                    ],
                ),
            ),
        ],
    );
    // What a notes app with photos, reminders and sync asks for; `notes://` links open
    // the editor.
    notes.permissions = [
        "android.permission.INTERNET",
        "android.permission.CAMERA",
        "android.permission.POST_NOTIFICATIONS",
        "android.permission.ACCESS_FINE_LOCATION",
        "android.permission.ACCESS_COARSE_LOCATION",
    ]
    .map(String::from)
    .to_vec();
    notes.link_schemes.insert("notes".into(), "editor".into());
    notes
}

fn system_package(name: &str, label: &str, uid: u32) -> Package {
    package(name, label, true, uid, None, vec![])
}

/// Rebuilds the launcher's home screen from the packages with launcher activities.
pub(crate) fn refresh_launcher(state: &mut PhoneState) {
    let icons: Vec<Element> = state
        .packages
        .values()
        .filter(|p| p.launcher_activity.is_some() && p.name != LAUNCHER_PACKAGE)
        .map(|p| {
            Element::new(ElementKind::AppIcon, &p.label)
                .desc(&p.label)
                .action(Action::Launch {
                    package: p.name.clone(),
                })
        })
        .collect();
    if let Some(l) = state.packages.get_mut(LAUNCHER_PACKAGE)
        && let Some(home) = l.screens.get_mut("home")
    {
        home.elements = icons;
    }
}

/// The default phone.
pub fn default_state() -> PhoneState {
    let launcher = package(
        LAUNCHER_PACKAGE,
        "Pixel Launcher",
        true,
        10100,
        Some(LAUNCHER_ACTIVITY),
        vec![("home", screen(LAUNCHER_ACTIVITY, "", vec![]))],
    );
    let mut packages = BTreeMap::new();
    for p in [
        launcher,
        settings_app(),
        chrome_app(),
        qwen_app(),
        notes_app(),
        system_package("android", "Android System", 1000),
        system_package("com.android.systemui", "System UI", 10102),
        system_package("com.android.phone", "Phone Services", 1001),
        system_package("com.android.shell", "Shell", 2000),
        system_package("com.android.providers.settings", "Settings Storage", 1000),
        system_package("com.google.android.inputmethod.latin", "Gboard", 10120),
    ] {
        packages.insert(p.name.clone(), p);
    }

    let props: BTreeMap<String, String> = [
        ("ro.product.model", "Pixel 7"),
        ("ro.product.name", "panther"),
        ("ro.product.device", "panther"),
        ("ro.product.brand", "google"),
        ("ro.product.manufacturer", "Google"),
        ("ro.build.version.release", "14"),
        ("ro.build.version.sdk", "34"),
        ("ro.build.version.security_patch", "2024-06-05"),
        ("ro.build.id", "AP2A.240605.024"),
        ("ro.build.type", "user"),
        ("ro.build.tags", "release-keys"),
        (
            "ro.build.fingerprint",
            "google/panther/panther:14/AP2A.240605.024/11860263:user/release-keys",
        ),
        ("ro.product.cpu.abi", "arm64-v8a"),
        ("ro.product.cpu.abilist", "arm64-v8a,armeabi-v7a,armeabi"),
        ("ro.serialno", "VIRTUAL0001"),
        ("ro.sf.lcd_density", "420"),
        ("ro.debuggable", "0"),
        ("ro.secure", "1"),
        ("ro.kernel.qemu", "0"),
        ("ro.hardware", "panther"),
        ("ro.boot.hardware", "panther"),
        ("persist.sys.locale", "en-US"),
        ("persist.sys.timezone", "UTC"),
        ("sys.boot_completed", "1"),
        ("service.adb.root", "0"),
        ("gsm.operator.alpha", "Virtual"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();

    let mut settings = BTreeMap::new();
    settings.insert(
        "system".to_string(),
        [
            ("user_rotation", "0"),
            ("accelerometer_rotation", "1"),
            ("screen_brightness", "128"),
            ("font_scale", "1.0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    settings.insert(
        "global".to_string(),
        [
            ("device_name", "Virtual Pixel"),
            ("airplane_mode_on", "0"),
            ("adb_enabled", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    settings.insert(
        "secure".to_string(),
        [
            ("android_id", "a1b2c3d4e5f60718"),
            (
                "default_input_method",
                "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );

    let dirs: BTreeSet<String> = [
        "/",
        "/sdcard",
        "/sdcard/Download",
        "/sdcard/DCIM",
        "/sdcard/Pictures",
        "/sdcard/Movies",
        "/data",
        "/data/local",
        "/data/local/tmp",
        "/system",
        "/system/bin",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();

    let boot = now_ms().saturating_sub(600_000);
    let line = |dt: u64, pid, level, tag: &str, msg: &str| LogLine {
        time_ms: boot + dt,
        pid,
        tid: pid,
        level,
        tag: tag.to_string(),
        message: msg.to_string(),
    };
    let logcat = vec![
        line(0, 1, 'I', "init", "starting service 'zygote'..."),
        line(1200, 612, 'I', "ActivityManager", "System now ready"),
        line(
            2500,
            612,
            'I',
            "ActivityTaskManager",
            "START u0 {act=android.intent.action.MAIN cat=[android.intent.category.HOME] flg=0x10000100 cmp=com.android.launcher3/.uioverrides.QuickstepLauncher} from uid 0",
        ),
        line(3100, 1899, 'D', "Launcher", "onCreate"),
        line(
            5000,
            612,
            'W',
            "PackageManager",
            "Not granting permission android.permission.DUMP to package com.example.notes",
        ),
    ];
    let crash_log = vec![
        line(60_000, 4321, 'E', "AndroidRuntime", "FATAL EXCEPTION: main"),
        line(
            60_000,
            4321,
            'E',
            "AndroidRuntime",
            "Process: com.example.notes, PID: 4321",
        ),
        line(
            60_000,
            4321,
            'E',
            "AndroidRuntime",
            "java.lang.IllegalStateException: Note store not initialised",
        ),
        line(
            60_000,
            4321,
            'E',
            "AndroidRuntime",
            "\tat com.example.notes.NoteStore.get(NoteStore.java:42)",
        ),
        line(
            60_000,
            4321,
            'E',
            "AndroidRuntime",
            "\tat com.example.notes.MainActivity.onResume(MainActivity.java:87)",
        ),
        line(
            60_000,
            4321,
            'E',
            "AndroidRuntime",
            "\tat android.app.Activity.performResume(Activity.java:8422)",
        ),
    ];

    let mut state = PhoneState {
        props,
        packages,
        stack: vec![launcher_frame()],
        settings,
        display: Display {
            width: 1080,
            height: 2400,
            density: 420,
            override_size: None,
            override_density: None,
        },
        clipboard: String::new(),
        clip: Default::default(),
        logcat,
        crash_log,
        files: BTreeMap::new(),
        dirs,
        input_events: Vec::new(),
        browser_url: String::new(),
        app_locales: BTreeMap::new(),
        next_task: 10,
        next_uid: 10200,
        screen_on: true,
        profile: Default::default(),
        living: Default::default(),
        location: Default::default(),
    };
    refresh_launcher(&mut state);
    state
}
