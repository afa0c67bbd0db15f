//! Domain types shared by the backends and the server. They serialize to the shapes the
//! tools return in `structuredContent`, so field names here are part of the tool contract.

use crate::bounds::{Latitude, LogLimit, Longitude, RecordingLimit};
use std::fmt;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The operating system of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub enum Platform {
    Android,
    Ios,
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Platform::Android => "Android",
            Platform::Ios => "iOS",
        })
    }
}

/// What kind of device this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub enum DeviceKind {
    Emulator,
    Simulator,
    Real,
}

/// Whether a device can take commands now.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeviceState {
    /// Connected and ready (an Android device in state `device`, a booted simulator).
    Online,
    /// Known but not answering (adb `offline`).
    Offline,
    /// Connected but the user has not accepted the debugging prompt.
    Unauthorized,
    /// A simulator that exists but is shut down.
    Shutdown,
    /// Anything else the backend reported, verbatim.
    Other(String),
}

impl DeviceState {
    /// Whether tools can drive a device in this state.
    pub fn is_usable(&self) -> bool {
        matches!(self, DeviceState::Online)
    }
}

impl fmt::Display for DeviceState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceState::Online => f.write_str("online"),
            DeviceState::Offline => f.write_str("offline"),
            DeviceState::Unauthorized => f.write_str("unauthorized"),
            DeviceState::Shutdown => f.write_str("shutdown"),
            DeviceState::Other(s) => f.write_str(s),
        }
    }
}

/// One device as `mobile_list_available_devices` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct DeviceInfo {
    /// The id every other tool takes as `device`.
    pub id: String,
    /// A human name (model or simulator name).
    pub name: String,
    pub platform: Platform,
    /// `emulator`, `simulator` or `real`.
    #[serde(rename = "type")]
    pub kind: DeviceKind,
    /// OS version, e.g. `14` or `17.5`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub state: DeviceState,
    /// Hardware model, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What to do when the device is not usable (e.g. how to boot or authorize it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// An installed app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct App {
    /// Android package name or iOS bundle id.
    #[serde(rename = "packageName")]
    pub package_name: String,
    /// The name shown on the home screen (falls back to the package name).
    #[serde(rename = "appName")]
    pub app_name: String,
}

/// The app in front, as far as the device can tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct ForegroundApp {
    #[serde(rename = "packageName")]
    pub package_name: String,
    /// The activity (Android) or scene in front, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
}

/// A point in screen coordinates (pixels on Android, points on iOS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    /// A point at `x`, `y`.
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

/// A rectangle in screen coordinates; `x`,`y` is the top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl Rect {
    /// The centre, where a tap on the element lands.
    pub fn center(&self) -> Point {
        Point::new(self.x + self.width / 2, self.y + self.height / 2)
    }

    /// Whether the rect has no area.
    pub fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0
    }
}

/// One element on screen, flattened depth-first from the accessibility tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct Element {
    /// `@eN`: pass it as `ref` to tap this element. It keeps naming this element in later
    /// lists while the element is on screen; once it has gone, the ref is refused.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Full class or role, e.g. `android.widget.Button` or `Button`.
    #[serde(rename = "type")]
    pub element_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Accessibility label (content-desc, hint, AXLabel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Resource id or accessibility identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifier: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Position and size on screen (top-left corner).
    #[serde(rename = "coordinates")]
    pub rect: Rect,
    #[serde(flatten)]
    pub states: ElementStates,
}

/// Element states; only the non-default ones are serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct ElementStates {
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub checked: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub clickable: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub scrollable: bool,
}

impl Default for ElementStates {
    fn default() -> Self {
        ElementStates {
            focused: false,
            selected: false,
            checked: false,
            enabled: true,
            clickable: false,
            scrollable: false,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}

/// Screen orientation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub enum Orientation {
    Portrait,
    Landscape,
}

impl fmt::Display for Orientation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Orientation::Portrait => "portrait",
            Orientation::Landscape => "landscape",
        })
    }
}

/// The unit of a device's input coordinates: what a tap's x and y count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CoordinateUnit {
    /// Physical pixels: input coordinates are the screen capture's (Android).
    Pixels,
    /// Points: the capture has `scale` pixels per point (iOS).
    Points,
}

impl CoordinateUnit {
    /// The unit's name as the tools write it.
    pub fn as_str(self) -> &'static str {
        match self {
            CoordinateUnit::Pixels => "pixels",
            CoordinateUnit::Points => "points",
        }
    }
}

/// Screen size in the device's input coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct ScreenSize {
    /// Width in input coordinates (see `unit`).
    pub width: u32,
    pub height: u32,
    /// What the coordinates count.
    pub unit: CoordinateUnit,
    /// Pixels per coordinate unit (Android: density/160; iOS: the display scale).
    pub scale: f64,
    /// Android density in dpi, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density: Option<u32>,
}

/// Encoding of captured screen bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureFormat {
    /// PNG bytes.
    Png,
    /// JPEG bytes.
    Jpeg,
    /// Tightly packed RGBA8 rows (a raw framebuffer).
    Rgba8 {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// Tightly packed RGB8 rows that the backend already scaled, while the frame arrived,
    /// from a `source_width`×`source_height` screen with the caller's options
    /// (`mobile_screenshot::StreamScaler`).
    ScaledRgb8 {
        /// Width in pixels after scaling.
        width: u32,
        /// Height in pixels after scaling.
        height: u32,
        /// Width of the screen before scaling.
        source_width: u32,
        /// Height of the screen before scaling.
        source_height: u32,
    },
}

/// A screen capture as the device returned it, before the screenshot pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// How `bytes` are encoded.
    pub format: CaptureFormat,
    /// The captured bytes.
    pub bytes: Vec<u8>,
}

/// A crash report summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct Crash {
    /// Pass it to `mobile_get_crash`.
    pub id: String,
    #[serde(rename = "processName")]
    pub process_name: String,
    pub timestamp: String,
}

/// Which log lines to return.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogQuery {
    /// Most recent lines to return at most.
    pub limit: LogLimit,
    /// `key=value` / `key!=value` filters; keys: pid, process, tag, level, message.
    pub filters: Vec<LogFilter>,
}

/// One log filter term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFilter {
    /// The field the filter looks at.
    pub key: LogField,
    /// `key!=value`: keep the lines that do not match.
    pub negate: bool,
    /// The value to compare with.
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// A log line field a filter can name.
pub enum LogField {
    /// The process id.
    Pid,
    /// The process name.
    Process,
    /// The Android log tag.
    Tag,
    /// The level (`E`, `W`, `error`, ...).
    Level,
    /// The iOS subsystem.
    Subsystem,
    /// The iOS category.
    Category,
    /// The message text.
    Message,
}

impl LogFilter {
    /// Parses `key=value` or `key!=value`.
    pub fn parse(s: &str) -> Result<LogFilter, String> {
        let (key, negate, value) = if let Some((k, v)) = s.split_once("!=") {
            (k, true, v)
        } else if let Some((k, v)) = s.split_once('=') {
            (k, false, v)
        } else {
            return Err(format!(
                "log filter {} must look like key=value or key!=value",
                crate::input::excerpt(s)
            ));
        };
        let key = match key.trim().to_ascii_lowercase().as_str() {
            "pid" => LogField::Pid,
            "process" => LogField::Process,
            "tag" => LogField::Tag,
            "level" => LogField::Level,
            "subsystem" => LogField::Subsystem,
            "category" => LogField::Category,
            "message" => LogField::Message,
            other => {
                return Err(format!(
                    "log filter key `{}` is unknown; use pid, process, tag, level, subsystem, category or message",
                    other.chars().take(40).collect::<String>()
                ));
            }
        };
        Ok(LogFilter {
            key,
            negate,
            value: value.to_string(),
        })
    }

    /// Whether `entry` passes this filter.
    pub fn matches(&self, entry: &LogEntry) -> bool {
        let field = match self.key {
            LogField::Pid => entry.pid.map(|p| p.to_string()),
            LogField::Process => entry.process.clone(),
            LogField::Tag => entry.tag.clone(),
            LogField::Level => entry.level.clone(),
            LogField::Subsystem => entry.subsystem.clone(),
            LogField::Category => entry.category.clone(),
            LogField::Message => Some(entry.message.clone()),
        };
        let hit = match (&self.key, field) {
            (LogField::Message, Some(f)) => f.contains(&self.value),
            (_, Some(f)) => f.eq_ignore_ascii_case(&self.value),
            (_, None) => false,
        };
        hit != self.negate
    }
}

/// One device log line, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub struct LogEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsystem: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    pub message: String,
}

/// A request to start recording the screen; where the video goes is the file given to
/// [`crate::Device::stop_recording`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingOptions {
    /// Stop after this long.
    pub time_limit: RecordingLimit,
}

/// A finished screen recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// Its size in bytes.
    pub bytes: u64,
    /// About how long it lasts.
    pub duration: Duration,
}

/// A GPS position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Location {
    /// Degrees north.
    pub latitude: Latitude,
    /// Degrees east.
    pub longitude: Longitude,
}

/// Direction of a swipe, as the finger moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Doc comments here would become descriptions in the published tool schemas,
// which stay as they are; the names say what these are.
#[allow(missing_docs)]
pub enum SwipeDirection {
    Up,
    Down,
    Left,
    Right,
}

/// Computes a swipe's end points, kept inside the screen.
///
/// Without an origin the swipe is centred on the screen; without a distance it covers
/// 40% of the screen along its axis (parity: the peer uses 400 px on a 1080-wide phone).
pub fn swipe_path(
    direction: SwipeDirection,
    origin: Option<Point>,
    distance: Option<u32>,
    screen: &ScreenSize,
) -> (Point, Point) {
    let w = screen.width.max(1) as i64;
    let h = screen.height.max(1) as i64;
    let clamp_x = |v: i64| v.clamp(0, w - 1) as i32;
    let clamp_y = |v: i64| v.clamp(0, h - 1) as i32;
    let axis = match direction {
        SwipeDirection::Up | SwipeDirection::Down => h,
        SwipeDirection::Left | SwipeDirection::Right => w,
    };
    let d = distance.map(i64::from).unwrap_or(axis * 2 / 5);
    match origin {
        Some(p) => {
            let (x, y) = (p.x as i64, p.y as i64);
            let (ex, ey) = match direction {
                SwipeDirection::Up => (x, y - d),
                SwipeDirection::Down => (x, y + d),
                SwipeDirection::Left => (x - d, y),
                SwipeDirection::Right => (x + d, y),
            };
            (
                Point::new(clamp_x(x), clamp_y(y)),
                Point::new(clamp_x(ex), clamp_y(ey)),
            )
        }
        None => {
            let (cx, cy) = (w / 2, h / 2);
            let half = d / 2;
            let (sx, sy, ex, ey) = match direction {
                SwipeDirection::Up => (cx, cy + half, cx, cy - half),
                SwipeDirection::Down => (cx, cy - half, cx, cy + half),
                SwipeDirection::Left => (cx + half, cy, cx - half, cy),
                SwipeDirection::Right => (cx - half, cy, cx + half, cy),
            };
            (
                Point::new(clamp_x(sx), clamp_y(sy)),
                Point::new(clamp_x(ex), clamp_y(ey)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swipe_stays_on_screen() {
        let s = ScreenSize {
            unit: CoordinateUnit::Pixels,
            width: 1080,
            height: 2400,
            scale: 2.625,
            density: Some(420),
        };
        let (a, b) = swipe_path(SwipeDirection::Up, None, None, &s);
        assert_eq!(a, Point::new(540, 1680));
        assert_eq!(b, Point::new(540, 720));
        let (a, b) = swipe_path(
            SwipeDirection::Left,
            Some(Point::new(100, 100)),
            Some(5000),
            &s,
        );
        assert_eq!(a, Point::new(100, 100));
        assert_eq!(b, Point::new(0, 100));
        let (_, b) = swipe_path(
            SwipeDirection::Down,
            Some(Point::new(5000, 2300)),
            Some(400),
            &s,
        );
        assert_eq!(b, Point::new(1079, 2399));
    }

    #[test]
    fn element_serializes_only_non_default_states() {
        let e = Element {
            reference: "@e1".into(),
            element_type: "android.widget.Button".into(),
            text: Some("OK".into()),
            rect: Rect {
                x: 1,
                y: 2,
                width: 3,
                height: 4,
            },
            ..Default::default()
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"ref":"@e1","type":"android.widget.Button","text":"OK",
                "coordinates":{"x":1,"y":2,"width":3,"height":4}})
        );
    }

    #[test]
    fn log_filters_parse_and_match() {
        let f = LogFilter::parse("tag!=ActivityManager").unwrap();
        let e = LogEntry {
            tag: Some("ActivityManager".into()),
            message: "x".into(),
            ..Default::default()
        };
        assert!(!f.matches(&e));
        assert!(LogFilter::parse("message=x").unwrap().matches(&e));
        assert!(LogFilter::parse("bogus=1").is_err());
        assert!(LogFilter::parse("nothing").is_err());
    }
}
