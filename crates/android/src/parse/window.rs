//! The app in front, from `dumpsys window` focus lines:
//! `mCurrentFocus=Window{hash u0 pkg/activity}` and
//! `mFocusedApp=ActivityRecord{hash u0 pkg/.Activity tN}`. The focused window wins; a
//! system window without a component (`StatusBar`, a keyboard, an ANR dialog) falls back
//! to the focused app. Android 7–9 wrap the focused app as
//! `AppWindowToken{… ActivityRecord{…}}`; the resumed-activity lines of `dumpsys
//! activity activities` (`mResumedActivity:` up to Android 9, `ResumedActivity:` and
//! `topResumedActivity=` later) are accepted as the same fallback.

use mobile_device::ForegroundApp;

fn component_in(line: &str) -> Option<ForegroundApp> {
    for token in line.split(|c: char| c.is_whitespace() || c == '{' || c == '}') {
        let Some((pkg, act)) = token.split_once('/') else {
            continue;
        };
        let pkg_ok = !pkg.is_empty()
            && pkg.contains('.')
            && pkg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        if !pkg_ok || act.is_empty() {
            continue;
        }
        let activity = if let Some(short) = act.strip_prefix('.') {
            format!("{pkg}.{short}")
        } else {
            act.to_string()
        };
        return Some(ForegroundApp {
            package_name: pkg.to_string(),
            activity: Some(activity),
        });
    }
    None
}

/// Lines naming the app in front when no focused window has a component.
const FALLBACK_PREFIXES: &[&str] = &[
    "mFocusedApp=",
    "mResumedActivity:",
    "ResumedActivity:",
    "topResumedActivity=",
];

/// Windows whose focus means the keyguard (or SystemUI's shade over it) is in front:
/// SystemUI's `NotificationShade` window hosts the keyguard from Android 11
/// (NotificationShadeWindowControllerImpl), the `StatusBar` window before it
/// (StatusBarWindowController); `Keyguard` on some vendor builds. Their `mFocusedApp`
/// still names the app behind, which is not what the user sees.
const KEYGUARD_WINDOWS: &[&str] = &["NotificationShade", "StatusBar", "Keyguard"];

/// Whether the focused window (`mCurrentFocus=Window{hash u0 TITLE}`) is the keyguard's.
pub fn keyguard_in_front(text: &str) -> bool {
    super::lines(text).any(|line| {
        let Some(rest) = line.trim().strip_prefix("mCurrentFocus=Window{") else {
            return false;
        };
        let title = rest
            .trim_end_matches('}')
            .split_whitespace()
            .nth(2)
            .unwrap_or("");
        KEYGUARD_WINDOWS.contains(&title)
    })
}

/// Parses `dumpsys window` (or `dumpsys window displays`) output.
pub fn parse_focus(text: &str) -> Option<ForegroundApp> {
    let mut focused_app = None;
    for line in super::lines(text) {
        let t = line.trim();
        if t.starts_with("mCurrentFocus=") {
            if let Some(app) = component_in(t) {
                return Some(app);
            }
        } else if FALLBACK_PREFIXES.iter().any(|p| t.starts_with(p)) && focused_app.is_none() {
            focused_app = component_in(t);
        }
    }
    focused_app
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focused_window() {
        let app = parse_focus(include_str!(
            "../../../../fixtures/android/parser-dumpsys-window-focus.txt"
        ))
        .unwrap();
        assert_eq!(app.package_name, "com.android.settings");
        assert_eq!(
            app.activity.as_deref(),
            Some("com.android.settings.Settings")
        );
    }

    #[test]
    fn system_window_falls_back_to_focused_app() {
        let app = parse_focus(include_str!(
            "../../../../fixtures/android/parser-dumpsys-window-statusbar.txt"
        ))
        .unwrap();
        assert_eq!(app.package_name, "longbin.helloworld");
        assert_eq!(
            app.activity.as_deref(),
            Some("longbin.helloworld.HelloWorldActivity")
        );
        assert_eq!(parse_focus("mCurrentFocus=null\n"), None);
    }

    #[test]
    fn real_android12_tv_focus() {
        let app = parse_focus(include_str!(
            "../../../../fixtures/android/parser-dumpsys-window-real-android12-tv.txt"
        ))
        .unwrap();
        assert_eq!(app.package_name, "org.galexander.sshd");
        assert_eq!(
            app.activity.as_deref(),
            Some("org.galexander.sshd.SimpleSSHDTV")
        );
    }

    #[test]
    fn real_android7_to_9_app_window_token() {
        let text = include_str!("../../../../fixtures/android/parser-dumpsys-window-real-mms.txt");
        let app = parse_focus(text).unwrap();
        assert_eq!(app.package_name, "com.android.mms");
        assert_eq!(
            app.activity.as_deref(),
            Some("com.android.mms.ui.ConversationList")
        );
        // Without the focused window the AppWindowToken line alone names the same app.
        let token_only: String = text.lines().skip(1).collect();
        let app = parse_focus(&token_only).unwrap();
        assert_eq!(
            app.activity.as_deref(),
            Some("com.android.mms.ui.ConversationList")
        );
    }

    #[test]
    fn real_resumed_activity_from_dumpsys_activity() {
        let app = parse_focus(include_str!(
            "../../../../fixtures/android/parser-dumpsys-activity-real-taskrecord.txt"
        ))
        .unwrap();
        assert_eq!(app.package_name, "com.google.android.apps.nexuslauncher");
        assert_eq!(
            app.activity.as_deref(),
            Some("com.google.android.apps.nexuslauncher.NexusLauncherActivity")
        );
    }

    #[test]
    fn later_resumed_activity_forms_and_crlf() {
        // Line shapes of `dumpsys activity activities` on Android 10+ (format, not a capture).
        let app =
            parse_focus("  ResumedActivity: ActivityRecord{1 u0 com.a/.Main t2}\r\n").unwrap();
        assert_eq!(app.activity.as_deref(), Some("com.a.Main"));
        let app =
            parse_focus("    topResumedActivity=ActivityRecord{1 u0 com.b/com.b.X t9}\n").unwrap();
        assert_eq!(app.package_name, "com.b");
        // An ANR dialog has no component: the focused app below it answers.
        let anr = "  mCurrentFocus=Window{8 u0 Application Not Responding: com.c}\r\n  mFocusedApp=ActivityRecord{2 u0 com.c/.Home t7}\r\n";
        assert_eq!(parse_focus(anr).unwrap().package_name, "com.c");
        assert!(!keyguard_in_front(anr));
    }

    #[test]
    fn keyguard_windows() {
        let k12 = "  mCurrentFocus=Window{2c4e1b8 u0 NotificationShade}\n  mFocusedApp=ActivityRecord{1 u0 com.a/.Main t2}\n";
        assert!(keyguard_in_front(k12));
        assert!(keyguard_in_front(
            "mCurrentFocus=Window{9 u0 StatusBar}\r\n"
        ));
        assert!(!keyguard_in_front(
            "mCurrentFocus=Window{9 u0 com.a/com.a.Main}\n"
        ));
        assert!(!keyguard_in_front("mCurrentFocus=null\n"));
    }
}
