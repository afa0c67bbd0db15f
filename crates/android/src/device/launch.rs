//! Launching an app into a known state: its data cleared (`pm clear`), its runtime
//! permissions set (`pm grant` / `pm revoke`, the app's own list read from `dumpsys
//! package`), stopped first (`am force-stop`), started with intent extras (`am start -n
//! COMPONENT --es/--ei/--el/--ez/--ef KEY VALUE`) or at a deep link in the app (`am start
//! -a android.intent.action.VIEW -d URL PKG`), in the order Maestro's `launchApp` runs
//! them (`Orchestra.launchAppCommand`: clear, permissions, then stop and launch).
//!
//! Sources: `pm clear` prints `Success` or `Failed` (AOSP `PackageManagerShellCommand.
//! runClear`); `pm grant`/`revoke` print nothing, and a refusal is the service's exception
//! after `Exception occurred while executing 'grant':` (`PermissionManagerServiceImpl.
//! grantRuntimePermissionInternal`: `Unknown permission: P`, `Package X has not requested
//! permission P`, `Permission P requested by X is not a changeable permission type`);
//! extras and a trailing package are read by `Intent.parseCommandArgs` (a last argument
//! with neither `:` nor `/` is the package the intent is limited to).

use mobile_device::{
    AppId, ArgumentValue, DeviceError, DeviceUrl, LaunchOptions, LaunchReport, NextStep,
    PermissionChange, PermissionValue, Permissions, Platform, Result,
};

use super::AndroidDevice;
use crate::adb::{Cap, output};
use crate::parse;
use crate::parse::permissions::PackagePermissions;
use crate::quote::command;

/// Maestro's permission groups on Android and the permissions each stands for
/// (`AndroidDriver.translatePermissionName` in mobile-dev-inc/maestro).
const GROUPS: &[(&str, &[&str])] = &[
    (
        "location",
        &[
            "android.permission.ACCESS_FINE_LOCATION",
            "android.permission.ACCESS_COARSE_LOCATION",
        ],
    ),
    ("camera", &["android.permission.CAMERA"]),
    (
        "contacts",
        &[
            "android.permission.READ_CONTACTS",
            "android.permission.WRITE_CONTACTS",
        ],
    ),
    (
        "phone",
        &[
            "android.permission.CALL_PHONE",
            "android.permission.ANSWER_PHONE_CALLS",
        ],
    ),
    ("microphone", &["android.permission.RECORD_AUDIO"]),
    (
        "bluetooth",
        &[
            "android.permission.BLUETOOTH_CONNECT",
            "android.permission.BLUETOOTH_SCAN",
        ],
    ),
    (
        "storage",
        &[
            "android.permission.WRITE_EXTERNAL_STORAGE",
            "android.permission.READ_EXTERNAL_STORAGE",
        ],
    ),
    ("notifications", &["android.permission.POST_NOTIFICATIONS"]),
    (
        "medialibrary",
        &[
            "android.permission.WRITE_EXTERNAL_STORAGE",
            "android.permission.READ_EXTERNAL_STORAGE",
            "android.permission.READ_MEDIA_AUDIO",
            "android.permission.READ_MEDIA_IMAGES",
            "android.permission.READ_MEDIA_VIDEO",
        ],
    ),
    (
        "calendar",
        &[
            "android.permission.WRITE_CALENDAR",
            "android.permission.READ_CALENDAR",
        ],
    ),
    (
        "sms",
        &[
            "android.permission.READ_SMS",
            "android.permission.RECEIVE_SMS",
            "android.permission.SEND_SMS",
        ],
    ),
];

/// `pm clear PKG`: `Success` (AOSP `runClear`).
const PM_CLEAR: output::Rule = output::Rule::SucceedsWith("Success");
/// `pm grant|revoke PKG PERM`: nothing on success.
const PM_GRANT: output::Rule = output::Rule::Shell(&["Exception", "Error"]);

impl AndroidDevice {
    /// The launch with its options. Round trips: the plain launch's (see
    /// `apps::launch_app`), plus `pm clear PKG` (1) when clearing, `dumpsys package PKG`
    /// and one `pm grant|revoke` per permission when setting permissions, `am
    /// force-stop PKG` (1) when stopping first; a deep link replaces the launcher
    /// activity's `am start -n` with `am start -a VIEW -d URL … PKG`.
    pub(super) async fn launch_app(
        &self,
        app: &AppId,
        options: &LaunchOptions,
    ) -> Result<LaunchReport> {
        let pkg = Self::package(app)?;
        let pkg = pkg.as_str();
        let mut report = LaunchReport::default();
        if options.clear_state {
            let out = self
                .sh("clearing the app's data", command(&["pm", "clear", pkg])?)
                .await?;
            if PM_CLEAR.failed(&out) {
                return Err(DeviceError::NotFound {
                    what: format!("An installed app \"{pkg}\" whose data can be cleared"),
                    hint: Some(format!(
                        "`pm clear` answered {:?}; nothing was launched",
                        output::first_lines(&out)
                    )),
                    next: Some(NextStep::ListApps),
                });
            }
            // Clearing stops the app (ActivityManagerService.clearApplicationUserData
            // force-stops the package first).
            report.cleared = true;
            report.stopped = true;
        }
        if let Some(perms) = &options.permissions {
            report.permissions = self.set_permissions(pkg, perms).await?;
        }
        if options.stop_first && !report.stopped {
            self.stop_package(pkg).await?;
            report.stopped = true;
        }
        self.set_app_locales(pkg, options).await?;
        let extras = extras_argv(options);
        report.arguments = options.arguments.len();
        {
            let _turn = self.input.lock().await;
            match &options.url {
                Some(url) => {
                    self.view_intent(url, Some(pkg), &extras).await?;
                    report.url = Some(url.to_string());
                }
                None => self.start_launcher(pkg, &extras).await?,
            }
        }
        self.check_in_front(pkg).await?;
        Ok(report)
    }

    /// 1 round trip: `am force-stop PKG` (it says nothing of a package it does not know).
    pub(super) async fn stop_package(&self, pkg: &str) -> Result<()> {
        let out = self
            .sh("stopping the app", command(&["am", "force-stop", pkg])?)
            .await?;
        output::AM_FORCE_STOP.check(&out).map_err(|said| {
            DeviceError::backend(format!("the device could not stop {pkg}: {said}"))
        })
    }

    /// The one `VIEW` intent of a URL, for `open_url` (any app) and a launch's deep link
    /// (limited to `pkg`): `am start -a android.intent.action.VIEW -d URL [EXTRAS] [PKG]`.
    pub(super) async fn view_intent(
        &self,
        url: &DeviceUrl,
        pkg: Option<&str>,
        extras: &[String],
    ) -> Result<()> {
        let mut argv: Vec<&str> = vec![
            "am",
            "start",
            "-a",
            "android.intent.action.VIEW",
            "-d",
            url.as_str(),
        ];
        argv.extend(extras.iter().map(String::as_str));
        argv.extend(pkg);
        let out = self.sh("opening the URL", command(&argv)?).await?;
        if let Err(said) = output::AM_START.check(&out) {
            let hint = match pkg {
                Some(p) => format!(
                    "{p} has no activity that opens this URL (its manifest declares no VIEW intent filter for it)"
                ),
                None => "No installed app handles this URL".to_string(),
            };
            return Err(DeviceError::backend_with_hint(
                format!("the device could not open the URL: {said}"),
                hint,
            ));
        }
        Ok(())
    }

    /// Reads the app's runtime permissions, then grants or revokes each one `perms`
    /// names: `all` is every runtime permission the app has, a Maestro group is those of
    /// its permissions the app has (none is an error), a full name goes to `pm` as given
    /// and the device's refusal is the error.
    async fn set_permissions(
        &self,
        pkg: &str,
        perms: &Permissions,
    ) -> Result<Vec<PermissionChange>> {
        let out = self
            .sh_cap(
                "reading the app's permissions",
                command(&["dumpsys", "package", pkg])?,
                Cap::LISTING,
            )
            .await?;
        let Some(known) = parse::permissions::parse_package_permissions(&out, pkg) else {
            return Err(DeviceError::NotFound {
                what: format!("An installed app \"{pkg}\""),
                hint: Some("Its permissions cannot be set; nothing was launched".into()),
                next: Some(NextStep::ListApps),
            });
        };
        let wanted = plan(&known, pkg, perms)?;
        for change in &wanted {
            let verb = match change.value {
                PermissionValue::Allow => "grant",
                PermissionValue::Deny | PermissionValue::Unset => "revoke",
            };
            let out = self
                .sh(
                    "setting the app's permissions",
                    command(&["pm", verb, pkg, &change.name])?,
                )
                .await?;
            if PM_GRANT.failed(&out) {
                return Err(DeviceError::invalid(format!(
                    "the device refused to {verb} {} for {pkg}: {}; nothing was launched",
                    change.name,
                    refusal(&out)
                )));
            }
        }
        Ok(wanted)
    }

    /// One more round trip with a locale: `cmd locale set-app-locales PKG --locales L`.
    async fn set_app_locales(&self, pkg: &str, options: &LaunchOptions) -> Result<()> {
        let Some(l) = &options.locales else {
            return Ok(());
        };
        let out = self
            .sh(
                "setting the app's locale",
                command(&[
                    "cmd",
                    "locale",
                    "set-app-locales",
                    pkg,
                    "--locales",
                    l.as_str(),
                ])?,
            )
            .await?;
        output::CMD_LOCALE.check(&out).map_err(|said| {
            DeviceError::unsupported_with_hint(
                "launching an app in a given locale",
                Platform::Android,
                format!(
                    "the device refused `cmd locale set-app-locales` ({said}); per-app locales need Android 13 or later (on older releases change the whole device's language in Settings)"
                ),
            )
        })
    }
}

/// The permission changes `perms` asks of an app with `known` permissions: `all` over
/// every runtime permission, then each named one over that, one change per permission.
fn plan(
    known: &PackagePermissions,
    pkg: &str,
    perms: &Permissions,
) -> Result<Vec<PermissionChange>> {
    let mut out: Vec<PermissionChange> = Vec::new();
    let mut set = |name: &str, value: PermissionValue| match out.iter_mut().find(|c| c.name == name)
    {
        Some(c) => c.value = value,
        None => out.push(PermissionChange {
            name: name.to_string(),
            value,
        }),
    };
    if let Some(all) = perms.all {
        for (name, _) in &known.runtime {
            set(name, all);
        }
    }
    for (name, value) in &perms.each {
        let name = name.as_str();
        if name.contains('.') {
            set(name, *value);
            continue;
        }
        let Some((_, members)) = GROUPS.iter().find(|(g, _)| *g == name) else {
            return Err(DeviceError::invalid(format!(
                "{name} is not a permission group Android knows: use one of {} or a full name such as android.permission.CAMERA; nothing was launched",
                GROUPS
                    .iter()
                    .map(|(g, _)| *g)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let has: Vec<&str> = members
            .iter()
            .copied()
            .filter(|m| known.runtime.iter().any(|(r, _)| r == m))
            .collect();
        if has.is_empty() {
            return Err(DeviceError::invalid(format!(
                "{pkg} does not request the {name} permission ({}), so it cannot be set; its runtime permissions are: {}. Nothing was launched",
                members.join(", "),
                listed(&known.runtime)
            )));
        }
        for m in has {
            set(m, *value);
        }
    }
    Ok(out)
}

fn listed(runtime: &[(String, bool)]) -> String {
    if runtime.is_empty() {
        "none".into()
    } else {
        runtime
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The exception's message in a `pm` refusal (`java.lang.SecurityException: Package X has
/// not requested permission P`), else its first lines.
fn refusal(out: &str) -> String {
    out.lines()
        .find_map(|l| {
            let l = l.trim();
            l.split_once("Exception: ").map(|(_, msg)| msg.to_string())
        })
        .unwrap_or_else(|| output::first_lines(out))
}

/// The launch arguments as `am start` extras (`Intent.parseCommandArgs`): `--es` text,
/// `--ei` a whole number that fits an int (else `--el`), `--ez` a boolean, `--ef` a
/// decimal.
pub(super) fn extras_argv(options: &LaunchOptions) -> Vec<String> {
    let mut argv = Vec::new();
    for (k, v) in options.arguments.iter() {
        let flag = match v {
            ArgumentValue::Text(_) => "--es",
            ArgumentValue::Int(i) if i32::try_from(*i).is_ok() => "--ei",
            ArgumentValue::Int(_) => "--el",
            ArgumentValue::Bool(_) => "--ez",
            ArgumentValue::Float(_) => "--ef",
        };
        argv.push(flag.to_string());
        argv.push(k.to_string());
        argv.push(v.to_string());
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::{LaunchArguments, PermissionName};

    fn known() -> PackagePermissions {
        PackagePermissions {
            requested: vec![],
            runtime: vec![
                ("android.permission.CAMERA".into(), false),
                ("android.permission.ACCESS_FINE_LOCATION".into(), true),
                ("android.permission.POST_NOTIFICATIONS".into(), false),
            ],
        }
    }

    #[test]
    fn all_then_each_one_change_per_permission() {
        let p = Permissions {
            all: Some(PermissionValue::Deny),
            each: vec![(
                PermissionName::parse("location").unwrap(),
                PermissionValue::Allow,
            )],
        };
        let got = plan(&known(), "com.x", &p).unwrap();
        let got: Vec<_> = got.iter().map(|c| (c.name.as_str(), c.value)).collect();
        assert_eq!(
            got,
            [
                ("android.permission.CAMERA", PermissionValue::Deny),
                (
                    "android.permission.ACCESS_FINE_LOCATION",
                    PermissionValue::Allow
                ),
                (
                    "android.permission.POST_NOTIFICATIONS",
                    PermissionValue::Deny
                ),
            ]
        );
    }

    #[test]
    fn a_group_the_app_does_not_request_is_refused() {
        let p = Permissions {
            all: None,
            each: vec![(
                PermissionName::parse("sms").unwrap(),
                PermissionValue::Allow,
            )],
        };
        let e = plan(&known(), "com.x", &p).unwrap_err().to_string();
        assert!(
            e.contains("com.x does not request the sms permission"),
            "{e}"
        );
        let p = Permissions {
            all: None,
            each: vec![(
                PermissionName::parse("wifi").unwrap(),
                PermissionValue::Allow,
            )],
        };
        let e = plan(&known(), "com.x", &p).unwrap_err().to_string();
        assert!(e.contains("not a permission group"), "{e}");
    }

    #[test]
    fn extras_are_typed() {
        let args: LaunchArguments = serde_json::from_str(
            r#"{"user": "ada lovelace", "n": 3, "big": 5000000000, "on": false, "r": 0.25}"#,
        )
        .unwrap();
        let o = LaunchOptions {
            arguments: args,
            ..Default::default()
        };
        assert_eq!(
            extras_argv(&o).join(" "),
            "--es user ada lovelace --ei n 3 --el big 5000000000 --ez on false --ef r 0.25"
        );
    }

    #[test]
    fn the_refusal_is_the_exception_message() {
        let out = "\nException occurred while executing 'grant':\njava.lang.SecurityException: Package com.x has not requested permission android.permission.READ_SMS\n\tat com.android.server...\n";
        assert_eq!(
            refusal(out),
            "Package com.x has not requested permission android.permission.READ_SMS"
        );
    }
}
