//! The simulated Mac's simulators, as a JSON file that every `fake-xcrun` and `fake-idb`
//! run reads and rewrites, so state carries across processes the way a real
//! CoreSimulator does.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Everything the fake toolchain knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IosState {
    /// Where `dataPath`/`logPath` point (`/Users/dev`).
    #[serde(default = "default_home")]
    pub home: String,
    /// The simulators `simctl list` shows, in order.
    pub simulators: Vec<Simulator>,
    /// Runtime identifiers listed even when no simulator uses them (printed as `[\n\n    ]`).
    #[serde(default)]
    pub empty_runtimes: Vec<String>,
    /// The fb-idb release the `idb` client (and its companion) behaves as:
    /// [`IDB_1_1`] (no `ui rotate`, `ui multi-tap` or `ui key --command`) or
    /// [`IDB_1_5`]. See `fixtures/SOURCES.md`.
    #[serde(default = "default_idb")]
    pub idb_version: String,
}

/// fb-idb 1.1.8 (August 2022), the release most users have.
pub const IDB_1_1: &str = "1.1.8";
/// fb-idb 1.5.0 (beta 3, August 2026), the first with `ui rotate` and `ui multi-tap`.
pub const IDB_1_5: &str = "1.5.0";

fn default_idb() -> String {
    IDB_1_5.into()
}

impl IosState {
    /// Whether the idb profile is 1.5 or later.
    pub fn idb_1_5(&self) -> bool {
        let mut parts = self
            .idb_version
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (major, minor) >= (1, 5)
    }
}

fn default_home() -> String {
    "/Users/dev".into()
}
fn yes() -> bool {
    true
}
fn portrait() -> String {
    "PORTRAIT".into()
}

/// One simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Simulator {
    /// The simulator's UDID.
    pub udid: String,
    /// Its name (`iPhone 16 Pro`).
    pub name: String,
    /// `com.apple.CoreSimulator.SimRuntime.iOS-18-5`.
    pub runtime: String,
    /// `com.apple.CoreSimulator.SimDeviceType.iPhone-16-Pro`.
    pub device_type: String,
    /// `Booted` or `Shutdown`.
    pub state: String,
    #[serde(default = "yes")]
    /// `isAvailable`: false when its runtime is missing.
    pub available: bool,
    #[serde(default)]
    /// `availabilityError`, for an unavailable simulator.
    pub availability_error: Option<String>,
    #[serde(default)]
    /// `lastBootedAt`, where printed.
    pub last_booted_at: Option<String>,
    #[serde(default)]
    /// `dataPathSize` in bytes, where printed.
    pub data_path_size: Option<u64>,
    #[serde(default)]
    /// `logPathSize` in bytes, where printed.
    pub log_path_size: Option<u64>,
    /// Screen size in points (portrait) and the scale.
    pub width_points: u32,
    /// Screen height in points (portrait).
    pub height_points: u32,
    /// Pixels per point (2 or 3).
    pub scale: u32,
    /// `PORTRAIT`, `PORTRAIT_UPSIDE_DOWN`, `LANDSCAPE_LEFT`, `LANDSCAPE_RIGHT`.
    #[serde(default = "portrait")]
    pub orientation: String,
    #[serde(default)]
    /// Installed apps, system apps included.
    pub apps: Vec<FakeApp>,
    /// Running apps: bundle id → pid.
    #[serde(default)]
    pub running: BTreeMap<String, u32>,
    /// The app in front; `None` is the home screen.
    #[serde(default)]
    pub foreground: Option<String>,
    #[serde(default = "first_pid")]
    /// The pid the next launch gets.
    pub next_pid: u32,
    /// Accessibility trees per app (bundle id) below its `Application` element; the
    /// home screen is generated from the installed apps.
    #[serde(default)]
    pub screens: BTreeMap<String, Vec<UiElement>>,
    /// Which screen each app shows when it is not its own bundle id (after `show:`).
    #[serde(default)]
    pub shown: BTreeMap<String, String>,
    /// Launch arguments of each app's last launch.
    #[serde(default)]
    pub launch_args: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    /// URLs opened with `simctl openurl`, in order.
    pub opened_urls: Vec<String>,
    #[serde(default)]
    /// The pasteboard (`pbcopy`/`pbpaste`).
    pub clipboard: String,
    /// `lat,lon` set with `simctl location … set`.
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    /// The unified log that `simctl spawn … log show` prints.
    pub logs: Vec<FakeLog>,
    /// Buttons pressed through idb, in order.
    #[serde(default)]
    pub buttons: Vec<String>,
    /// Keys pressed through `idb ui key` (HID usages), in order.
    #[serde(default)]
    pub keys: Vec<u32>,
    /// How many more `describe-all` calls answer with the empty one-element tree idb
    /// gives right after a launch (set by tests).
    #[serde(default)]
    pub pending_empty_trees: u32,
    /// Whether `simctl io screenshot` turns with the interface. False (the default) is
    /// the raw framebuffer, portrait whatever the rotation (getsentry/XcodeBuildMCP#186);
    /// true is an upright capture, as reported on Xcode 26 (software-mansion/argent#609).
    #[serde(default)]
    pub screenshot_follows_rotation: bool,
    /// The system alert in front, e.g. the "Open in …?" confirmation of a custom URL
    /// scheme (expo/eas-cli#4274).
    #[serde(default)]
    pub alert: Option<FakeAlert>,
    /// URL schemes the user already confirmed (no alert the next time).
    #[serde(default)]
    pub approved_schemes: Vec<String>,
    /// Gestures the simulator recognised, in order: `tap x,y`, `double-tap x,y`
    /// (both taps in one idb HID stream), `paste`.
    #[serde(default)]
    pub gestures: Vec<String>,
    /// How long a screen change started by a tap slides in, in ms (0: at once).
    #[serde(default)]
    pub transition_ms: u64,
    /// The slide in progress, if any.
    #[serde(default)]
    pub transition: Option<crate::transition::Transition>,
    /// Privacy decisions per app (`simctl privacy`): service → `granted` or `revoked`;
    /// a service not listed was never decided.
    #[serde(default)]
    pub privacy: BTreeMap<String, BTreeMap<String, String>>,
    /// What each app keeps in its data container (set by tests); uninstalling removes it.
    #[serde(default)]
    pub app_data: BTreeMap<String, BTreeMap<String, String>>,
}

/// A system alert over the current screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FakeAlert {
    /// The alert's title (`Open in “Qwen”?`).
    pub title: String,
    /// The app that opens when the user taps Open.
    pub opens: String,
    /// The URL waiting for the confirmation.
    pub url: String,
}

fn first_pid() -> u32 {
    40000
}

/// An installed app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FakeApp {
    /// `CFBundleIdentifier`.
    pub bundle_id: String,
    /// `CFBundleName`.
    pub name: String,
    /// `CFBundleDisplayName`.
    #[serde(default)]
    pub display_name: Option<String>,
    /// `System` or `User`.
    pub kind: String,
    /// `CFBundleVersion`, printed bare when alphanumeric (`1`), quoted otherwise.
    #[serde(default = "one")]
    pub version: String,
    #[serde(default)]
    /// URL schemes the app handles (for `simctl openurl`).
    pub url_schemes: Vec<String>,
    /// Executable name (`CFBundleExecutable`); defaults to the name without spaces.
    #[serde(default)]
    pub executable: Option<String>,
    /// UUID of the bundle container (user apps).
    #[serde(default)]
    pub container: Option<String>,
}

fn one() -> String {
    "1".into()
}

impl FakeApp {
    /// The home-screen name: the display name, else the bundle name.
    pub fn shown_name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(&self.name)
    }

    /// The executable's name (`CFBundleExecutable`).
    pub fn executable(&self) -> String {
        self.executable.clone().unwrap_or_else(|| {
            self.name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect()
        })
    }
}

/// One accessibility element of a fake screen (points, portrait).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiElement {
    /// idb `type`: `Button`, `StaticText`, `TextField`, `Icon`, `Heading`, …
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    /// `AXLabel`.
    pub label: Option<String>,
    #[serde(default)]
    /// `AXValue`.
    pub value: Option<String>,
    #[serde(default)]
    /// `AXUniqueId`.
    pub id: Option<String>,
    /// Left edge, in points.
    pub x: f64,
    /// Top edge, in points.
    pub y: f64,
    /// Width, in points.
    pub width: f64,
    /// Height, in points.
    pub height: f64,
    #[serde(default)]
    /// Whether the element has the keyboard focus.
    pub focused: bool,
    /// What a tap does: `launch:<bundle id>`, `home`, `show:<bundle id>` (switch the
    /// screen shown for the current app), or nothing. Text fields take focus anyway.
    #[serde(default)]
    pub on_tap: Option<String>,
    #[serde(default)]
    /// `subrole` (`AXSwitch`, `AXSearchField`, `AXSecureTextField`), where it has one.
    pub subrole: Option<String>,
    #[serde(default)]
    /// Nested elements (printed by `describe-all --nested`).
    pub children: Vec<UiElement>,
}

impl UiElement {
    /// An element of `kind` labelled `label` with the frame x, y, width, height.
    pub fn new(kind: &str, label: &str, (x, y, width, height): (f64, f64, f64, f64)) -> Self {
        UiElement {
            kind: kind.into(),
            label: Some(label.into()),
            value: None,
            id: None,
            x,
            y,
            width,
            height,
            focused: false,
            on_tap: None,
            subrole: None,
            children: Vec::new(),
        }
    }

    /// The same element with a subrole.
    pub fn subrole(mut self, subrole: &str) -> Self {
        self.subrole = Some(subrole.into());
        self
    }

    fn id(mut self, id: &str) -> Self {
        self.id = Some(id.into());
        self
    }

    fn on_tap(mut self, action: &str) -> Self {
        self.on_tap = Some(action.into());
        self
    }

    fn value(mut self, v: &str) -> Self {
        self.value = Some(v.into());
        self
    }

    /// Whether the point (`x`, `y`) is inside the element's frame.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.width && y < self.y + self.height
    }
}

/// A unified-log event `simctl spawn … log show` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FakeLog {
    /// `2026-09-04 20:54:08.123456-0700`, as `log show` prints it.
    pub timestamp: String,
    /// `Default`, `Info`, `Debug`, `Error`, `Fault`.
    pub level: String,
    /// The executable's path.
    pub process_path: String,
    /// The process id.
    pub pid: u32,
    #[serde(default)]
    /// The subsystem (`com.apple.UIKit`), or empty.
    pub subsystem: String,
    #[serde(default)]
    /// The category, or empty.
    pub category: String,
    /// The message text.
    pub message: String,
}

impl IosState {
    /// Reads a state file.
    pub fn load(path: &Path) -> io::Result<IosState> {
        let text = std::fs::read_to_string(path)?;
        serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Writes atomically (temp file, then rename), so a concurrent reader never sees
    /// half a file.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }

    /// The simulator with this UDID.
    pub fn simulator(&self, udid: &str) -> Option<&Simulator> {
        self.simulators.iter().find(|s| s.udid == udid)
    }
}

/// The booted iPhone of the default scenario.
pub const BOOTED_UDID: &str = "C4AB4BE0-C0BC-436C-8C03-8F87330DFFA5";
/// The shut-down iPad of the default scenario.
pub const SHUTDOWN_UDID: &str = "3F1C114D-FC3D-481A-9CA1-499EE1339390";
/// The simulator whose runtime is missing in the default scenario.
pub const UNAVAILABLE_UDID: &str = "E868060E-3394-48BD-8B2E-987199B33F43";
/// The app whose display name has spaces, quotes, braces and CJK.
pub const NOTES_BUNDLE: &str = "com.example.notes";
/// The display name of [`NOTES_BUNDLE`].
pub const NOTES_NAME: &str = "My \"Quick\" Notes {beta} 示例";

fn app(bundle_id: &str, name: &str, display: Option<&str>, kind: &str, version: &str) -> FakeApp {
    FakeApp {
        bundle_id: bundle_id.into(),
        name: name.into(),
        display_name: display.map(Into::into),
        kind: kind.into(),
        version: version.into(),
        url_schemes: Vec::new(),
        executable: None,
        container: None,
    }
}

fn settings_screen() -> Vec<UiElement> {
    vec![
        UiElement::new("Heading", "Settings", (16.0, 98.33, 370.0, 41.0)),
        UiElement::new("TextField", "Search", (16.0, 120.66, 370.0, 36.0)),
        UiElement::new("Button", "General", (20.0, 264.0, 362.0, 44.0))
            .id("com.apple.settings.general")
            .value("")
            .on_tap("show:com.apple.Preferences/general"),
        UiElement::new("Button", "Wi‑Fi", (20.0, 308.0, 362.0, 44.0))
            .id("com.apple.settings.wifi")
            .value("1"),
    ]
}

fn qwen_screen() -> Vec<UiElement> {
    vec![
        UiElement::new("Heading", "Qwen", (16.0, 60.0, 370.0, 44.0)),
        UiElement {
            children: vec![
                UiElement::new("TextField", "Ask Qwen", (16.0, 780.0, 300.0, 44.0))
                    .id("qwen.input"),
                UiElement::new("Button", "Send", (326.0, 780.0, 60.0, 44.0)).id("qwen.send"),
            ],
            ..UiElement::new("Group", "Composer", (0.0, 770.0, 402.0, 64.0))
        },
    ]
}

/// The default scenario: a booted iPhone 16 Pro (iOS 18.5) with Settings, Safari,
/// Qwen (`com.alibaba.qwen`, URL scheme `qwen`) and an app whose name has spaces,
/// quotes, braces and CJK; a shut-down iPad; an iPhone whose runtime is missing; an
/// empty watchOS runtime. Its `simctl list devices -j` output is
/// `fixtures/ios/list-devices-xcode16-recon.json` byte for byte.
pub fn default_state() -> IosState {
    let mut qwen = app("com.alibaba.qwen", "Qwen", Some("Qwen"), "User", "42");
    qwen.url_schemes = vec!["qwen".into()];
    qwen.container = Some("0B3E0B0A-6A3B-4F0E-9F5B-2F6C7A1D9E11".into());
    let mut notes = app(NOTES_BUNDLE, "Notes", Some(NOTES_NAME), "User", "1");
    notes.container = Some("9A1B2C3D-4E5F-4061-8293-A4B5C6D7E8F9".into());
    let mut screens = BTreeMap::new();
    screens.insert("com.apple.Preferences".to_string(), settings_screen());
    screens.insert(
        "com.apple.Preferences/general".to_string(),
        vec![
            UiElement::new("Button", "About", (20.0, 150.0, 362.0, 44.0))
                .on_tap("show:com.apple.Preferences"),
            // The element types idb's translator reports beyond buttons and text
            // (facebook/idb FBSimulatorControl/Commands/FBAXRoleVocabulary.swift,
            // `translatorRoleNames`, and the subroles in `translatorSubroleNames`).
            UiElement::new("CheckBox", "Airplane Mode", (20.0, 200.0, 362.0, 44.0))
                .subrole("AXSwitch")
                .value("0"),
            UiElement::new("RadioButton", "Light", (20.0, 250.0, 181.0, 44.0)).value("1"),
            UiElement::new("PopUpButton", "Date Format", (20.0, 300.0, 362.0, 44.0))
                .value("Automatic"),
            UiElement::new("Slider", "Brightness", (20.0, 350.0, 362.0, 44.0)).value("50%"),
            UiElement::new("TextArea", "Notes", (20.0, 400.0, 362.0, 120.0)),
        ],
    );
    screens.insert("com.alibaba.qwen".to_string(), qwen_screen());
    screens.insert(
        NOTES_BUNDLE.to_string(),
        vec![UiElement::new(
            "StaticText",
            NOTES_NAME,
            (16.0, 60.0, 370.0, 30.0),
        )],
    );
    screens.insert(
        "com.apple.mobilesafari".to_string(),
        vec![UiElement::new("TextField", "Address", (16.0, 800.0, 370.0, 40.0)).id("URL")],
    );
    let phone = Simulator {
        udid: BOOTED_UDID.into(),
        name: "iPhone 16 Pro".into(),
        runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-5".into(),
        device_type: "com.apple.CoreSimulator.SimDeviceType.iPhone-16-Pro".into(),
        state: "Booted".into(),
        available: true,
        availability_error: None,
        last_booted_at: Some("2026-09-04T20:54:08Z".into()),
        data_path_size: Some(5984169984),
        log_path_size: Some(827392),
        width_points: 402,
        height_points: 874,
        scale: 3,
        orientation: portrait(),
        apps: vec![
            app("com.apple.Preferences", "Preferences", Some("Settings"), "System", "1"),
            app("com.apple.mobilesafari", "MobileSafari", Some("Safari"), "System", "8621.1.15.10.7"),
            qwen,
            notes,
        ],
        running: BTreeMap::new(),
        foreground: None,
        next_pid: first_pid(),
        screens,
        shown: BTreeMap::new(),
        launch_args: BTreeMap::new(),
        opened_urls: Vec::new(),
        clipboard: String::new(),
        location: None,
        logs: vec![
            FakeLog {
                timestamp: "2026-09-04 20:54:08.123456-0700".into(),
                level: "Default".into(),
                process_path: "/Library/Developer/CoreSimulator/Volumes/iOS_22F77/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 18.5.simruntime/Contents/Resources/RuntimeRoot/System/Library/CoreServices/SpringBoard.app/SpringBoard".into(),
                pid: 812,
                subsystem: "com.apple.SpringBoard".into(),
                category: "Application".into(),
                message: "Application launched: com.apple.Preferences".into(),
            },
            FakeLog {
                timestamp: "2026-09-04 20:54:08.200001-0700".into(),
                level: "Error".into(),
                process_path: "/Library/Developer/CoreSimulator/Volumes/iOS_22F77/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 18.5.simruntime/Contents/Resources/RuntimeRoot/Applications/Preferences.app/Preferences".into(),
                pid: 901,
                subsystem: "com.apple.Accessibility".into(),
                category: "AXRuntime".into(),
                message: "Connection to accessibility server failed".into(),
            },
            FakeLog {
                timestamp: "2026-09-04 20:54:09.000017-0700".into(),
                level: "Info".into(),
                process_path: format!("/Users/dev/Library/Developer/CoreSimulator/Devices/{BOOTED_UDID}/data/Containers/Bundle/Application/0B3E0B0A-6A3B-4F0E-9F5B-2F6C7A1D9E11/Qwen.app/Qwen"),
                pid: 1044,
                subsystem: String::new(),
                category: String::new(),
                message: "示例 loaded 3 items".into(),
            },
        ],
        buttons: Vec::new(),
        keys: Vec::new(),
        pending_empty_trees: 0,
        screenshot_follows_rotation: false,
        alert: None,
        approved_schemes: Vec::new(),
        gestures: Vec::new(),
        transition_ms: 0,
        transition: None,
        privacy: BTreeMap::new(),
        app_data: BTreeMap::new(),
    };
    let ipad = Simulator {
        udid: SHUTDOWN_UDID.into(),
        name: "iPad Pro 11-inch (M4)".into(),
        device_type: "com.apple.CoreSimulator.SimDeviceType.iPad-Pro-11-inch-M4-8GB".into(),
        state: "Shutdown".into(),
        last_booted_at: None,
        data_path_size: Some(18337792),
        log_path_size: None,
        width_points: 834,
        height_points: 1210,
        scale: 2,
        apps: vec![app(
            "com.apple.Preferences",
            "Preferences",
            Some("Settings"),
            "System",
            "1",
        )],
        screens: BTreeMap::new(),
        logs: Vec::new(),
        ..phone.clone()
    };
    let old = Simulator {
        udid: UNAVAILABLE_UDID.into(),
        name: "iPhone 15 Pro".into(),
        runtime: "com.apple.CoreSimulator.SimRuntime.iOS-17-2".into(),
        device_type: "com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro".into(),
        available: false,
        availability_error: Some("runtime profile not found using \"System\" match policy".into()),
        width_points: 393,
        height_points: 852,
        ..ipad.clone()
    };
    IosState {
        home: default_home(),
        simulators: vec![phone, ipad, old],
        empty_runtimes: vec!["com.apple.CoreSimulator.SimRuntime.watchOS-11-5".into()],
        idb_version: default_idb(),
    }
}
