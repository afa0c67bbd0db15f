//! The `Device` trait: the seam between the MCP layer and the backends.
//!
//! It speaks in domain types, never in shell strings. Every method but the identity
//! ones has a default that answers [`DeviceError::Unsupported`], so a backend states
//! what it can do by what it implements, and the tool turns the rest into a clear error.

use std::fs::File;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::button::Button;
use crate::capture::ScreenshotOptions;
use crate::error::{DeviceError, Result};
use crate::fingerprint::ScreenFingerprint;
use crate::input::{AppId, DevicePath, DeviceUrl};
use crate::launch::{LaunchOptions, LaunchReport};
use crate::package::AppPackage;
use crate::posture::{FoldState, Posture};
use crate::types::*;

/// Called with (bytes done, bytes total) while a long transfer runs.
pub type ProgressFn = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// One phone, emulator or simulator.
#[async_trait]
pub trait Device: Send + Sync + 'static {
    /// The id tools take as `device`.
    fn id(&self) -> &str;
    /// The operating system of the device.
    fn platform(&self) -> Platform;
    /// What input coordinates count on this device. With [`CoordinateUnit::Pixels`] a
    /// screenshot's capture size is the screen size, so no size query is needed.
    fn coordinate_unit(&self) -> CoordinateUnit;

    /// Where the device is, the same for every process that reaches the same device the
    /// same way (an adb server's address and the serial on it): the name of the lease
    /// other processes on this machine see (`mobile-mcp`'s `--lease-dir`). `None` (the
    /// default) when the backend cannot tell: the device is then leased within one
    /// process only.
    fn lease_key(&self) -> Option<String> {
        None
    }

    /// The error of an operation this device does not support.
    fn unsupported(&self, what: &str) -> DeviceError {
        DeviceError::unsupported(what, self.platform())
    }

    /// The installed apps (launchable ones on Android).
    async fn list_apps(&self) -> Result<Vec<App>> {
        Err(self.unsupported("listing apps"))
    }
    /// Opens an app, or brings it to the front, as `options` ask: stopped first, its data
    /// cleared, its permissions set, with launch arguments, at a deep link, in a locale.
    /// Each option is checked on the device; one the platform cannot do is an error
    /// before the app is launched. Returns what was done.
    async fn launch_app(&self, _app: &AppId, _options: &LaunchOptions) -> Result<LaunchReport> {
        Err(self.unsupported("launching apps"))
    }
    /// Stops an app; not an error if it was not running.
    async fn terminate_app(&self, _app: &AppId) -> Result<()> {
        Err(self.unsupported("terminating apps"))
    }
    /// Installs an app, reporting upload progress. The server opened the package when it
    /// checked the path (see [`AppPackage`]); the backend reads the open file or the
    /// private copy of a folder, never the caller's path.
    async fn install_app(&self, _package: AppPackage, _progress: Option<ProgressFn>) -> Result<()> {
        Err(self.unsupported("installing apps"))
    }
    /// Removes an app and its data.
    async fn uninstall_app(&self, _app: &AppId) -> Result<()> {
        Err(self.unsupported("uninstalling apps"))
    }
    /// The app (and Android activity) in front.
    async fn foreground_app(&self) -> Result<ForegroundApp> {
        Err(self.unsupported("reading the foreground app"))
    }
    /// The screen size in the unit taps count.
    async fn screen_size(&self) -> Result<ScreenSize> {
        Err(self.unsupported("reading the screen size"))
    }
    /// Captures the screen; the server's screenshot pipeline (`mobile-screenshot`) then
    /// scales and encodes it. `want` is what the caller will ask of the pipeline: a backend
    /// that reads raw frames may scale them while they arrive
    /// (`mobile_screenshot::StreamScaler`), so no full frame is held; others ignore it.
    async fn screenshot(&self, _want: &ScreenshotOptions) -> Result<Screenshot> {
        Err(self.unsupported("screenshots"))
    }
    /// Elements on screen, flattened depth-first, each with an empty `reference`: refs are
    /// the server's to give (it numbers every list it shows), not the backend's.
    async fn list_elements(&self) -> Result<Vec<Element>> {
        Err(self.unsupported("listing elements"))
    }
    /// The raw accessibility dump (uiautomator XML on Android).
    async fn ui_dump(&self) -> Result<String> {
        Err(self.unsupported("raw UI dumps"))
    }
    /// Taps at a point.
    async fn tap(&self, _at: Point) -> Result<()> {
        Err(self.unsupported("tapping"))
    }
    /// Double-taps at a point.
    async fn double_tap(&self, _at: Point) -> Result<()> {
        Err(self.unsupported("double tapping"))
    }
    /// Presses and holds at a point.
    async fn long_press(&self, _at: Point, _duration: Duration) -> Result<()> {
        Err(self.unsupported("long pressing"))
    }
    /// Swipes from one point to another over `duration`.
    async fn swipe(&self, _from: Point, _to: Point, _duration: Duration) -> Result<()> {
        Err(self.unsupported("swiping"))
    }
    /// Types text into the focused field, exactly as given.
    async fn type_text(&self, _text: &str) -> Result<()> {
        Err(self.unsupported("typing text"))
    }
    /// Presses a hardware or navigation button.
    async fn press_button(&self, _button: Button) -> Result<()> {
        Err(self.unsupported("pressing buttons"))
    }
    /// Opens a URL in the app that handles it.
    async fn open_url(&self, _url: &DeviceUrl) -> Result<()> {
        Err(self.unsupported("opening URLs"))
    }
    /// The screen orientation.
    async fn orientation(&self) -> Result<Orientation> {
        Err(self.unsupported("reading the orientation"))
    }
    /// Rotates the screen.
    async fn set_orientation(&self, _orientation: Orientation) -> Result<()> {
        Err(self.unsupported("changing the orientation"))
    }
    /// Recent log lines, newest last.
    async fn logs(&self, _query: &LogQuery) -> Result<Vec<LogEntry>> {
        Err(self.unsupported("reading device logs"))
    }
    /// The crash reports on the device.
    async fn crashes(&self) -> Result<Vec<Crash>> {
        Err(self.unsupported("listing crashes"))
    }
    /// One crash report in full.
    async fn crash(&self, _id: &str) -> Result<String> {
        Err(self.unsupported("reading crashes"))
    }
    /// Copies a local file to the device; returns the bytes written. The server opened
    /// `local` (it checked the path); the backend reads the open file, never a path.
    async fn push_file(&self, _local: File, _remote: &DevicePath) -> Result<u64> {
        Err(self.unsupported("pushing files"))
    }
    /// Copies a device file into `out`, a new empty file the server opened (and moves
    /// into place when this succeeds); returns the bytes written. The backend writes the
    /// open file, never a path.
    async fn pull_file(&self, _remote: &DevicePath, _out: File) -> Result<u64> {
        Err(self.unsupported("pulling files"))
    }
    /// Starts recording the screen.
    async fn start_recording(&self, _options: &RecordingOptions) -> Result<()> {
        Err(self.unsupported("screen recording"))
    }
    /// Stops the recording and writes the video into `out`, a new empty file the server
    /// opened (and moves into place when this succeeds).
    async fn stop_recording(&self, _out: File) -> Result<Recording> {
        Err(self.unsupported("screen recording"))
    }
    /// The clipboard's text.
    async fn clipboard(&self) -> Result<String> {
        Err(self.unsupported("reading the clipboard"))
    }
    /// Replaces the clipboard's text.
    async fn set_clipboard(&self, _text: &str) -> Result<()> {
        Err(self.unsupported("setting the clipboard"))
    }
    /// Sets a mock location, or clears it with `None`.
    async fn set_location(&self, _location: Option<Location>) -> Result<()> {
        Err(self.unsupported("setting the location"))
    }
    /// Drags from one point to another: presses at `from`, holds long enough to pick up
    /// what is there (a long press), moves to `to` over `duration`, and releases.
    async fn drag(&self, _from: Point, _to: Point, _duration: Duration) -> Result<()> {
        Err(self.unsupported("dragging"))
    }
    /// Folds or unfolds a foldable device to `posture`; returns the state it asked for.
    async fn fold(&self, _posture: Posture) -> Result<FoldState> {
        Err(DeviceError::unsupported_with_hint(
            "folding",
            self.platform(),
            "only a foldable device can fold, and this one is not",
        ))
    }

    /// A short fingerprint of what the screen shows now: two equal fingerprints mean the
    /// screen did not change between them. The server samples it after an action to wait
    /// until the screen settles, so it must be cheap: where the device can hash its own
    /// frame, no frame crosses to this machine. The fingerprint names the signal it
    /// digests, which the server's settle wait spaces its samples by.
    async fn screen_fingerprint(&self) -> Result<ScreenFingerprint> {
        Err(self.unsupported("fingerprinting the screen"))
    }
}
