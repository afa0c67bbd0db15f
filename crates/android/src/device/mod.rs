//! `AndroidDevice`: the `Device` trait on one phone or emulator.
//!
//! Every method builds its device command as argv arrays joined by the one quoter
//! ([`crate::quote`]), sends it in as few shell sessions as it can (each doc comment
//! gives the round-trip count), and parses the output with the pure parsers in
//! [`crate::parse`]. Input events to one device are serialized by an async mutex, so
//! two agents' taps never interleave inside a double tap or a typed string.
//!
//! The `Device` impl here only delegates: each method is an inherent method of the same
//! name in its area's file (`apps`, `screen`, `input`, `files`, `logs`,
//! `recording`, `location`, `launch` (a launch's options: clear, permissions, extras,
//! deep link), `unicode` (non-ASCII text and the clipboard, through the
//! on-device helper), `gestures` (drag), `fold`), whose doc comment
//! lists its device commands;
//! `errors` words adb failures.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::{
    App, AppId, AppPackage, Button, CoordinateUnit, Crash, Device, DeviceError, DevicePath,
    DeviceUrl, Element, ForegroundApp, LaunchOptions, LaunchReport, Location, LogEntry, LogQuery,
    Orientation, PackageName, Platform, Point, ProgressFn, Recording, RecordingOptions, Result,
    ScreenSize, Screenshot, ScreenshotOptions,
};
use tokio::sync::{Mutex, OnceCell};

use crate::adb::{Cap, Link, run_shell};
use crate::capture::{Route, RouteChooser};
use crate::parse::screencap::HEADER_V2;
use crate::quote::ShellLine;
use input::check_input_output;
use recording::ActiveRecording;
use screen::prefers_png;

mod apps;
mod errors;
mod files;
mod fold;
mod gestures;
mod input;
mod launch;
mod location;
mod logs;
mod recording;
mod screen;
mod settle;
mod unicode;

pub(crate) use errors::adb_error;

/// One Android device.
pub struct AndroidDevice {
    id: String,
    link: Link,
    input: Mutex<()>,
    capture_route: RouteChooser,
    /// Length of this device's raw `screencap` header (16 from Android 10, else 12).
    raw_header: AtomicUsize,
    displays: OnceCell<Vec<String>>,
    /// `ro.build.version.sdk`, read once when a method needs it.
    sdk: OnceCell<u32>,
    /// Whether `dumpsys SurfaceFlinger --frametimeline -all` lists composed frames here.
    frame_timeline: OnceCell<bool>,
    recording: Mutex<Option<ActiveRecording>>,
}

impl AndroidDevice {
    pub(crate) fn new(id: String, link: Link) -> Self {
        AndroidDevice {
            id,
            input: Mutex::new(()),
            raw_header: AtomicUsize::new(HEADER_V2),
            capture_route: RouteChooser::new(if prefers_png(&link) {
                Route::Png
            } else {
                Route::Raw
            }),
            link,
            displays: OnceCell::new(),
            sdk: OnceCell::new(),
            frame_timeline: OnceCell::new(),
            recording: Mutex::new(None),
        }
    }

    fn describe(&self, what: &str, e: adb_client::RustADBError) -> DeviceError {
        adb_error(&self.id, &self.link, what, e)
    }

    /// One shell session; the output as bytes, at most `cap` of it.
    async fn sh_bytes(&self, what: &str, cmd: ShellLine, cap: Cap) -> Result<Vec<u8>> {
        tracing::debug!(device = %self.id, %cmd, "shell");
        let id = self.id.clone();
        let what_owned = what.to_string();
        run_shell(&self.link, what, move |link, hangup| {
            link.shell(&cmd, cap, hangup)
                .map_err(|e| adb_error(&id, link, &what_owned, e))
        })
        .await
    }

    /// One shell session of an ordinary command ([`Cap::SHELL`]); the output as text.
    async fn sh(&self, what: &str, cmd: ShellLine) -> Result<String> {
        self.sh_cap(what, cmd, Cap::SHELL).await
    }

    /// One shell session; the output as text, at most `cap` of it.
    async fn sh_cap(&self, what: &str, cmd: ShellLine, cap: Cap) -> Result<String> {
        let out = self.sh_bytes(what, cmd, cap).await?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Several commands, one shell session each, outputs joined. Commands are never
    /// chained with `;` in one session: the test phone (like any strict auditor of
    /// what reaches `sh`) treats an unquoted operator as an injection, and one command
    /// per session keeps every line a single quoted argv.
    /// Each output is capped at `cap`.
    async fn sh_seq(&self, what: &str, cmds: &[ShellLine], cap: Cap) -> Result<String> {
        let mut all = String::new();
        for c in cmds {
            let out = self.sh_cap(what, c.clone(), cap).await?;
            all.push_str(&out);
            if !all.ends_with('\n') {
                all.push('\n');
            }
        }
        Ok(all)
    }

    /// Two independent reads, one shell session each, run at the same time (the latency of
    /// one round trip); outputs joined in order.
    async fn sh_pair(&self, what: &str, first: ShellLine, second: ShellLine) -> Result<String> {
        let (a, b) = tokio::try_join!(self.sh(what, first), self.sh(what, second))?;
        let mut all = a;
        if !all.ends_with('\n') {
            all.push('\n');
        }
        all.push_str(&b);
        Ok(all)
    }

    async fn input(&self, what: &str, cmd: ShellLine) -> Result<()> {
        self.input_all(what, &[cmd]).await
    }

    /// Input commands run back to back, with no other input to this device between them.
    async fn input_all(&self, what: &str, cmds: &[ShellLine]) -> Result<()> {
        let _turn = self.input.lock().await;
        for c in cmds {
            let out = self.sh(what, c.clone()).await?;
            check_input_output(what, &out)?;
        }
        Ok(())
    }

    /// The device's SDK level (1 round trip the first time: `getprop ro.build.version.sdk`;
    /// 0 when it prints no number).
    async fn sdk(&self) -> Result<u32> {
        self.sdk
            .get_or_try_init(|| async {
                let out = self
                    .sh(
                        "reading the Android version",
                        crate::quote::command(&["getprop", "ro.build.version.sdk"])?,
                    )
                    .await?;
                Ok::<_, DeviceError>(out.trim().parse().unwrap_or(0))
            })
            .await
            .copied()
    }

    fn package(app: &AppId) -> Result<PackageName> {
        app.package_name().map_err(|e| DeviceError::invalid(e.0))
    }

    fn point_args(p: Point) -> Result<[String; 2]> {
        if p.x < 0 || p.y < 0 {
            return Err(DeviceError::invalid(format!(
                "coordinates must not be negative (got {},{})",
                p.x, p.y
            )));
        }
        Ok([p.x.to_string(), p.y.to_string()])
    }
}

/// Keeps the device type nameable from outside (`Arc<AndroidDevice>` as `Arc<dyn Device>`).
pub(crate) fn into_dyn(d: AndroidDevice) -> Arc<dyn Device> {
    Arc::new(d)
}

#[async_trait]
impl Device for AndroidDevice {
    fn id(&self) -> &str {
        &self.id
    }

    fn platform(&self) -> Platform {
        Platform::Android
    }

    /// The adb server and the serial on it: two processes using the same adb server see
    /// the same phone under the same key.
    fn lease_key(&self) -> Option<String> {
        Some(format!("adb-{}-{}", self.link.addr, self.link.serial))
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }

    async fn list_apps(&self) -> Result<Vec<App>> {
        AndroidDevice::list_apps(self).await
    }

    async fn launch_app(&self, app: &AppId, options: &LaunchOptions) -> Result<LaunchReport> {
        AndroidDevice::launch_app(self, app, options).await
    }

    async fn terminate_app(&self, app: &AppId) -> Result<()> {
        AndroidDevice::terminate_app(self, app).await
    }

    async fn install_app(&self, package: AppPackage, progress: Option<ProgressFn>) -> Result<()> {
        AndroidDevice::install_app(self, package, progress).await
    }

    async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        AndroidDevice::uninstall_app(self, app).await
    }

    async fn foreground_app(&self) -> Result<ForegroundApp> {
        AndroidDevice::foreground_app(self).await
    }

    async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
        AndroidDevice::open_url(self, url).await
    }

    async fn screen_size(&self) -> Result<ScreenSize> {
        AndroidDevice::screen_size(self).await
    }

    async fn screenshot(&self, want: &ScreenshotOptions) -> Result<Screenshot> {
        AndroidDevice::screenshot(self, want).await
    }

    async fn list_elements(&self) -> Result<Vec<Element>> {
        AndroidDevice::list_elements(self).await
    }

    async fn ui_dump(&self) -> Result<String> {
        AndroidDevice::ui_dump(self).await
    }

    async fn orientation(&self) -> Result<Orientation> {
        AndroidDevice::orientation(self).await
    }

    async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        AndroidDevice::set_orientation(self, orientation).await
    }

    async fn tap(&self, at: Point) -> Result<()> {
        AndroidDevice::tap(self, at).await
    }

    async fn double_tap(&self, at: Point) -> Result<()> {
        AndroidDevice::double_tap(self, at).await
    }

    async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        AndroidDevice::long_press(self, at, duration).await
    }

    async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        AndroidDevice::swipe(self, from, to, duration).await
    }

    async fn type_text(&self, text: &str) -> Result<()> {
        AndroidDevice::type_text(self, text).await
    }

    async fn press_button(&self, button: Button) -> Result<()> {
        AndroidDevice::press_button(self, button).await
    }

    async fn push_file(&self, local: std::fs::File, remote: &DevicePath) -> Result<u64> {
        AndroidDevice::push_file(self, local, remote).await
    }

    async fn pull_file(&self, remote: &DevicePath, out: std::fs::File) -> Result<u64> {
        AndroidDevice::pull_file(self, remote, out).await
    }

    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        AndroidDevice::logs(self, query).await
    }

    async fn crashes(&self) -> Result<Vec<Crash>> {
        AndroidDevice::crashes(self).await
    }

    async fn crash(&self, id: &str) -> Result<String> {
        AndroidDevice::crash(self, id).await
    }

    async fn start_recording(&self, options: &RecordingOptions) -> Result<()> {
        AndroidDevice::start_recording(self, options).await
    }

    async fn stop_recording(&self, out: std::fs::File) -> Result<Recording> {
        AndroidDevice::stop_recording(self, out).await
    }

    async fn clipboard(&self) -> Result<String> {
        AndroidDevice::clipboard(self).await
    }

    async fn set_clipboard(&self, text: &str) -> Result<()> {
        AndroidDevice::set_clipboard(self, text).await
    }

    async fn set_location(&self, location: Option<Location>) -> Result<()> {
        AndroidDevice::set_location(self, location).await
    }

    async fn drag(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        AndroidDevice::drag(self, from, to, duration).await
    }

    async fn fold(&self, posture: mobile_device::Posture) -> Result<mobile_device::FoldState> {
        AndroidDevice::fold(self, posture).await
    }

    async fn screen_fingerprint(&self) -> Result<mobile_device::ScreenFingerprint> {
        AndroidDevice::screen_fingerprint(self).await
    }
}
