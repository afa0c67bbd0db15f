//! Domain types shared by the backends and the server. They serialize to the shapes the
//! tools return in `structuredContent`, so field names here are part of the tool contract.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The operating system of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
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
pub struct ForegroundApp {
    #[serde(rename = "packageName")]
    pub package_name: String,
    /// The activity (Android) or scene in front, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
}

/// A point in screen coordinates (pixels on Android, points on iOS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

/// A rectangle in screen coordinates; `x`,`y` is the top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl Rect {
    pub fn center(&self) -> Point {
        Point::new(self.x + self.width / 2, self.y + self.height / 2)
    }

    pub fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0
    }
}

/// One element on screen, flattened depth-first from the accessibility tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Element {
    /// `@eN`: pass it as `ref` to tap this element. Valid until the screen changes.
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
    pub fn as_str(self) -> &'static str {
        match self {
            CoordinateUnit::Pixels => "pixels",
            CoordinateUnit::Points => "points",
        }
    }
}

/// Screen size in the device's input coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
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

/// A hardware or navigation button. Parsed from the names agents already use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The home button or gesture.
    Home,
    /// Back (Android).
    Back,
    /// The menu key.
    Menu,
    /// Enter on the keyboard.
    Enter,
    /// Volume up.
    VolumeUp,
    /// Volume down.
    VolumeDown,
    /// Power (sleep/wake).
    Power,
    /// D-pad up (Android TV).
    DpadUp,
    /// D-pad down (Android TV).
    DpadDown,
    /// D-pad left (Android TV).
    DpadLeft,
    /// D-pad right (Android TV).
    DpadRight,
    /// D-pad centre (Android TV).
    DpadCenter,
    /// Lock the screen (iOS).
    Lock,
    /// The side button (iOS).
    SideButton,
    /// Siri (iOS).
    Siri,
    /// Apple Pay (iOS).
    ApplePay,
}

/// Where a [`Button`] exists, as the tool descriptions group them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ButtonScope {
    /// Android and iOS (as far as the platform has it).
    Any,
    /// Android only.
    Android,
    /// Android TV remotes.
    AndroidTv,
    /// iOS only.
    Ios,
}

impl ButtonScope {
    /// How a description names the scope after its buttons (`None`: said of none).
    pub fn label(self) -> Option<&'static str> {
        match self {
            ButtonScope::Any => None,
            ButtonScope::Android => Some("Android"),
            ButtonScope::AndroidTv => Some("Android TV"),
            ButtonScope::Ios => Some("iOS"),
        }
    }
}

/// How many buttons there are.
const BUTTON_COUNT: usize = 16;

impl Button {
    /// The one table of buttons: each one's name and where it exists, in the order the
    /// tools list them. [`Button::NAMES`], [`Button::parse`], [`Button::name`] and the
    /// server's descriptions of the buttons derive from it.
    pub const TABLE: [(Button, &'static str, ButtonScope); BUTTON_COUNT] = [
        (Button::Home, "HOME", ButtonScope::Any),
        (Button::Back, "BACK", ButtonScope::Android),
        (Button::Menu, "MENU", ButtonScope::Any),
        (Button::Enter, "ENTER", ButtonScope::Any),
        (Button::VolumeUp, "VOLUME_UP", ButtonScope::Any),
        (Button::VolumeDown, "VOLUME_DOWN", ButtonScope::Any),
        (Button::Power, "POWER", ButtonScope::Any),
        (Button::DpadUp, "DPAD_UP", ButtonScope::AndroidTv),
        (Button::DpadDown, "DPAD_DOWN", ButtonScope::AndroidTv),
        (Button::DpadLeft, "DPAD_LEFT", ButtonScope::AndroidTv),
        (Button::DpadRight, "DPAD_RIGHT", ButtonScope::AndroidTv),
        (Button::DpadCenter, "DPAD_CENTER", ButtonScope::AndroidTv),
        (Button::Lock, "LOCK", ButtonScope::Ios),
        (Button::SideButton, "SIDE_BUTTON", ButtonScope::Ios),
        (Button::Siri, "SIRI", ButtonScope::Ios),
        (Button::ApplePay, "APPLE_PAY", ButtonScope::Ios),
    ];

    /// Every name accepted by [`Button::parse`], for error messages and descriptions.
    pub const NAMES: &'static [&'static str] = &Self::names();

    const fn names() -> [&'static str; BUTTON_COUNT] {
        let mut out = [""; BUTTON_COUNT];
        let mut i = 0;
        while i < BUTTON_COUNT {
            out[i] = Self::TABLE[i].1;
            i += 1;
        }
        out
    }

    /// Parses a button name, case-insensitively; `-` and spaces count as `_`.
    pub fn parse(name: &str) -> Option<Button> {
        let norm: String = name
            .trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        let norm = norm.strip_prefix("KEYCODE_").unwrap_or(&norm);
        Self::TABLE
            .iter()
            .find(|(_, n, _)| *n == norm)
            .map(|(b, _, _)| *b)
    }

    /// The button's name, as [`Button::NAMES`] spells it.
    pub fn name(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(b, _, _)| *b == self)
            .map_or("", |(_, n, _)| n)
    }

    /// The buttons for a description, grouped by where they exist: `HOME, BACK (Android),
    /// …, DPAD_UP/DOWN/… (Android TV); LOCK, … (iOS)`. Names of one scoped group that
    /// share a `PREFIX_` are written `PREFIX_A/B`; `family_sep` separates the Android
    /// buttons from the iOS ones.
    pub fn describe_all(family_sep: &str) -> String {
        let mut out = String::new();
        let mut rows = Self::TABLE.iter().peekable();
        let mut previous: Option<ButtonScope> = None;
        while let Some(&(_, first, scope)) = rows.next() {
            let mut names = vec![first];
            while let Some(&&(_, n, s)) = rows.peek() {
                if s != scope {
                    break;
                }
                names.push(n);
                rows.next();
            }
            if let Some(p) = previous {
                let crosses = (p == ButtonScope::Ios) != (scope == ButtonScope::Ios);
                out.push_str(if crosses { family_sep } else { ", " });
            }
            out.push_str(&match scope.label() {
                Some(label) => format!("{} ({label})", join_group(&names)),
                None => names.join(", "),
            });
            previous = Some(scope);
        }
        out
    }
}

/// `DPAD_UP/DOWN/LEFT` for names that all share a `PREFIX_`; else the names, comma-joined.
fn join_group(names: &[&str]) -> String {
    let prefix = names[0].split_once('_').map(|(p, _)| p);
    match prefix {
        Some(p) if names.len() > 1 && names.iter().all(|n| n.starts_with(&format!("{p}_"))) => {
            let rest: Vec<&str> = names.iter().map(|n| &n[p.len() + 1..]).collect();
            format!("{p}_{}", rest.join("/"))
        }
        _ => names.join(", "),
    }
}

impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Encoding of captured screen bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureFormat {
    Png,
    Jpeg,
    /// Tightly packed RGBA8 rows (a raw framebuffer).
    Rgba8 {
        width: u32,
        height: u32,
    },
    /// Tightly packed RGB8 rows that the backend already scaled, while the frame arrived,
    /// from a `source_width`×`source_height` screen with the caller's options
    /// (`mobile_screenshot::StreamScaler`).
    ScaledRgb8 {
        width: u32,
        height: u32,
        source_width: u32,
        source_height: u32,
    },
}

/// A screen capture as the device returned it, before the screenshot pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    pub format: CaptureFormat,
    pub bytes: Vec<u8>,
}

/// A crash report summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    pub limit: usize,
    /// `key=value` / `key!=value` filters; keys: pid, process, tag, level, message.
    pub filters: Vec<LogFilter>,
}

/// One log filter term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFilter {
    pub key: LogField,
    pub negate: bool,
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogField {
    Pid,
    Process,
    Tag,
    Level,
    Subsystem,
    Category,
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

/// A request to start recording the screen.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingOptions {
    /// Where the finished video is written on this machine.
    pub output: PathBuf,
    pub time_limit: Option<Duration>,
}

/// A finished screen recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub path: PathBuf,
    pub bytes: u64,
    pub duration: Duration,
}

/// A GPS position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Location {
    pub latitude: f64,
    pub longitude: f64,
}

/// Direction of a swipe, as the finger moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
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
    fn buttons_parse_loosely_and_print_canonically() {
        assert_eq!(Button::parse("home"), Some(Button::Home));
        assert_eq!(Button::parse("volume-up"), Some(Button::VolumeUp));
        assert_eq!(Button::parse("KEYCODE_BACK"), Some(Button::Back));
        assert_eq!(Button::parse("side button"), Some(Button::SideButton));
        assert_eq!(Button::parse("REBOOT"), None);
        for n in Button::NAMES {
            assert_eq!(Button::parse(n).unwrap().name(), *n);
        }
    }

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
