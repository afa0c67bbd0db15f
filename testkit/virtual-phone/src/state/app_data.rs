//! An app's own state on the phone: the data `pm clear` wipes, its runtime permissions
//! (`pm grant` / `pm revoke`), and the intent each activity was started with (so a test
//! can read the extras the app received).
//!
//! Sources (AOSP, `aosp-mirror/platform_frameworks_base`; see `fixtures/SOURCES.md`):
//! - `pm clear`: `ActivityManagerService.clearApplicationUserData` force-stops the
//!   package, then `PackageManagerService.clearApplicationUserDataLIF` resets its runtime
//!   permissions (`resetRuntimePermissions`) and clears its credential- and
//!   device-protected data and its external app folders (`Android/data/PKG`).
//! - grants: `PermissionManagerServiceImpl.grantRuntimePermissionInternal` /
//!   `revokeRuntimePermissionInternal`, in their order: an unknown package is logged and
//!   ignored; `Unknown permission: P` (IllegalArgumentException); a permission that is
//!   neither runtime nor development is `Permission P requested by X is not a changeable
//!   permission type`; one the package does not request is `Package X has not requested
//!   permission P` (SecurityException). A revoked runtime permission kills the app
//!   (`mDefaultPermissionCallback.onPermissionRevoked` → `killUid`).
//! - which platform permissions are runtime ones: `core/res/AndroidManifest.xml`
//!   (`android:protectionLevel="dangerous"`; `normal` ones are granted at install).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{PhoneState, Screen};

/// An intent extra as `am start` typed it (`Intent.parseCommandArgs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Extra {
    /// `--es`.
    String(String),
    /// `--ei`.
    Int(i32),
    /// `--el`.
    Long(i64),
    /// `--ez`.
    Bool(bool),
    /// `--ef`.
    Float(f32),
}

impl Eq for Extra {}

impl std::hash::Hash for Extra {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            Extra::Float(f) => f.to_bits().hash(h),
            Extra::String(s) => s.hash(h),
            Extra::Int(i) => i.hash(h),
            Extra::Long(l) => l.hash(h),
            Extra::Bool(b) => b.hash(h),
        }
    }
}

/// The intent an activity was started with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StartedIntent {
    /// `-a`.
    #[serde(default)]
    pub action: Option<String>,
    /// `-d`.
    #[serde(default)]
    pub data: Option<String>,
    /// The extras, by key.
    #[serde(default)]
    pub extras: BTreeMap<String, Extra>,
}

/// How the platform protects a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// `dangerous`: granted and revoked at run time.
    Runtime,
    /// `normal` (or signature): granted at install, not changeable.
    Install,
}

/// Platform permissions the phone knows (`core/res/AndroidManifest.xml`).
const PLATFORM: &[(&str, Protection)] = &[
    ("android.permission.CAMERA", Protection::Runtime),
    ("android.permission.RECORD_AUDIO", Protection::Runtime),
    (
        "android.permission.ACCESS_FINE_LOCATION",
        Protection::Runtime,
    ),
    (
        "android.permission.ACCESS_COARSE_LOCATION",
        Protection::Runtime,
    ),
    ("android.permission.READ_CONTACTS", Protection::Runtime),
    ("android.permission.WRITE_CONTACTS", Protection::Runtime),
    ("android.permission.POST_NOTIFICATIONS", Protection::Runtime),
    ("android.permission.READ_SMS", Protection::Runtime),
    ("android.permission.SEND_SMS", Protection::Runtime),
    ("android.permission.RECEIVE_SMS", Protection::Runtime),
    ("android.permission.READ_CALENDAR", Protection::Runtime),
    ("android.permission.WRITE_CALENDAR", Protection::Runtime),
    ("android.permission.CALL_PHONE", Protection::Runtime),
    (
        "android.permission.READ_EXTERNAL_STORAGE",
        Protection::Runtime,
    ),
    (
        "android.permission.WRITE_EXTERNAL_STORAGE",
        Protection::Runtime,
    ),
    ("android.permission.READ_MEDIA_IMAGES", Protection::Runtime),
    ("android.permission.BLUETOOTH_CONNECT", Protection::Runtime),
    ("android.permission.INTERNET", Protection::Install),
    (
        "android.permission.ACCESS_NETWORK_STATE",
        Protection::Install,
    ),
    ("android.permission.VIBRATE", Protection::Install),
    ("android.permission.WAKE_LOCK", Protection::Install),
    (
        "android.permission.RECEIVE_BOOT_COMPLETED",
        Protection::Install,
    ),
];

/// How `name` is protected; `None` for a permission the platform does not define.
pub fn protection(name: &str) -> Option<Protection> {
    PLATFORM.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

impl PhoneState {
    /// `pm grant PKG PERM` (`grant` true) or `pm revoke`: `Ok` when done or ignored (an
    /// unknown package), else the exception the service throws.
    pub fn set_permission(&mut self, pkg: &str, perm: &str, grant: bool) -> Result<(), String> {
        let Some(p) = self.packages.get(pkg) else {
            return Ok(());
        };
        match protection(perm) {
            None => {
                return Err(format!(
                    "java.lang.IllegalArgumentException: Unknown permission: {perm}"
                ));
            }
            Some(Protection::Install) => {
                return Err(format!(
                    "java.lang.SecurityException: Permission {perm} requested by {pkg} is not a changeable permission type"
                ));
            }
            Some(Protection::Runtime) => {}
        }
        if !p.permissions.iter().any(|r| r == perm) {
            return Err(format!(
                "java.lang.SecurityException: Package {pkg} has not requested permission {perm}"
            ));
        }
        let p = self.packages.get_mut(pkg).expect("checked above");
        if grant {
            p.granted.insert(perm.to_string());
        } else if p.granted.remove(perm) {
            self.force_stop(pkg);
        }
        Ok(())
    }

    /// `pm clear PKG`: stops the app, puts its screens back as installed, resets its
    /// runtime permissions and removes its data folders. `false` for an unknown package.
    pub fn clear_app_data(&mut self, pkg: &str) -> bool {
        if !self.packages.contains_key(pkg) {
            return false;
        }
        self.force_stop(pkg);
        let p = self.packages.get_mut(pkg).expect("checked above");
        if let Some(fresh) = p.fresh_screens.take() {
            p.screens = fresh;
        }
        p.granted.clear();
        let roots = [
            format!("/data/data/{pkg}/"),
            format!("/data/user/0/{pkg}/"),
            format!("/data/user_de/0/{pkg}/"),
            format!("/sdcard/Android/data/{pkg}/"),
            format!("/storage/emulated/0/Android/data/{pkg}/"),
        ];
        self.files
            .retain(|path, _| !roots.iter().any(|r| path.starts_with(r.as_str())));
        self.dirs.retain(|path| {
            !roots
                .iter()
                .any(|r| format!("{path}/").starts_with(r.as_str()))
        });
        self.log(
            'I',
            "ActivityManager",
            &format!("Force stopping {pkg} appid=10123 user=0: clear data"),
        );
        true
    }

    /// `pkg`'s screen `name`, to change: the app's screens as installed are kept first
    /// (once), for `pm clear` to put back.
    pub fn app_screen_mut(&mut self, pkg: &str, name: &str) -> Option<&mut Screen> {
        let p = self.packages.get_mut(pkg)?;
        if p.fresh_screens.is_none() {
            p.fresh_screens = Some(p.screens.clone());
        }
        p.screens.get_mut(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_follow_the_service_checks_in_order() {
        let mut s = PhoneState::default();
        let pkg = "com.example.notes";
        assert_eq!(
            s.set_permission("com.nope", "android.permission.CAMERA", true),
            Ok(())
        );
        let e = s
            .set_permission(pkg, "android.permission.NOPE", true)
            .unwrap_err();
        assert!(
            e.contains("Unknown permission: android.permission.NOPE"),
            "{e}"
        );
        let e = s
            .set_permission(pkg, "android.permission.INTERNET", true)
            .unwrap_err();
        assert!(e.contains("is not a changeable permission type"), "{e}");
        let e = s
            .set_permission(pkg, "android.permission.READ_SMS", true)
            .unwrap_err();
        assert!(
            e.contains("has not requested permission android.permission.READ_SMS"),
            "{e}"
        );
        s.set_permission(pkg, "android.permission.CAMERA", true)
            .unwrap();
        assert!(
            s.packages[pkg]
                .granted
                .contains("android.permission.CAMERA")
        );
    }

    #[test]
    fn a_revoke_kills_the_app_and_clear_puts_the_app_back() {
        let mut s = PhoneState::default();
        let pkg = "com.example.notes";
        s.set_permission(pkg, "android.permission.CAMERA", true)
            .unwrap();
        s.start_activity(pkg, None).unwrap();
        s.set_permission(pkg, "android.permission.CAMERA", false)
            .unwrap();
        assert_ne!(s.foreground_package(), Some(pkg));
        let before = s.packages[pkg].screens.clone();
        s.app_screen_mut(pkg, "main").unwrap().elements.clear();
        s.set_permission(pkg, "android.permission.CAMERA", true)
            .unwrap();
        s.files.insert(
            format!("/data/data/{pkg}/shared_prefs/p.xml"),
            crate::state::FileEntry {
                data: b"x".to_vec(),
                mode: 0o100600,
                mtime: 0,
            },
        );
        assert!(s.clear_app_data(pkg));
        assert_eq!(s.packages[pkg].screens, before);
        assert!(s.packages[pkg].granted.is_empty());
        assert!(!s.files.keys().any(|k| k.contains(pkg)));
        assert!(!s.clear_app_data("com.nope"));
    }
}
