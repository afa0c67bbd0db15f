//! Apps: listing, launching, stopping, installing and uninstalling them, the one in
//! front, and opening URLs.

use std::path::Path;

use mobile_device::{
    App, AppId, AppPackage, DeviceError, DeviceUrl, ForegroundApp, NextStep, PackageContent,
    Platform, ProgressFn, Result,
};

use super::AndroidDevice;

/// Reads of the focus after a launch before it is called a failure.
const FRONT_TRIES: u32 = 8;
/// The wait between them (an activity takes a few hundred milliseconds to get focus).
const FRONT_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// What to do about the keyguard.
pub(super) const KEYGUARD_HINT: &str = "The device is locked: wake and unlock it (press POWER, then swipe up and enter the PIN on the device), or turn the lock screen off in Settings > Security for testing";
use super::errors::adb_error;
use crate::adb::{Cap, output, run_transfer};
use crate::parse;
use crate::quote::command;

impl AndroidDevice {
    /// 1 round trip: `cmd package query-activities -a MAIN -c LAUNCHER`.
    pub(super) async fn list_apps(&self) -> Result<Vec<App>> {
        let out = self
            .sh_cap(
                "listing apps",
                command(&[
                    "cmd",
                    "package",
                    "query-activities",
                    "-a",
                    "android.intent.action.MAIN",
                    "-c",
                    "android.intent.category.LAUNCHER",
                ])?,
                Cap::LISTING,
            )
            .await?;
        if output::CMD_PACKAGE_QUERY.failed(&out) {
            return Err(DeviceError::unsupported_with_hint(
                "listing launchable apps",
                Platform::Android,
                "`cmd package query-activities` needs Android 7 or later",
            ));
        }
        Ok(parse::apps::parse_launcher_apps(&out))
    }

    /// A plain launch is 3 round trips: `cmd package resolve-activity --brief PKG`, `am
    /// start -n PKG/ACT`, then `dumpsys window displays` to check the app came to the
    /// front (again every [`FRONT_POLL`] while it has not, up to [`FRONT_TRIES`] reads).
    /// One more, `cmd package query-activities --brief -a MAIN -c LAUNCHER PKG`, for an
    /// app with several launcher activities (resolve-activity then names the system
    /// chooser, `ResolverActivity`). A package whose launcher activity does not resolve
    /// falls back to `monkey -p PKG -c android.intent.category.LAUNCHER --pct-syskeys 0
    /// 1` (no system-key events, which monkey refuses on devices without hardware keys),
    /// which cannot carry launch arguments. The options around it: `launch.rs`.
    pub(super) async fn start_launcher(&self, pkg: &str, extras: &[String]) -> Result<()> {
        let component = self.launcher_component(pkg).await?;
        match &component {
            Some(component) => {
                let mut argv = vec!["am", "start", "-n", component.as_str()];
                argv.extend(extras.iter().map(String::as_str));
                let out = self.sh("launching the app", command(&argv)?).await?;
                if let Err(said) = output::AM_START.check(&out) {
                    return Err(DeviceError::backend(format!(
                        "the device could not start {component}: {said}"
                    )));
                }
            }
            None if !extras.is_empty() => {
                return Err(DeviceError::NotFound {
                    what: format!("A launcher activity of \"{pkg}\" to pass launch arguments to"),
                    hint: Some(
                        "No launcher activity resolves for it (it is not installed, or has none), so no intent can carry the arguments".into(),
                    ),
                    next: Some(NextStep::ListApps),
                });
            }
            None => {
                let out = self
                    .sh(
                        "launching the app",
                        command(&[
                            "monkey",
                            "-p",
                            pkg,
                            "-c",
                            "android.intent.category.LAUNCHER",
                            "--pct-syskeys",
                            "0",
                            "1",
                        ])?,
                    )
                    .await?;
                if output::MONKEY_LAUNCH.failed(&out) {
                    // monkey's own output echoes its arguments; it says no more than
                    // that no activity was found.
                    return Err(DeviceError::NotFound {
                        what: format!("A launchable app \"{pkg}\""),
                        hint: Some("It is not installed, or it has no launcher activity".into()),
                        next: Some(NextStep::ListApps),
                    });
                }
            }
        }
        Ok(())
    }

    /// The launcher activity to start for `pkg`: what `resolve-activity` names when it is
    /// in the package; the package's first launcher activity when it names something else
    /// (the chooser); `None` when nothing resolves.
    async fn launcher_component(&self, pkg: &str) -> Result<Option<String>> {
        let out = self
            .sh(
                "launching the app",
                command(&["cmd", "package", "resolve-activity", "--brief", pkg])?,
            )
            .await?;
        let resolved = parse::apps::parse_resolve_activity(&out);
        if let Some(c) = &resolved
            && c.split_once('/').is_some_and(|(p, _)| p == pkg)
        {
            return Ok(resolved);
        }
        if resolved.is_none() {
            return Ok(None);
        }
        let out = self
            .sh_cap(
                "launching the app",
                command(&[
                    "cmd",
                    "package",
                    "query-activities",
                    "--brief",
                    "-a",
                    "android.intent.action.MAIN",
                    "-c",
                    "android.intent.category.LAUNCHER",
                    pkg,
                ])?,
                Cap::LISTING,
            )
            .await?;
        Ok(parse::apps::parse_components(&out)
            .into_iter()
            .find(|c| c.split_once('/').is_some_and(|(p, _)| p == pkg)))
    }

    /// Whether `pkg` is in front after a launch: `Ok` when it is, or when the device prints
    /// no focus to tell (nothing to check against); an error naming what is in front
    /// instead (the keyguard, the chooser, another app).
    pub(super) async fn check_in_front(&self, pkg: &str) -> Result<()> {
        let mut last = None;
        for attempt in 0..FRONT_TRIES {
            if attempt > 0 {
                tokio::time::sleep(FRONT_POLL).await;
            }
            let out = self
                .sh_cap(
                    "checking the app is in front",
                    command(&["dumpsys", "window", "displays"])?,
                    Cap::LISTING,
                )
                .await?;
            if parse::window::keyguard_in_front(&out) {
                return Err(DeviceError::backend_with_hint(
                    format!("{pkg} was started, but the keyguard (lock screen) is in front of it"),
                    KEYGUARD_HINT,
                ));
            }
            match parse::window::parse_focus(&out) {
                Some(app) if app.package_name == pkg => return Ok(()),
                Some(app) => last = Some(app),
                None => {
                    tracing::debug!(%pkg, "no focus lines after launch; cannot check");
                    return Ok(());
                }
            }
        }
        let other = last.map(|a| match a.activity {
            Some(act) => format!("{}/{act}", a.package_name),
            None => a.package_name,
        });
        Err(DeviceError::backend_with_hint(
            format!(
                "{pkg} was started, but {} is in front",
                other.unwrap_or_else(|| "another window".into())
            ),
            "The app may still be starting, or a dialog or chooser is in front: take a screenshot to see",
        ))
    }

    /// 2 round trips: `pm path PKG` (an app that is not installed is an error: `am
    /// force-stop` says nothing about a package it does not know), then `am force-stop PKG`.
    pub(super) async fn terminate_app(&self, app: &AppId) -> Result<()> {
        let pkg = Self::package(app)?;
        let installed = self
            .sh("stopping the app", command(&["pm", "path", pkg.as_str()])?)
            .await?;
        if !installed.lines().any(|l| l.starts_with("package:")) {
            return Err(DeviceError::NotFound {
                what: format!("An installed app \"{pkg}\""),
                hint: Some("Nothing was stopped".into()),
                next: Some(NextStep::ListApps),
            });
        }
        self.stop_package(pkg.as_str()).await
    }

    /// 1 streamed session, `exec:cmd package install -S SIZE` with the APK as input
    /// (see `adb::transport::Link::install`); progress as the bytes go through a server.
    pub(super) async fn install_app(
        &self,
        package: AppPackage,
        progress: Option<ProgressFn>,
    ) -> Result<()> {
        let name = package.name;
        let apk = match package.content {
            PackageContent::File(f)
                if Path::new(&name)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("apk")) =>
            {
                f
            }
            _ => {
                return Err(DeviceError::invalid(format!(
                    "{name} is not an .apk file; Android installs only .apk packages (split APKs and .aab bundles are not supported)"
                )));
            }
        };
        let link = self.link.clone();
        let id = self.id.clone();
        // Dropped with this future (the client cancelled, or the deadline passed): the
        // upload running on the blocking thread stops at its next read.
        run_transfer("installing the app", move |cancel| {
            link.install(apk, progress, cancel).map_err(|e| match e {
                adb_client::RustADBError::ADBRequestFailed(msg) => {
                    DeviceError::backend(format!("the device refused the package: {}", msg.trim()))
                }
                e => adb_error(&id, &link, "installing the app", e),
            })
        })
        .await
    }

    /// 1 round trip: `pm uninstall PKG`.
    pub(super) async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        let pkg = Self::package(app)?;
        let out = self
            .sh(
                "uninstalling the app",
                command(&["pm", "uninstall", pkg.as_str()])?,
            )
            .await?;
        let Err(said) = output::PM_UNINSTALL.check(&out) else {
            return Ok(());
        };
        if output::PM_UNINSTALL_NOT_THERE.failed(&out) {
            return Err(DeviceError::not_found(
                format!("An uninstallable app \"{pkg}\""),
                "It is not installed, or it is a system app, which cannot be uninstalled",
            )
            .then(NextStep::ListApps));
        }
        Err(DeviceError::backend(format!(
            "the device did not uninstall {pkg}: {said}"
        )))
    }

    /// 1 round trip: `dumpsys window displays` (focus lines); a second one,
    /// `dumpsys window windows`, only on old builds that print no focus there.
    pub(super) async fn foreground_app(&self) -> Result<ForegroundApp> {
        let out = self
            .sh_cap(
                "reading the foreground app",
                command(&["dumpsys", "window", "displays"])?,
                Cap::LISTING,
            )
            .await?;
        if parse::window::keyguard_in_front(&out) {
            return Err(DeviceError::backend_with_hint(
                "the keyguard (lock screen) is in front: no app is",
                KEYGUARD_HINT,
            ));
        }
        if let Some(app) = parse::window::parse_focus(&out) {
            return Ok(app);
        }
        let out = self
            .sh_cap(
                "reading the foreground app",
                command(&["dumpsys", "window", "windows"])?,
                Cap::LISTING,
            )
            .await?;
        parse::window::parse_focus(&out).ok_or_else(|| {
            DeviceError::not_found(
                "A focused app",
                "The screen may be off or locked; press POWER or HOME and try again",
            )
        })
    }

    /// 1 round trip: `am start -a android.intent.action.VIEW -d URL` (the VIEW intent a
    /// launch's deep link also uses, `launch.rs`).
    pub(super) async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
        self.view_intent(url, None, &[]).await
    }
}
