//! Apps: listing, launching, stopping, installing and uninstalling them, the one in
//! front, and URLs (`simctl listapps`, `launch`, `terminate`, `install`, `uninstall`,
//! `openurl`; the app in front from idb's accessibility tree).

use std::path::{Path, PathBuf};

use mobile_device::{
    App, AppId, AppPackage, BundleId, DeviceError, DeviceUrl, ForegroundApp, Locales, NextStep,
    PackageContent, Platform, ProgressFn, Result,
};

use super::SimulatorDevice;
use crate::errors;
use crate::parse::describe_all::application_label;
use crate::parse::{InstalledApp, parse_listapps};
use crate::tools::argv;

pub(super) fn bundle(app: &AppId) -> Result<BundleId> {
    let bid = app
        .bundle_id()
        .map_err(|e| DeviceError::invalid(e.to_string()))?;
    // `[A-Za-z0-9-]` allows a leading dash, which a tool could read as an option.
    if bid.as_str().starts_with('-') {
        return Err(DeviceError::invalid(format!(
            "{bid} is not a usable bundle id: it must not start with '-'"
        )));
    }
    Ok(bid)
}

impl SimulatorDevice {
    pub(super) async fn installed_apps(&self) -> Result<Vec<InstalledApp>> {
        let out = self
            .simctl_ok(argv!["listapps", &self.udid], "listapps", None)
            .await?;
        parse_listapps(&out.stdout).map_err(|e| DeviceError::backend(e.to_string()))
    }

    pub(super) async fn install_bundle(&self, app: &Path) -> Result<()> {
        let shown = app.display().to_string();
        self.simctl_ok(
            argv!["install", &self.udid, app.as_os_str()],
            "install",
            Some(&shown),
        )
        .await?;
        Ok(())
    }

    /// An error naming the app and saying `why` unless `bid` is installed.
    pub(super) async fn require_installed(&self, bid: &BundleId, why: &str) -> Result<()> {
        if self
            .installed_apps()
            .await?
            .iter()
            .any(|a| a.bundle_id == bid.as_str())
        {
            return Ok(());
        }
        Err(
            DeviceError::not_found(format!("App {bid} on simulator {}", self.udid), why)
                .then(NextStep::ListApps),
        )
    }

    pub(super) async fn list_apps(&self) -> Result<Vec<App>> {
        let mut apps: Vec<App> = self
            .installed_apps()
            .await?
            .into_iter()
            .filter(|a| !a.hidden)
            .map(|a| App {
                app_name: a.name().to_string(),
                package_name: a.bundle_id,
            })
            .collect();
        apps.sort_by(|a, b| {
            a.app_name
                .to_lowercase()
                .cmp(&b.app_name.to_lowercase())
                .then_with(|| a.package_name.cmp(&b.package_name))
        });
        Ok(apps)
    }

    /// `simctl launch UDID BUNDLE ARGS…`: a running app is only brought to the front.
    /// With locales the running process is replaced (`--terminate-running-process`) and
    /// `-AppleLanguages (…)` / `-AppleLocale L` go first; `arguments` follow (a launch's
    /// options, `launch.rs`).
    pub(super) async fn start(
        &self,
        bid: &BundleId,
        locales: Option<&Locales>,
        arguments: Vec<std::ffi::OsString>,
    ) -> Result<()> {
        let mut args = argv!["launch", &self.udid, bid.as_str()];
        if let Some(locales) = locales {
            // A running app is only brought forward by `simctl launch` and keeps its
            // old arguments, so a new language needs a fresh process.
            args.insert(1, "--terminate-running-process".into());
            let tags: Vec<&str> = locales.tags().collect();
            // Launch arguments reach the app's NSUserDefaults (argument domain).
            args.push("-AppleLanguages".into());
            args.push(format!("({})", tags.join(", ")).into());
            if let Some(first) = tags.first() {
                args.push("-AppleLocale".into());
                args.push(first.replace('-', "_").into());
            }
        }
        args.extend(arguments);
        let out = self.simctl_ok(args, "launch", Some(bid.as_str())).await?;
        tracing::debug!(
            udid = %self.udid,
            app = %bid,
            pid = ?crate::parse::parse_launch_pid(&out.stdout_text()),
            "launched"
        );
        Ok(())
    }

    /// `simctl terminate` ([`SimulatorDevice::stop`], which a launch's stop-first shares).
    pub(super) async fn terminate_app(&self, app: &AppId) -> Result<()> {
        self.stop(&bundle(app)?).await
    }

    /// `simctl install UDID APP`: an `.app` folder (the server's private copy of it), or
    /// the `.app` in a `.zip` (unpacked from the open file into a private folder).
    pub(super) async fn install_app(
        &self,
        package: AppPackage,
        _progress: Option<ProgressFn>,
    ) -> Result<()> {
        let ext = package.extension();
        let name = package.name;
        match (ext.as_str(), package.content) {
            ("app", PackageContent::Folder(app)) => {
                if !app.is_dir() {
                    return Err(DeviceError::not_found(
                        format!("File {name}"),
                        "Give the path of a simulator .app directory or a .zip containing one",
                    ));
                }
                self.install_bundle(&app).await
            }
            ("ipa", _) => Err(DeviceError::invalid(format!(
                "{name} is an .ipa, a build for real devices; simulators cannot install it. Build the app for the simulator (an .app directory, e.g. from `xcodebuild -sdk iphonesimulator`) and install that, or a .zip containing it"
            ))),
            ("zip", PackageContent::File(zip)) => {
                let dir = tempfile::Builder::new()
                    .prefix("mobile-ios-install")
                    .tempdir()
                    .map_err(|e| {
                        DeviceError::backend(format!("could not make a temporary directory: {e}"))
                    })?;
                let into = dir.path().to_path_buf();
                tokio::task::spawn_blocking(move || unzip(zip, &into))
                    .await
                    .map_err(|e| DeviceError::backend(e.to_string()))?
                    .map_err(|e| {
                        DeviceError::invalid(format!("{name} could not be unpacked: {e}"))
                    })?;
                let app = find_app_dir(dir.path()).ok_or_else(|| {
                    DeviceError::invalid(format!(
                        "{name} contains no .app directory; zip the simulator build's .app folder"
                    ))
                })?;
                self.install_bundle(&app).await
            }
            _ => Err(DeviceError::invalid(format!(
                "{name} is not an app this simulator can install: give a .app directory (a simulator build) or a .zip containing one"
            ))),
        }
    }

    pub(super) async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        let bid = bundle(app)?;
        // simctl's answer for an absent app is not documented, so look first.
        self.require_installed(&bid, "It is not installed").await?;
        self.simctl_ok(
            argv!["uninstall", &self.udid, bid.as_str()],
            "uninstall",
            Some(bid.as_str()),
        )
        .await?;
        Ok(())
    }

    pub(super) async fn foreground_app(&self) -> Result<ForegroundApp> {
        if self.tools.idb.is_none() {
            return Err(errors::idb_missing("reading the foreground app"));
        }
        let (_, roots) = self.describe_all().await?;
        let label = application_label(&roots).map(str::to_string);
        // On the home screen the `Application` element is SpringBoard's, labelled
        // with a lone space (which the parser reads as no label).
        let has_app = roots
            .iter()
            .any(|n| n.kind.as_deref() == Some("Application"));
        if has_app && label.as_deref().is_none_or(|l| l == "SpringBoard") {
            return Ok(ForegroundApp {
                package_name: "com.apple.springboard".into(),
                activity: None,
            });
        }
        let apps = self.installed_apps().await?;
        let found = label.as_deref().and_then(|l| {
            apps.iter()
                .find(|a| a.display_name.as_deref() == Some(l))
                .or_else(|| apps.iter().find(|a| a.name() == l))
        });
        match found {
            Some(a) => Ok(ForegroundApp {
                package_name: a.bundle_id.clone(),
                activity: None,
            }),
            None => Err(DeviceError::unsupported_with_hint(
                "reading the foreground app",
                Platform::Ios,
                format!(
                    "the app in front is named {:?} in the accessibility tree, which matches no installed app",
                    label.unwrap_or_default()
                ),
            )
            .then(NextStep::ListElements)),
        }
    }

    pub(super) async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
        self.simctl_ok(
            argv!["openurl", &self.udid, url.as_str()],
            "openurl",
            Some(url.as_str()),
        )
        .await?;
        let scheme = url.as_str().split(':').next().unwrap_or("");
        if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
            return Ok(());
        }
        self.check_open_prompt(url.as_str()).await
    }
}

/// Finds the `.app` directory in an unpacked zip: at the top, under `Payload/`, or one
/// level down.
fn find_app_dir(root: &Path) -> Option<PathBuf> {
    let is_app = |p: &Path| p.is_dir() && p.extension().is_some_and(|e| e == "app");
    let list = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    let top = list(root);
    if let Some(a) = top.iter().find(|p| is_app(p)) {
        return Some(a.clone());
    }
    top.iter()
        .filter(|p| p.is_dir() && !p.ends_with("__MACOSX"))
        .flat_map(|d| list(d))
        .find(|p| is_app(p))
}

fn unzip(file: std::fs::File, into: &Path) -> std::result::Result<(), String> {
    let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    // `extract` refuses entries that would land outside `into` (zip-slip).
    archive.extract(into).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zip_layouts() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("Payload/My App.app")).unwrap();
        assert_eq!(
            find_app_dir(d.path()).unwrap(),
            d.path().join("Payload/My App.app")
        );
        let e = tempfile::tempdir().unwrap();
        assert_eq!(find_app_dir(e.path()), None);
    }
}
