//! An app's permissions from `dumpsys package PKG`.
//!
//! AOSP prints them in the package's block (`services/core/java/com/android/server/pm/
//! Settings.java`, `dumpPackageLPr`): `requested permissions:` (every `<uses-permission>`,
//! one name a line), `install permissions:` (`NAME: granted=true`), and under each
//! `User N:` line `runtime permissions:` (`dumpRuntimePermissionsLPr`: `NAME:
//! granted=BOOL, flags=[ … ]`), the shape the Android documentation shows
//! (developer.android.com, "Request runtime permissions", inspecting the denial state).
//! Only the named package's block and the first user's runtime section are read: later
//! blocks (`Queries:`, other users) repeat names.

use super::lines;

/// What `dumpsys package PKG` says of one package's permissions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackagePermissions {
    /// Every permission the manifest asks for.
    pub requested: Vec<String>,
    /// The runtime ones, with whether each is granted (first user).
    pub runtime: Vec<(String, bool)>,
}

/// Reads `pkg`'s block; `None` when the output has none (the package is not installed:
/// `Unable to find package: PKG`).
pub fn parse_package_permissions(out: &str, pkg: &str) -> Option<PackagePermissions> {
    let header = format!("Package [{pkg}]");
    let mut found = false;
    let mut block_indent = 0;
    let mut section: Option<&str> = None;
    let mut section_indent = 0;
    let mut users_seen = 0;
    let mut perms = PackagePermissions::default();
    for line in lines(out) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim();
        if !found {
            if text.starts_with(&header) {
                found = true;
                block_indent = indent;
            }
            continue;
        }
        if text.is_empty() {
            continue;
        }
        if indent <= block_indent {
            break;
        }
        if text.starts_with("User ") && text.contains(':') {
            users_seen += 1;
            section = None;
            continue;
        }
        if let Some(name) = text.strip_suffix(':')
            && matches!(
                name,
                "requested permissions" | "install permissions" | "runtime permissions"
            )
        {
            section = Some(match name {
                "requested permissions" => "requested",
                "install permissions" => "install",
                _ => "runtime",
            });
            section_indent = indent;
            continue;
        }
        match section {
            Some(_) if indent <= section_indent => section = None,
            Some("requested") => perms.requested.push(text.to_string()),
            Some("runtime") if users_seen <= 1 => {
                if let Some((name, rest)) = text.split_once(": ") {
                    let granted = rest.split([',', ' ']).any(|w| w == "granted=true");
                    perms.runtime.push((name.to_string(), granted));
                }
            }
            _ => {}
        }
    }
    found.then_some(perms)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str =
        include_str!("../../../../fixtures/android/parser-dumpsys-package-permissions.txt");

    #[test]
    fn reads_the_named_package_and_the_first_user() {
        let p = parse_package_permissions(DUMP, "com.example.app").unwrap();
        assert_eq!(
            p.requested,
            [
                "android.permission.INTERNET",
                "android.permission.POST_NOTIFICATIONS",
                "android.permission.CAMERA"
            ]
        );
        assert_eq!(
            p.runtime,
            [
                ("android.permission.POST_NOTIFICATIONS".to_string(), false),
                ("android.permission.CAMERA".to_string(), true)
            ]
        );
        let o = parse_package_permissions(DUMP, "com.other").unwrap();
        assert_eq!(o.requested, ["android.permission.READ_SMS"]);
        assert!(o.runtime.is_empty());
    }

    #[test]
    fn a_missing_package_has_no_block() {
        assert_eq!(
            parse_package_permissions("Unable to find package: com.x\n", "com.x"),
            None
        );
        // A prefix of another package's name is not that package.
        assert_eq!(parse_package_permissions(DUMP, "com.example"), None);
    }
}
