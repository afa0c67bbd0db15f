//! The app in front, from `dumpsys window` focus lines:
//! `mCurrentFocus=Window{hash u0 pkg/activity}` and
//! `mFocusedApp=ActivityRecord{hash u0 pkg/.Activity tN}`. The focused window wins; a
//! system window without a component (`StatusBar`, a keyboard) falls back to the
//! focused app.

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

/// Parses `dumpsys window` (or `dumpsys window displays`) output.
pub fn parse_focus(text: &str) -> Option<ForegroundApp> {
    let mut focused_app = None;
    for line in super::lines(text) {
        let t = line.trim();
        if t.starts_with("mCurrentFocus=") {
            if let Some(app) = component_in(t) {
                return Some(app);
            }
        } else if (t.starts_with("mFocusedApp=") || t.starts_with("mResumedActivity:"))
            && focused_app.is_none()
        {
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
}
