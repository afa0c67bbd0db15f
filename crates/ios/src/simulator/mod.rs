//! [`SimulatorDevice`]: the `Device` trait on one simulator, driven through `simctl` and
//! `idb` child processes (argv arrays, never a host shell).
//!
//! The `Device` impl here only delegates, as Android's does: each method is an inherent
//! method of the same name in its area's file (`apps`, `screen`, `input`, `logs`,
//! `recording`, `pasteboard`, `location`), whose doc comment names its commands;
//! `idb_input` holds the input calls where idb releases differ. This file holds the
//! device's state and the two ways a call runs (`simctl_ok`, `idb_ok`).
//!
//! Not for: discovery (`crate::backend`) or parsing tool output (`crate::parse`).

use std::ffi::OsString;
use std::fs::File;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::{
    App, AppId, AppPackage, Button, CoordinateUnit, Device, DeviceUrl, Element, ForegroundApp,
    LaunchOptions, LaunchReport, Location, LogEntry, LogQuery, Orientation, Platform, Point,
    ProgressFn, Recording, RecordingOptions, Result, ScreenSize, Screenshot, ScreenshotOptions,
};
use tokio::sync::Mutex;

use crate::errors::{self, Context};
use crate::process::Output;
use crate::tools::Tools;

mod apps;
mod idb_input;
mod input;
mod launch;
mod location;
mod logs;
mod pasteboard;
mod recording;
mod screen;

use input::coord;
use recording::ActiveRecording;

/// How long `simctl recordVideo` may take to finish its file after SIGINT.
const RECORDING_FINISH: Duration = Duration::from_secs(30);

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

    async fn send_signal(pid: Option<u32>, signal: i32) {
        if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill(2) with a pid we spawned and still own; no memory is touched.
            unsafe {
                libc::kill(pid, signal);
            }
        }
    }
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
        SimulatorDevice::list_apps(self).await
    }

    async fn launch_app(&self, app: &AppId, options: &LaunchOptions) -> Result<LaunchReport> {
        SimulatorDevice::launch_app(self, app, options).await
    }

    async fn terminate_app(&self, app: &AppId) -> Result<()> {
        SimulatorDevice::terminate_app(self, app).await
    }

    async fn install_app(&self, package: AppPackage, progress: Option<ProgressFn>) -> Result<()> {
        SimulatorDevice::install_app(self, package, progress).await
    }

    async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        SimulatorDevice::uninstall_app(self, app).await
    }

    async fn foreground_app(&self) -> Result<ForegroundApp> {
        SimulatorDevice::foreground_app(self).await
    }

    async fn screen_size(&self) -> Result<ScreenSize> {
        SimulatorDevice::screen_size(self).await
    }

    async fn screenshot(&self, want: &ScreenshotOptions) -> Result<Screenshot> {
        SimulatorDevice::screenshot(self, want).await
    }

    async fn list_elements(&self) -> Result<Vec<Element>> {
        SimulatorDevice::list_elements(self).await
    }

    async fn ui_dump(&self) -> Result<String> {
        SimulatorDevice::ui_dump(self).await
    }

    async fn tap(&self, at: Point) -> Result<()> {
        SimulatorDevice::tap(self, at).await
    }

    async fn double_tap(&self, at: Point) -> Result<()> {
        SimulatorDevice::double_tap(self, at).await
    }

    async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        SimulatorDevice::long_press(self, at, duration).await
    }

    async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        SimulatorDevice::swipe(self, from, to, duration).await
    }

    async fn drag(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        SimulatorDevice::drag(self, from, to, duration).await
    }

    async fn type_text(&self, text: &str) -> Result<()> {
        SimulatorDevice::type_text(self, text).await
    }

    async fn press_button(&self, button: Button) -> Result<()> {
        SimulatorDevice::press_button(self, button).await
    }

    async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
        SimulatorDevice::open_url(self, url).await
    }

    async fn orientation(&self) -> Result<Orientation> {
        SimulatorDevice::orientation(self).await
    }

    async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        SimulatorDevice::set_orientation(self, orientation).await
    }

    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        SimulatorDevice::logs(self, query).await
    }

    async fn start_recording(&self, options: &RecordingOptions) -> Result<()> {
        SimulatorDevice::start_recording_to_private(self, options).await
    }

    async fn stop_recording(&self, out: File) -> Result<Recording> {
        SimulatorDevice::stop_recording_into(self, out).await
    }

    async fn clipboard(&self) -> Result<String> {
        SimulatorDevice::clipboard(self).await
    }

    async fn set_clipboard(&self, text: &str) -> Result<()> {
        SimulatorDevice::set_clipboard(self, text).await
    }

    async fn set_location(&self, location: Option<Location>) -> Result<()> {
        SimulatorDevice::set_location(self, location).await
    }
}
