//! [`SimulatorDevice`]: one simulator, driven through `simctl` and `idb`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::{
    App, AppId, BundleId, Button, CaptureFormat, CoordinateUnit, Device, DeviceError, DeviceUrl,
    Element, ForegroundApp, Locales, Location, LogEntry, LogQuery, NextStep, Orientation, Platform,
    Point, ProgressFn, Recording, RecordingOptions, Result, ScreenSize, Screenshot,
};
use tokio::sync::Mutex;

use crate::errors::{self, Context, SimctlFailure, classify_simctl};
use crate::parse::describe_all::{
    application_frame, application_label, is_placeholder_tree, to_elements,
};
use crate::parse::{InstalledApp, parse_describe_all, parse_listapps, parse_log_ndjson};
use crate::process::Output;
use crate::screen::{png_dimensions, scale_for_model, scale_from};
use crate::tools::{Tools, argv};

mod idb_input;
mod recording;
use recording::ActiveRecording;

/// The buttons idb can press (`idb ui button`, enum `HIDButtonType`).
pub const IOS_BUTTONS: &[&str] = &["HOME", "LOCK", "SIDE_BUTTON", "SIRI", "APPLE_PAY"];

/// How often, and how far apart, an empty tree right after a launch is asked for again.
/// How long `simctl recordVideo` may take to finish its file after SIGINT.
const RECORDING_FINISH: Duration = Duration::from_secs(30);
const TREE_RETRIES: u32 = 4;
const TREE_RETRY_DELAY: Duration = Duration::from_millis(400);
/// Log window read by `logs`.
const LOG_WINDOW: &str = "1m";
const DEFAULT_LOG_LIMIT: usize = 100;

/// A simulator as a [`Device`].
pub struct SimulatorDevice {
    udid: String,
    name: String,
    model: Option<String>,
    tools: Arc<Tools>,
    recording: Mutex<Option<ActiveRecording>>,
    /// Input events (taps, swipes, typing, buttons) go one at a time, so a double tap
    /// or typed text is never interleaved with another call's input.
    input: Mutex<()>,
}

fn bundle(app: &AppId) -> Result<BundleId> {
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

fn coord(v: i32, axis: &str) -> Result<String> {
    if v < 0 {
        return Err(DeviceError::invalid(format!(
            "{axis} must not be negative (got {v}); iOS coordinates are points from the top-left corner"
        )));
    }
    Ok(v.to_string())
}

fn seconds(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() { "0".into() } else { s.into() }
}

impl SimulatorDevice {
    pub(crate) fn new(
        udid: String,
        name: String,
        model: Option<String>,
        tools: Arc<Tools>,
    ) -> Self {
        SimulatorDevice {
            udid,
            name,
            model,
            tools,
            recording: Mutex::new(None),
            input: Mutex::new(()),
        }
    }

    /// The simulator's UDID.
    pub fn udid(&self) -> &str {
        &self.udid
    }

    /// The simulator's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn ctx<'a>(&'a self, action: &'a str, subject: Option<&'a str>) -> Context<'a> {
        Context {
            udid: &self.udid,
            action,
            subject,
        }
    }

    /// Runs a simctl call that must succeed.
    async fn simctl_ok(
        &self,
        args: Vec<OsString>,
        action: &str,
        subject: Option<&str>,
    ) -> Result<Output> {
        let out = self.tools.simctl(args, action).await?;
        if out.success() {
            Ok(out)
        } else {
            Err(errors::simctl_error(&self.ctx(action, subject), &out))
        }
    }

    /// Runs an idb call against this simulator that must succeed.
    async fn idb_ok(&self, mut args: Vec<OsString>, what: &str) -> Result<Output> {
        args.push("--udid".into());
        args.push(self.udid.clone().into());
        let out = self.tools.idb(args, what).await?;
        if out.success() {
            Ok(out)
        } else {
            Err(errors::idb_error(&self.udid, what, &out))
        }
    }

    async fn installed_apps(&self) -> Result<Vec<InstalledApp>> {
        let out = self
            .simctl_ok(argv!["listapps", &self.udid], "listapps", None)
            .await?;
        parse_listapps(&out.stdout).map_err(|e| DeviceError::backend(e.to_string()))
    }

    /// The raw describe-all JSON, asked again while idb returns the empty tree it gives
    /// right after a launch.
    async fn describe_all(&self) -> Result<(String, Vec<crate::parse::AxNode>)> {
        let mut attempt = 0;
        loop {
            let out = self
                .idb_ok(argv!["ui", "describe-all", "--json"], "listing elements")
                .await?;
            let raw = out.stdout_text();
            let roots =
                parse_describe_all(&raw).map_err(|e| DeviceError::backend(e.to_string()))?;
            attempt += 1;
            if !is_placeholder_tree(&roots) || attempt >= TREE_RETRIES {
                return Ok((raw, roots));
            }
            tokio::time::sleep(TREE_RETRY_DELAY).await;
        }
    }

    async fn capture_png(&self) -> Result<Vec<u8>> {
        let dir = tempfile::Builder::new()
            .prefix("mobile-ios-shot")
            .tempdir()
            .map_err(|e| {
                DeviceError::backend(format!("could not make a temporary directory: {e}"))
            })?;
        let file = dir.path().join("screenshot.png");
        // `-` for stdout is unreliable (Xcode 26 writes a file named `-`), so use a file.
        self.simctl_ok(
            argv![
                "io",
                &self.udid,
                "screenshot",
                "--type=png",
                file.as_os_str()
            ],
            "screenshot",
            None,
        )
        .await?;
        let bytes = tokio::fs::read(&file).await.map_err(|e| {
            DeviceError::backend(format!(
                "simctl io screenshot succeeded but {} could not be read: {e}",
                file.display()
            ))
        })?;
        if png_dimensions(&bytes).is_none() {
            return Err(DeviceError::backend(
                "simctl io screenshot wrote something that is not a PNG",
            ));
        }
        Ok(bytes)
    }

    async fn install_bundle(&self, app: &Path) -> Result<()> {
        let shown = app.display().to_string();
        self.simctl_ok(
            argv!["install", &self.udid, app.as_os_str()],
            "install",
            Some(&shown),
        )
        .await?;
        Ok(())
    }

    async fn send_signal(pid: Option<u32>, signal: i32) {
        if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill(2) with a pid we spawned and still own; no memory is touched.
            unsafe {
                libc::kill(pid, signal);
            }
        }
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

fn unzip(zip_path: &Path, into: &Path) -> std::result::Result<(), String> {
    let file = std::fs::File::open(zip_path).map_err(|e| e.to_string())?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    // `extract` refuses entries that would land outside `into` (zip-slip).
    archive.extract(into).map_err(|e| e.to_string())
}

#[async_trait]
impl Device for SimulatorDevice {
    fn id(&self) -> &str {
        &self.udid
    }

    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Points
    }

    async fn list_apps(&self) -> Result<Vec<App>> {
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

    async fn launch_app(&self, app: &AppId, locales: Option<&Locales>) -> Result<()> {
        let bid = bundle(app)?;
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
        let out = self.simctl_ok(args, "launch", Some(bid.as_str())).await?;
        tracing::debug!(
            udid = %self.udid,
            app = %bid,
            pid = ?crate::parse::parse_launch_pid(&out.stdout_text()),
            "launched"
        );
        Ok(())
    }

    async fn terminate_app(&self, app: &AppId) -> Result<()> {
        let bid = bundle(app)?;
        let out = self
            .tools
            .simctl(argv!["terminate", &self.udid, bid.as_str()], "terminate")
            .await?;
        if out.success() || classify_simctl(out.code, &out.stderr) == SimctlFailure::NotRunning {
            return Ok(());
        }
        Err(errors::simctl_error(
            &self.ctx("terminate", Some(bid.as_str())),
            &out,
        ))
    }

    async fn install_app(&self, path: &Path, _progress: Option<ProgressFn>) -> Result<()> {
        let meta = std::fs::metadata(path).map_err(|_| {
            DeviceError::not_found(
                format!("File {}", path.display()),
                "Give the path of a simulator .app directory or a .zip containing one",
            )
        })?;
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "app" if meta.is_dir() => self.install_bundle(path).await,
            "ipa" => Err(DeviceError::invalid(format!(
                "{} is an .ipa, a build for real devices; simulators cannot install it. Build the app for the simulator (an .app directory, e.g. from `xcodebuild -sdk iphonesimulator`) and install that, or a .zip containing it",
                path.display()
            ))),
            "zip" if meta.is_file() => {
                let dir = tempfile::Builder::new()
                    .prefix("mobile-ios-install")
                    .tempdir()
                    .map_err(|e| {
                        DeviceError::backend(format!("could not make a temporary directory: {e}"))
                    })?;
                let (zip_path, into) = (path.to_path_buf(), dir.path().to_path_buf());
                tokio::task::spawn_blocking(move || unzip(&zip_path, &into))
                    .await
                    .map_err(|e| DeviceError::backend(e.to_string()))?
                    .map_err(|e| {
                        DeviceError::invalid(format!(
                            "{} could not be unpacked: {e}",
                            path.display()
                        ))
                    })?;
                let app = find_app_dir(dir.path()).ok_or_else(|| {
                    DeviceError::invalid(format!(
                        "{} contains no .app directory; zip the simulator build's .app folder",
                        path.display()
                    ))
                })?;
                self.install_bundle(&app).await
            }
            _ => Err(DeviceError::invalid(format!(
                "{} is not an app this simulator can install: give a .app directory (a simulator build) or a .zip containing one",
                path.display()
            ))),
        }
    }

    async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        let bid = bundle(app)?;
        // simctl's answer for an absent app is not documented, so look first.
        if !self
            .installed_apps()
            .await?
            .iter()
            .any(|a| a.bundle_id == bid.as_str())
        {
            return Err(DeviceError::not_found(
                format!("App {bid} on simulator {}", self.udid),
                "It is not installed",
            )
            .then(NextStep::ListApps));
        }
        self.simctl_ok(
            argv!["uninstall", &self.udid, bid.as_str()],
            "uninstall",
            Some(bid.as_str()),
        )
        .await?;
        Ok(())
    }

    async fn foreground_app(&self) -> Result<ForegroundApp> {
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

    async fn screen_size(&self) -> Result<ScreenSize> {
        let png = self.capture_png().await?;
        let (pw, ph) = png_dimensions(&png).unwrap_or((0, 0));
        let points = if self.tools.idb.is_some() {
            self.describe_all()
                .await
                .ok()
                .and_then(|(_, roots)| application_frame(&roots))
        } else {
            None
        };
        // The capture may be the portrait framebuffer while the interface is turned,
        // so the scale pairs the short sides and the size is the tree's.
        let short = |a: f64, b: f64| a.min(b);
        let scale = points
            .and_then(|(w, h)| scale_from(pw.min(ph), short(w, h)))
            .unwrap_or_else(|| scale_for_model(self.model.as_deref().unwrap_or(&self.name)));
        let (width, height) = match points {
            Some((w, h)) => (w.round() as u32, h.round() as u32),
            None => (
                (pw as f64 / scale).round() as u32,
                (ph as f64 / scale).round() as u32,
            ),
        };
        Ok(ScreenSize {
            unit: CoordinateUnit::Points,
            width,
            height,
            scale,
            density: None,
        })
    }

    async fn screenshot(&self, _want: &mobile_device::ScreenshotOptions) -> Result<Screenshot> {
        Ok(Screenshot {
            format: CaptureFormat::Png,
            bytes: self.capture_png().await?,
        })
    }

    async fn list_elements(&self) -> Result<Vec<Element>> {
        let (_, roots) = self.describe_all().await?;
        Ok(to_elements(&roots))
    }

    async fn ui_dump(&self) -> Result<String> {
        Ok(self.describe_all().await?.0)
    }

    async fn tap(&self, at: Point) -> Result<()> {
        let args = argv!["ui", "tap", coord(at.x, "x")?, coord(at.y, "y")?];
        let _input = self.input.lock().await;
        self.idb_ok(args, "tapping").await?;
        Ok(())
    }

    async fn double_tap(&self, at: Point) -> Result<()> {
        self.idb_double_tap(at).await
    }

    async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        let _input = self.input.lock().await;
        self.idb_ok(
            argv![
                "ui",
                "tap",
                coord(at.x, "x")?,
                coord(at.y, "y")?,
                "--duration",
                seconds(duration)
            ],
            "long pressing",
        )
        .await?;
        Ok(())
    }

    async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        let _input = self.input.lock().await;
        self.idb_ok(
            argv![
                "ui",
                "swipe",
                coord(from.x, "x")?,
                coord(from.y, "y")?,
                coord(to.x, "x")?,
                coord(to.y, "y")?,
                "--duration",
                seconds(duration)
            ],
            "swiping",
        )
        .await?;
        Ok(())
    }

    /// `idb ui swipe X1 Y1 X2 Y2 --duration S`: idb has no press-and-hold gesture, so a
    /// drag is a swipe slow enough (the whole `duration`) for UIKit to follow the finger.
    async fn drag(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        self.swipe(from, to, duration).await
    }

    async fn type_text(&self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.idb_type_text(text).await
    }

    async fn press_button(&self, button: Button) -> Result<()> {
        let name = button.name();
        if !IOS_BUTTONS.contains(&name) {
            return Err(DeviceError::unsupported_with_hint(
                format!("the {name} button"),
                Platform::Ios,
                format!("an iOS simulator has {}", IOS_BUTTONS.join(", ")),
            ));
        }
        let _input = self.input.lock().await;
        self.idb_ok(argv!["ui", "button", name], "pressing a button")
            .await?;
        Ok(())
    }

    async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
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

    async fn orientation(&self) -> Result<Orientation> {
        if let Some(o) = self.tree_orientation().await? {
            return Ok(o);
        }
        let png = self.capture_png().await?;
        let (w, h) = png_dimensions(&png).unwrap_or((0, 0));
        // Every simulator profile is portrait-shaped, so a wide capture means rotated.
        Ok(if w > h {
            Orientation::Landscape
        } else {
            Orientation::Portrait
        })
    }

    async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        if self.tools.idb.is_none() {
            return Err(DeviceError::unsupported_with_hint(
                "changing the orientation",
                Platform::Ios,
                "without idb, rotate with Simulator.app's Device > Rotate menu (Cmd+Left/Right); or install idb with `brew install facebook/fb/idb-companion` and `pip install fb-idb`",
            ));
        }
        self.idb_set_orientation(orientation).await
    }

    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        let out = self
            .simctl_ok(
                argv![
                    "spawn", &self.udid, "log", "show", "--style", "ndjson", "--last", LOG_WINDOW
                ],
                "log show",
                None,
            )
            .await?;
        let limit = if query.limit == 0 {
            DEFAULT_LOG_LIMIT
        } else {
            query.limit
        };
        let mut entries: Vec<LogEntry> = parse_log_ndjson(&out.stdout_text())
            .into_iter()
            .filter(|e| query.filters.iter().all(|f| f.matches(e)))
            .collect();
        if entries.len() > limit {
            entries.drain(..entries.len() - limit);
        }
        Ok(entries)
    }

    async fn start_recording(&self, options: &RecordingOptions) -> Result<()> {
        self.start_recording_to_private(options).await
    }

    async fn stop_recording(&self, out: std::fs::File) -> Result<Recording> {
        self.stop_recording_into(out).await
    }

    async fn clipboard(&self) -> Result<String> {
        let out = self
            .simctl_ok(argv!["pbpaste", &self.udid], "pbpaste", None)
            .await?;
        Ok(out.stdout_text())
    }

    async fn set_clipboard(&self, text: &str) -> Result<()> {
        let out = self
            .tools
            .simctl_with_input(argv!["pbcopy", &self.udid], Some(text.as_bytes()), "pbcopy")
            .await?;
        if out.success() {
            Ok(())
        } else {
            Err(errors::simctl_error(&self.ctx("pbcopy", None), &out))
        }
    }

    async fn set_location(&self, location: Option<Location>) -> Result<()> {
        let args = match location {
            Some(l) => {
                if !(-90.0..=90.0).contains(&l.latitude) || !(-180.0..=180.0).contains(&l.longitude)
                {
                    return Err(DeviceError::invalid(
                        "latitude must be within -90..90 and longitude within -180..180",
                    ));
                }
                argv![
                    "location",
                    &self.udid,
                    "set",
                    format!("{},{}", l.latitude, l.longitude)
                ]
            }
            None => argv!["location", &self.udid, "clear"],
        };
        self.simctl_ok(args, "location", None).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_idb_takes_them() {
        assert_eq!(seconds(Duration::from_millis(500)), "0.5");
        assert_eq!(seconds(Duration::from_secs(1)), "1");
        assert_eq!(seconds(Duration::from_millis(1250)), "1.25");
        assert_eq!(seconds(Duration::ZERO), "0");
    }

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
