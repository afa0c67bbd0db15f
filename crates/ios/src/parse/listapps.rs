//! `xcrun simctl listapps <udid>`: the `-description` of an NSDictionary, i.e. an
//! OpenStep (NeXTSTEP) ASCII plist. There is no JSON form and no `plutil` on Linux, so
//! this uses the `plist` crate's ASCII reader (`Value::from_reader_ascii`, plist ≥ 1.7),
//! called explicitly because format auto-detection fails on inputs under 8 bytes.
//!
//! Quirks handled (see the reference notes): unquoted numbers (`CFBundleVersion = 1;`)
//! arrive as integers, an unquoted value closing an array keeps its newline, and any
//! field may be missing.

use std::io::Cursor;

use plist::Value;

use super::ParseError;

/// Whether an app ships with the runtime or was installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppKind {
    /// `ApplicationType = System`: ships with the runtime.
    System,
    /// `ApplicationType = User`: installed.
    User,
    /// Any other or no `ApplicationType`.
    Unknown,
}

/// One app from `listapps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledApp {
    /// `CFBundleIdentifier`.
    pub bundle_id: String,
    /// `CFBundleDisplayName`, where set.
    pub display_name: Option<String>,
    /// `CFBundleName`, where set.
    pub bundle_name: Option<String>,
    /// System or installed (`ApplicationType`).
    pub kind: AppKind,
    /// `CFBundleShortVersionString`, else `CFBundleVersion`.
    pub version: Option<String>,
    /// `Path`: where the `.app` bundle is.
    pub path: Option<String>,
    /// `SBAppTags` contains `hidden`.
    pub hidden: bool,
}

impl InstalledApp {
    /// The home-screen name: `CFBundleDisplayName`, else `CFBundleName`, else the bundle id.
    pub fn name(&self) -> &str {
        self.display_name
            .as_deref()
            .or(self.bundle_name.as_deref())
            .unwrap_or(&self.bundle_id)
    }
}

/// A scalar as text, trimmed: strings, and the integers and reals the ASCII reader makes
/// of unquoted numbers.
fn text(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Boolean(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// Parses `simctl listapps` output. Apps are sorted by bundle id.
pub fn parse_listapps(bytes: &[u8]) -> Result<Vec<InstalledApp>, ParseError> {
    const WHAT: &str = "simctl listapps";
    let root =
        Value::from_reader_ascii(Cursor::new(bytes)).map_err(|e| ParseError::new(WHAT, e))?;
    let dict = root
        .as_dictionary()
        .ok_or_else(|| ParseError::new(WHAT, "the top level is not a dictionary"))?;
    let mut apps = Vec::with_capacity(dict.len());
    for (key, entry) in dict {
        let Some(info) = entry.as_dictionary() else {
            continue;
        };
        let field = |k: &str| info.get(k).and_then(text);
        let kind = match field("ApplicationType").as_deref() {
            Some("System") => AppKind::System,
            Some("User") => AppKind::User,
            _ => AppKind::Unknown,
        };
        let hidden = info
            .get("SBAppTags")
            .and_then(Value::as_array)
            .is_some_and(|tags| tags.iter().filter_map(text).any(|t| t == "hidden"));
        apps.push(InstalledApp {
            bundle_id: field("CFBundleIdentifier").unwrap_or_else(|| key.trim().to_string()),
            display_name: field("CFBundleDisplayName"),
            bundle_name: field("CFBundleName"),
            kind,
            version: field("CFBundleShortVersionString").or_else(|| field("CFBundleVersion")),
            path: field("Path"),
            hidden,
        });
    }
    apps.sort_by(|a, b| a.bundle_id.cmp(&b.bundle_id));
    Ok(apps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let p = format!("{}/../../fixtures/ios/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn ios18_capture_with_braces_in_names_and_bare_numbers() {
        let apps = parse_listapps(&fixture("listapps-ios18.txt")).unwrap();
        let ids: Vec<_> = apps.iter().map(|a| a.bundle_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "com.apple.Bridge",
                "com.apple.webapp",
                "com.mobilenext.sample1"
            ]
        );
        assert_eq!(apps[0].name(), "Watch");
        assert_eq!(apps[0].kind, AppKind::System);
        assert!(
            apps[0]
                .path
                .as_deref()
                .unwrap()
                .contains("iOS 18.4.simruntime")
        );
        let sample = &apps[2];
        assert_eq!(sample.kind, AppKind::User);
        assert_eq!(sample.name(), "Sample1");
        assert_eq!(sample.bundle_name.as_deref(), Some("Sample{1}App"));
        assert_eq!(sample.version.as_deref(), Some("1"));
    }

    #[test]
    fn appledev_capture_tab_indented_verbatim() {
        let apps = parse_listapps(&fixture("listapps-ios18-appledev.txt")).unwrap();
        assert_eq!(apps.len(), 2);
        let bridge = &apps[0];
        assert_eq!(bridge.bundle_id, "com.apple.Bridge");
        assert_eq!(bridge.display_name.as_deref(), Some("Watch"));
        assert_eq!(bridge.bundle_name.as_deref(), Some("Watch"));
        assert_eq!(bridge.kind, AppKind::System);
        assert_eq!(bridge.version.as_deref(), Some("1.0"));
        assert!(!bridge.hidden, "watch-companion is not hidden");
        assert_eq!(
            bridge.path.as_deref(),
            Some(
                "/Library/Developer/CoreSimulator/Volumes/iOS_22E238/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 18.4.simruntime/Contents/Resources/RuntimeRoot/Applications/Bridge.app"
            ),
            "Path is a plain path with a space, not percent-encoded like Bundle"
        );
        let web = &apps[1];
        assert_eq!(web.bundle_id, "com.apple.webapp");
        assert_eq!(web.name(), "Web");
        assert_eq!(web.version.as_deref(), Some("8621.1.15.10.7"));
        assert!(!web.hidden, "an empty SBAppTags array");
    }

    #[test]
    fn quotes_cjk_hidden_and_fallback_names() {
        let apps = parse_listapps(&fixture("listapps-quotes-cjk.txt")).unwrap();
        let by = |id: &str| apps.iter().find(|a| a.bundle_id == id).unwrap();
        assert_eq!(by("com.alibaba.qwen").name(), "Qwen");
        assert_eq!(by("com.alibaba.qwen").version.as_deref(), Some("42"));
        let notes = by("com.example.notes");
        assert_eq!(notes.name(), "My \"Quick\" Notes {beta} 示例");
        assert!(notes.hidden, "a trailing newline after `hidden` is trimmed");
        assert_eq!(notes.version.as_deref(), Some("1.2"));
        assert_eq!(by("com.example.nodisplay").name(), "Name Only");
        let bare = by("com.example.bare");
        assert_eq!(bare.name(), "com.example.bare");
        assert_eq!(bare.kind, AppKind::Unknown);
    }

    #[test]
    fn tiny_and_broken_inputs() {
        assert!(
            parse_listapps(&fixture("listapps-empty.txt"))
                .unwrap()
                .is_empty()
        );
        assert!(parse_listapps(b"{}").unwrap().is_empty());
        assert!(
            parse_listapps(b"{\n    \"a.b\" =     {\n        CFBundleName = A;\n    };\n}\n  \n")
                .is_ok()
        );
        assert!(
            parse_listapps(
                b"An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):"
            )
            .is_err()
        );
    }
}
