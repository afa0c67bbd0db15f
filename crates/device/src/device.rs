//! The `Device` trait: the seam between the MCP layer and the backends.
//!
//! It speaks in domain types, never in shell strings. Every method but the identity
//! ones has a default that answers [`DeviceError::Unsupported`], so a backend states
//! what it can do by what it implements, and the tool turns the rest into a clear error.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::capture::ScreenshotOptions;
use crate::error::{DeviceError, Result};
use crate::input::{AppId, DevicePath, DeviceUrl, Locales};
use crate::types::*;

/// Called with (bytes done, bytes total) while a long transfer runs.
pub type ProgressFn = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// One phone, emulator or simulator.
#[async_trait]
pub trait Device: Send + Sync + 'static {
    /// The id tools take as `device`.
    fn id(&self) -> &str;
    fn platform(&self) -> Platform;
    /// What input coordinates count on this device. With [`CoordinateUnit::Pixels`] a
    /// screenshot's capture size is the screen size, so no size query is needed.
    fn coordinate_unit(&self) -> CoordinateUnit;

    fn unsupported(&self, what: &str) -> DeviceError {
        DeviceError::unsupported(what, self.platform())
    }

    async fn list_apps(&self) -> Result<Vec<App>> {
        Err(self.unsupported("listing apps"))
    }
    async fn launch_app(&self, _app: &AppId, _locales: Option<&Locales>) -> Result<()> {
        Err(self.unsupported("launching apps"))
    }
    async fn terminate_app(&self, _app: &AppId) -> Result<()> {
        Err(self.unsupported("terminating apps"))
    }
    async fn install_app(&self, _path: &Path, _progress: Option<ProgressFn>) -> Result<()> {
        Err(self.unsupported("installing apps"))
    }
    async fn uninstall_app(&self, _app: &AppId) -> Result<()> {
        Err(self.unsupported("uninstalling apps"))
    }
    async fn foreground_app(&self) -> Result<ForegroundApp> {
        Err(self.unsupported("reading the foreground app"))
    }
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
    /// Elements on screen, flattened depth-first, with `@eN` refs numbered from 1.
    async fn list_elements(&self) -> Result<Vec<Element>> {
        Err(self.unsupported("listing elements"))
    }
    /// The raw accessibility dump (uiautomator XML on Android).
    async fn ui_dump(&self) -> Result<String> {
        Err(self.unsupported("raw UI dumps"))
    }
    async fn tap(&self, _at: Point) -> Result<()> {
        Err(self.unsupported("tapping"))
    }
    async fn double_tap(&self, _at: Point) -> Result<()> {
        Err(self.unsupported("double tapping"))
    }
    async fn long_press(&self, _at: Point, _duration: Duration) -> Result<()> {
        Err(self.unsupported("long pressing"))
    }
    async fn swipe(&self, _from: Point, _to: Point, _duration: Duration) -> Result<()> {
        Err(self.unsupported("swiping"))
    }
    /// Types text into the focused field, exactly as given.
    async fn type_text(&self, _text: &str) -> Result<()> {
        Err(self.unsupported("typing text"))
    }
    async fn press_button(&self, _button: Button) -> Result<()> {
        Err(self.unsupported("pressing buttons"))
    }
    async fn open_url(&self, _url: &DeviceUrl) -> Result<()> {
        Err(self.unsupported("opening URLs"))
    }
    async fn orientation(&self) -> Result<Orientation> {
        Err(self.unsupported("reading the orientation"))
    }
    async fn set_orientation(&self, _orientation: Orientation) -> Result<()> {
        Err(self.unsupported("changing the orientation"))
    }
    async fn logs(&self, _query: &LogQuery) -> Result<Vec<LogEntry>> {
        Err(self.unsupported("reading device logs"))
    }
    async fn crashes(&self) -> Result<Vec<Crash>> {
        Err(self.unsupported("listing crashes"))
    }
    async fn crash(&self, _id: &str) -> Result<String> {
        Err(self.unsupported("reading crashes"))
    }
    async fn push_file(&self, _local: &Path, _remote: &DevicePath) -> Result<u64> {
        Err(self.unsupported("pushing files"))
    }
    async fn pull_file(&self, _remote: &DevicePath, _local: &Path) -> Result<u64> {
        Err(self.unsupported("pulling files"))
    }
    async fn start_recording(&self, _options: &RecordingOptions) -> Result<()> {
        Err(self.unsupported("screen recording"))
    }
    async fn stop_recording(&self) -> Result<Recording> {
        Err(self.unsupported("screen recording"))
    }
    async fn clipboard(&self) -> Result<String> {
        Err(self.unsupported("reading the clipboard"))
    }
    async fn set_clipboard(&self, _text: &str) -> Result<()> {
        Err(self.unsupported("setting the clipboard"))
    }
    /// Sets a mock location, or clears it with `None`.
    async fn set_location(&self, _location: Option<Location>) -> Result<()> {
        Err(self.unsupported("setting the location"))
    }
}
