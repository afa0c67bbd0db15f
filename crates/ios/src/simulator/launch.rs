//! Launching an app into a known state on a simulator, as Maestro's iOS driver does
//! (mobile-dev-inc/maestro, `maestro-ios-driver/src/main/kotlin/util/LocalSimulatorUtils.kt`
//! and `maestro-ios/src/main/java/ios/simctl/SimctlIOSDevice.kt`):
//!
//! - **clear state**: simctl has no "clear data". Maestro's `clearAppState` terminates the
//!   app, copies its bundle from `simctl get_app_container UDID BUNDLE` to a temporary
//!   folder, `simctl uninstall`s it (which removes its data container) and `simctl
//!   install`s the copy. Done the same here, the copy in a private temporary folder.
//! - **permissions**: `simctl privacy UDID grant|revoke|reset SERVICE BUNDLE`, with the
//!   services `simctl privacy`'s help lists (all, calendar, contacts-limited, contacts,
//!   location, location-always, photos-add, photos, media-library, microphone, motion,
//!   reminders, siri; the help text is quoted in `testkit/fake-xcode/fixtures/
//!   SOURCES.md`). Maestro's names map onto them (`location` is `location-always`, as
//!   Maestro's `setLocationPermission` grants for `allow`); what simctl has no service
//!   for (camera, notifications, …) is an error, not skipped.
//! - **stop first**: `simctl terminate` (not running is fine).
//! - **arguments**: after the bundle id of `simctl launch`, as Maestro's
//!   `IOSLaunchArguments.toIOSLaunchArguments` writes them: a boolean as `key value`, any
//!   other value as `-key value` (a key already starting with `-` kept), so the app reads
//!   them from `NSUserDefaults`' argument domain or `ProcessInfo.arguments`.
//! - **deep link**: `simctl openurl` (Maestro's `openLink`); iOS picks the app for the
//!   URL, so when the app in front afterwards is another one the report says so.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use mobile_device::{
    AppId, ArgumentValue, BundleId, DeviceError, LaunchOptions, LaunchReport, PermissionChange,
    PermissionValue, Permissions, Platform, Result,
};

use super::SimulatorDevice;
use super::apps::bundle;
use crate::errors::{SimctlFailure, classify_simctl};
use crate::tools::argv;

/// The services `simctl privacy` takes.
const SERVICES: &[&str] = &[
    "calendar",
    "contacts-limited",
    "contacts",
    "location",
    "location-always",
    "photos-add",
    "photos",
    "media-library",
    "microphone",
    "motion",
    "reminders",
    "siri",
];

/// Maestro's iOS permission names that are not simctl services, and the service each is.
const MAESTRO_NAMES: &[(&str, &str)] = &[
    ("medialibrary", "media-library"),
    ("location", "location-always"),
];

impl SimulatorDevice {
    pub(super) async fn launch_app(
        &self,
        app: &AppId,
        options: &LaunchOptions,
    ) -> Result<LaunchReport> {
        let bid = bundle(app)?;
        let mut report = LaunchReport::default();
        let privacy = match &options.permissions {
            Some(p) => plan(p)?,
            None => Vec::new(),
        };
        if options.clear_state {
            self.clear_state(&bid).await?;
            report.cleared = true;
            report.stopped = true;
        }
        for (service, value) in &privacy {
            let action = match value {
                PermissionValue::Allow => "grant",
                PermissionValue::Deny => "revoke",
                PermissionValue::Unset => "reset",
            };
            self.simctl_ok(
                argv!["privacy", &self.udid, action, service, bid.as_str()],
                "privacy",
                Some(bid.as_str()),
            )
            .await?;
            report.permissions.push(PermissionChange {
                name: service.to_string(),
                value: *value,
            });
        }
        if options.stop_first && !report.stopped {
            self.stop(&bid).await?;
            report.stopped = true;
        }
        report.arguments = options.arguments.len();
        let arguments = launch_arguments(options);
        match &options.url {
            None => {
                self.start(&bid, options.locales.as_ref(), arguments)
                    .await?;
            }
            Some(url) => {
                if !arguments.is_empty() || options.locales.is_some() {
                    // The link cannot carry them: the app is started with them first.
                    self.start(&bid, options.locales.as_ref(), arguments)
                        .await?;
                }
                self.open_url(url).await?;
                report.url = Some(url.to_string());
                if self.tools.idb.is_some()
                    && let Ok(front) = self.foreground_app().await
                    && front.package_name != bid.as_str()
                {
                    report.notes.push(format!(
                        "iOS opened the URL in {} (simctl openurl lets the system choose the app), not in {bid}",
                        front.package_name
                    ));
                }
            }
        }
        Ok(report)
    }

    /// `simctl terminate UDID BUNDLE`; an app that is not running is fine. The one
    /// terminate: `terminate_app` and a launch's stop-first both call it.
    pub(super) async fn stop(&self, bid: &BundleId) -> Result<()> {
        let out = self
            .tools
            .simctl(argv!["terminate", &self.udid, bid.as_str()], "terminate")
            .await?;
        if out.success() || classify_simctl(out.code, &out.stderr) == SimctlFailure::NotRunning {
            return Ok(());
        }
        Err(crate::errors::simctl_error(
            &self.ctx("terminate", Some(bid.as_str())),
            &out,
        ))
    }

    /// Maestro's clear: terminate, copy the bundle out of `get_app_container`, uninstall
    /// (its data goes with it), install the copy.
    async fn clear_state(&self, bid: &BundleId) -> Result<()> {
        self.require_installed(
            bid,
            "It is not installed, so there is no data to clear; nothing was launched",
        )
        .await?;
        self.stop(bid).await?;
        let out = self
            .simctl_ok(
                argv!["get_app_container", &self.udid, bid.as_str()],
                "get_app_container",
                Some(bid.as_str()),
            )
            .await?;
        let path = PathBuf::from(out.stdout_text().trim());
        if !path.is_dir() {
            return Err(DeviceError::unsupported_with_hint(
                "clearing an app's data",
                Platform::Ios,
                format!(
                    "simctl get_app_container named {}, which is no app bundle folder here, so {bid} cannot be reinstalled clean",
                    path.display()
                ),
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix("mobile-ios-clear")
            .tempdir()
            .map_err(|e| DeviceError::backend(format!("could not make a temporary folder: {e}")))?;
        let name = path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| OsString::from("App.app"));
        let copy = dir.path().join(name);
        let (from, to) = (path.clone(), copy.clone());
        tokio::task::spawn_blocking(move || copy_tree(&from, &to))
            .await
            .map_err(|e| DeviceError::backend(e.to_string()))?
            .map_err(|e| {
                DeviceError::backend(format!(
                    "could not copy {} before reinstalling it: {e}",
                    path.display()
                ))
            })?;
        self.simctl_ok(
            argv!["uninstall", &self.udid, bid.as_str()],
            "uninstall",
            Some(bid.as_str()),
        )
        .await?;
        self.install_bundle(&copy).await
    }
}

/// The simctl privacy changes `perms` asks: `all` first, then each name.
fn plan(perms: &Permissions) -> Result<Vec<(&'static str, PermissionValue)>> {
    let mut out: Vec<(&'static str, PermissionValue)> = Vec::new();
    if let Some(all) = perms.all {
        out.push(("all", all));
    }
    for (name, value) in &perms.each {
        let name = name.as_str();
        // Maestro's names first: its `location` is "always" (simctl's `location` is
        // only while in use).
        let service = MAESTRO_NAMES
            .iter()
            .find(|(m, _)| *m == name)
            .map(|(_, s)| *s)
            .or_else(|| SERVICES.iter().copied().find(|s| *s == name));
        let Some(service) = service else {
            return Err(DeviceError::unsupported_with_hint(
                format!("setting the {name} permission"),
                Platform::Ios,
                format!(
                    "`simctl privacy` has no {name} service on a simulator; it sets only {} (and `all`). Nothing was launched",
                    SERVICES.join(", ")
                ),
            ));
        };
        out.retain(|(s, _)| *s != service);
        out.push((service, *value));
    }
    Ok(out)
}

/// The launch arguments after the bundle id, as Maestro writes them.
fn launch_arguments(options: &LaunchOptions) -> Vec<OsString> {
    let mut out = Vec::new();
    for (k, v) in options.arguments.iter() {
        let key = match v {
            ArgumentValue::Bool(_) => k.to_string(),
            _ if k.as_str().starts_with('-') => k.to_string(),
            _ => format!("-{k}"),
        };
        out.push(key.into());
        out.push(v.to_string().into());
    }
    out
}

/// Copies a folder tree; links are copied as links, never followed.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::{LaunchArguments, PermissionName};

    #[test]
    fn arguments_as_maestro_writes_them() {
        let a: LaunchArguments = serde_json::from_str(
            r#"{"isCartScreen": false, "cartValue": 3, "-cartColor": "Orange"}"#,
        )
        .unwrap();
        let o = LaunchOptions {
            arguments: a,
            ..Default::default()
        };
        let got: Vec<String> = launch_arguments(&o)
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect();
        // maestro-ios-driver/src/test/kotlin/IOSLaunchArgumentsTest.kt
        assert_eq!(
            got,
            [
                "isCartScreen",
                "false",
                "-cartValue",
                "3",
                "-cartColor",
                "Orange"
            ]
        );
    }

    #[test]
    fn services_and_what_simctl_cannot_set() {
        let p = Permissions {
            all: Some(PermissionValue::Deny),
            each: vec![
                (
                    PermissionName::parse("location").unwrap(),
                    PermissionValue::Allow,
                ),
                (
                    PermissionName::parse("photos").unwrap(),
                    PermissionValue::Unset,
                ),
            ],
        };
        assert_eq!(
            plan(&p).unwrap(),
            [
                ("all", PermissionValue::Deny),
                ("location-always", PermissionValue::Allow),
                ("photos", PermissionValue::Unset)
            ]
        );
        let p = Permissions {
            all: None,
            each: vec![(
                PermissionName::parse("camera").unwrap(),
                PermissionValue::Allow,
            )],
        };
        let e = plan(&p).unwrap_err().to_string();
        assert!(e.contains("no camera service"), "{e}");
    }
}
