//! The phone's state: packages and their screens, the activity stack, settings, files, logs.
//!
//! Everything here is plain data (serde), so a scenario can be loaded from JSON (`--state`) and
//! tests can snapshot and edit it. Screens are *declared* as lists of elements; their pixel
//! geometry is computed by `crate::layout` from the screen size and rotation, so the same
//! screen lays out in portrait and landscape.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

mod actions;
pub mod app_data;
pub mod clipboard;
mod dialog;
pub mod location;

pub use app_data::{Extra, StartedIntent};
pub use dialog::Dialog;
pub(crate) use dialog::{BUTTON_SP, MESSAGE_SP, TITLE_SP, window as dialog_window, wrap};

/// The launcher (home screen) package.
pub const LAUNCHER_PACKAGE: &str = "com.android.launcher3";
/// The launcher activity.
pub const LAUNCHER_ACTIVITY: &str = "com.android.launcher3.uioverrides.QuickstepLauncher";

/// What kind of widget an element is; decides its class name, height and colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    /// A TextView that is only text.
    Text,
    /// A Button.
    Button,
    /// An EditText (focusable, takes typed text).
    EditText,
    /// A Switch (checkable).
    Switch,
    /// An ImageView.
    Image,
    /// A clickable row in a list (TextView).
    ListItem,
    /// A launcher icon (TextView with text and content-desc = label).
    AppIcon,
}

impl ElementKind {
    /// The Android class name uiautomator reports.
    pub fn class_name(self) -> &'static str {
        match self {
            ElementKind::Text | ElementKind::ListItem | ElementKind::AppIcon => {
                "android.widget.TextView"
            }
            ElementKind::Button => "android.widget.Button",
            ElementKind::EditText => "android.widget.EditText",
            ElementKind::Switch => "android.widget.Switch",
            ElementKind::Image => "android.widget.ImageView",
        }
    }
}

/// What tapping an element (or pressing ENTER in a field) does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Open another screen of the same app (pushed on the back stack).
    Navigate {
        /// The target screen's name.
        screen: String,
    },
    /// Like the BACK key.
    Back,
    /// Launch an app's launcher activity.
    Launch {
        /// The package to launch.
        package: String,
    },
    /// Flip `checked`.
    Toggle,
    /// The app crashes: a Java crash is appended to the crash (and main) log buffers and the
    /// app's activities leave the stack.
    Crash {
        /// The exception class and message of the crash.
        exception: String,
    },
    /// Append the text of field `field` (same screen) as a new text element on screen `to`
    /// (with `prefix`), clear the field, and go to `to` (pop back if it is below on the stack).
    Submit {
        /// Resource id or key of the text field whose text is submitted.
        field: String,
        /// The screen that receives the new text element.
        to: String,
        /// Put before the submitted text.
        prefix: String,
    },
    /// Show an alert dialog over the screen ([`Dialog`]); its buttons dismiss it.
    ShowDialog {
        /// The dialog.
        dialog: Dialog,
    },
    /// Remove the elements with any of these resource ids from screen `screen` of the same
    /// app (what a "delete" confirms).
    Remove {
        /// The screen to remove them from.
        screen: String,
        /// The resource ids of the elements removed.
        ids: Vec<String>,
    },
}

/// One element of a screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Element {
    /// What kind of widget it is.
    pub kind: ElementKind,
    #[serde(default)]
    /// The visible text.
    pub text: String,
    /// Full resource id (`pkg:id/name`) or empty.
    #[serde(default)]
    pub resource_id: String,
    #[serde(default)]
    /// The `content-desc` (accessibility label).
    pub content_desc: String,
    /// Hint shown by an empty EditText.
    #[serde(default)]
    pub hint: String,
    #[serde(default)]
    /// Whether a checkbox or switch is on.
    pub checked: bool,
    #[serde(default = "yes")]
    /// Whether the element reacts to taps.
    pub enabled: bool,
    #[serde(default)]
    /// Whether a text field hides its text.
    pub password: bool,
    #[serde(default)]
    /// What tapping it does, if anything.
    pub action: Option<Action>,
}

fn yes() -> bool {
    true
}

impl Element {
    /// An element of `kind` showing `text`, enabled, with no id or action.
    pub fn new(kind: ElementKind, text: &str) -> Self {
        Element {
            kind,
            text: text.to_string(),
            resource_id: String::new(),
            content_desc: String::new(),
            hint: String::new(),
            checked: false,
            enabled: true,
            password: false,
            action: None,
        }
    }
    /// With resource id `id` (`pkg:id/name`).
    pub fn id(mut self, id: &str) -> Self {
        self.resource_id = id.to_string();
        self
    }
    /// With content-desc `d`.
    pub fn desc(mut self, d: &str) -> Self {
        self.content_desc = d.to_string();
        self
    }
    /// With hint `h` (shown by an empty text field).
    pub fn hint(mut self, h: &str) -> Self {
        self.hint = h.to_string();
        self
    }
    /// With a tap action.
    pub fn action(mut self, a: Action) -> Self {
        self.action = Some(a);
        self
    }
    /// With `checked` set.
    pub fn checked(mut self, c: bool) -> Self {
        self.checked = c;
        self
    }
    /// Clickable as uiautomator reports it.
    pub fn clickable(&self) -> bool {
        self.action.is_some()
            || matches!(
                self.kind,
                ElementKind::Button
                    | ElementKind::EditText
                    | ElementKind::Switch
                    | ElementKind::AppIcon
                    | ElementKind::ListItem
            )
    }
}

/// One screen of an app: shown by one activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Screen {
    /// Activity class (full name) that shows this screen.
    pub activity: String,
    /// Toolbar title (empty = no toolbar).
    #[serde(default)]
    pub title: String,
    /// The elements, top to bottom.
    pub elements: Vec<Element>,
}

/// An installed package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    /// The package name (`com.example.app`).
    pub name: String,
    /// Launcher label.
    pub label: String,
    /// Whether it is a system package (`pm list packages -s`).
    pub system: bool,
    #[serde(default = "default_version_name")]
    /// `versionName` (`dumpsys package`).
    pub version_name: String,
    #[serde(default = "default_version_code")]
    /// `versionCode` (`dumpsys package`).
    pub version_code: u64,
    /// Path `pm list packages -f` shows.
    pub apk_path: String,
    /// The Linux uid (`pm list packages -U`).
    pub uid: u32,
    /// Full class name of the MAIN/LAUNCHER activity, if it has one.
    pub launcher_activity: Option<String>,
    /// All activity class names (full).
    pub activities: Vec<String>,
    /// Screens by name; `main_screen` is where the launcher activity starts.
    pub screens: BTreeMap<String, Screen>,
    /// The screen the launcher activity opens.
    pub main_screen: String,
    /// The permissions its manifest requests (`<uses-permission>`).
    #[serde(default)]
    pub permissions: Vec<String>,
    /// Its runtime permissions now granted ([`app_data`]).
    #[serde(default)]
    pub granted: BTreeSet<String>,
    /// URL schemes its VIEW intent filters take, each with the screen it opens.
    #[serde(default)]
    pub link_schemes: BTreeMap<String, String>,
    /// Its screens as installed, kept when the app first changes one; `pm clear` puts
    /// them back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_screens: Option<BTreeMap<String, Screen>>,
}

fn default_version_name() -> String {
    "1.0".into()
}
fn default_version_code() -> u64 {
    1
}

/// One entry of the activity stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Frame {
    /// The package of the activity.
    pub package: String,
    /// The activity class (full name).
    pub activity: String,
    /// The screen it shows (a key of the package's `screens`).
    pub screen: String,
    /// Resource id (or index as `#N`) of the focused field on this screen.
    #[serde(default)]
    pub focused: Option<String>,
    /// Task id shown in dumpsys (`t12`).
    #[serde(default)]
    pub task: u32,
    /// How far the screen's list is scrolled, in pixels.
    #[serde(default)]
    pub scroll: i32,
    /// The alert dialog the activity shows over its screen, if any.
    #[serde(default)]
    pub dialog: Option<Dialog>,
    /// The intent the activity was started with (`am start`), if known.
    #[serde(default)]
    pub intent: Option<StartedIntent>,
}

/// A file on the phone's storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    #[serde(with = "bytes_as_base64ish")]
    /// The contents.
    pub data: Vec<u8>,
    /// Unix mode bits including the file type (`0o100644`).
    pub mode: u32,
    /// Seconds since the epoch.
    pub mtime: u32,
}

/// Serializes bytes as a UTF-8 string when possible, else as an array (keeps scenarios readable).
mod bytes_as_base64ish {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Text(String),
        Bytes(Vec<u8>),
    }

    /// Writes UTF-8 data as a string, anything else as a byte array.
    pub(super) fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(data) {
            Ok(t) => Repr::Text(t.to_string()).serialize(s),
            Err(_) => Repr::Bytes(data.to_vec()).serialize(s),
        }
    }
    /// Reads a string or a byte array.
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Ok(match Repr::deserialize(d)? {
            Repr::Text(t) => t.into_bytes(),
            Repr::Bytes(b) => b,
        })
    }
}

/// One logcat line (threadtime fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// Milliseconds since the epoch.
    pub time_ms: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// V, D, I, W, E, F.
    pub level: char,
    /// The log tag.
    pub tag: String,
    /// The message text.
    pub message: String,
}

/// Display geometry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Display {
    /// Physical width in pixels (portrait).
    pub width: u32,
    /// Physical height in pixels (portrait).
    pub height: u32,
    /// Physical density in dpi.
    pub density: u32,
    #[serde(default)]
    /// `wm size` override, if set.
    pub override_size: Option<(u32, u32)>,
    #[serde(default)]
    /// `wm density` override, if set.
    pub override_density: Option<u32>,
}

/// An input event the phone received (for tests that assert on gestures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputEvent {
    /// `input tap`.
    Tap {
        /// X in pixels.
        x: f64,
        /// Y in pixels.
        y: f64,
    },
    /// `input swipe`.
    Swipe {
        /// Start X.
        x1: f64,
        /// Start Y.
        y1: f64,
        /// End X.
        x2: f64,
        /// End Y.
        y2: f64,
        /// Duration in milliseconds.
        duration_ms: u64,
    },
    /// A swipe that stays in place (a long press).
    LongPress {
        /// X in pixels.
        x: f64,
        /// Y in pixels.
        y: f64,
        /// Duration in milliseconds.
        duration_ms: u64,
    },
    /// `input draganddrop`.
    DragAndDrop {
        /// Start X.
        x1: f64,
        /// Start Y.
        y1: f64,
        /// End X.
        x2: f64,
        /// End Y.
        y2: f64,
        /// Duration in milliseconds.
        duration_ms: u64,
    },
    /// `input text` (or ADBKeyboard) typing.
    Text {
        /// The text as typed.
        text: String,
    },
    /// `input keyevent` / `input press`.
    Key {
        /// The key code (`KeyEvent.KEYCODE_*`).
        code: u32,
        /// The key's name (`KEYCODE_HOME`).
        name: String,
    },
}

/// The whole phone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PhoneState {
    /// `getprop` values.
    pub props: BTreeMap<String, String>,
    /// Installed packages by name.
    pub packages: BTreeMap<String, Package>,
    /// Activity stack, bottom first; the last frame is in the foreground.
    pub stack: Vec<Frame>,
    /// `settings` namespaces: "system", "secure", "global".
    pub settings: BTreeMap<String, BTreeMap<String, String>>,
    /// Display geometry.
    pub display: Display,
    /// The clipboard's text.
    pub clipboard: String,
    /// The clipboard service's other state ([`clipboard`]).
    pub clip: clipboard::ClipService,
    /// The `main` log buffer.
    pub logcat: Vec<LogLine>,
    /// The `crash` log buffer.
    pub crash_log: Vec<LogLine>,
    /// Files by normalized path.
    pub files: BTreeMap<String, FileEntry>,
    /// Directories that exist (besides the parents of files).
    pub dirs: BTreeSet<String>,
    /// Every input event received, oldest first.
    pub input_events: Vec<InputEvent>,
    /// URL Chrome shows.
    pub browser_url: String,
    /// Locale per package set by `cmd locale set-app-locales`.
    pub app_locales: BTreeMap<String, String>,
    /// Task id the next started activity gets.
    pub next_task: u32,
    /// Uid the next installed package gets.
    pub next_uid: u32,
    /// Whether the screen is on (off captures black).
    pub screen_on: bool,
    /// The device profile: release and real-device traits ([`crate::profile`]).
    pub profile: crate::profile::Profile,
    /// Screens that change with time (transitions, late content, …): see [`crate::living`].
    pub living: crate::living::Life,
    /// Test location providers and the app ops that gate them ([`location`]).
    pub location: location::LocationState,
}

impl Default for PhoneState {
    fn default() -> Self {
        crate::scenario::default_state()
    }
}

impl PhoneState {
    /// The frame in the foreground.
    pub fn foreground(&self) -> Option<&Frame> {
        self.stack.last()
    }

    /// Package name in the foreground.
    pub fn foreground_package(&self) -> Option<&str> {
        self.stack.last().map(|f| f.package.as_str())
    }

    /// The screen in the foreground.
    pub fn current_screen(&self) -> Option<&Screen> {
        let f = self.stack.last()?;
        self.packages.get(&f.package)?.screens.get(&f.screen)
    }

    pub(crate) fn current_screen_mut(&mut self) -> Option<&mut Screen> {
        let f = self.stack.last()?.clone();
        self.app_screen_mut(&f.package, &f.screen)
    }

    /// The display's current rotation (0..=3): `user_rotation` unless the profile's app in
    /// front asks for another ([`crate::profile::current_rotation`]).
    pub fn rotation(&self) -> u32 {
        crate::profile::current_rotation(self)
    }

    /// A setting value.
    pub fn setting(&self, namespace: &str, key: &str) -> Option<&str> {
        self.settings.get(namespace)?.get(key).map(String::as_str)
    }

    /// Sets a setting value.
    pub fn set_setting(&mut self, namespace: &str, key: &str, value: &str) {
        self.settings
            .entry(namespace.to_string())
            .or_default()
            .insert(key.to_string(), value.to_string());
    }

    /// Screen size in the current orientation (what screencap produces).
    pub fn oriented_size(&self) -> (u32, u32) {
        let (w, h) = self
            .display
            .override_size
            .unwrap_or((self.display.width, self.display.height));
        if self.rotation() % 2 == 1 {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// The focused field's text, if a field is focused.
    pub fn focused_text(&self) -> Option<String> {
        let f = self.stack.last()?;
        let id = f.focused.as_ref()?;
        let screen = self.current_screen()?;
        find_element(screen, id).map(|e| e.text.clone())
    }
}

/// `pkg/.Act` when the activity is inside the package, else `pkg/full.Act` (as `am` prints).
pub fn short_component(package: &str, activity: &str) -> String {
    match activity.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => format!("{package}/{rest}"),
        _ => format!("{package}/{activity}"),
    }
}

pub(crate) fn launcher_frame() -> Frame {
    Frame {
        package: LAUNCHER_PACKAGE.into(),
        activity: LAUNCHER_ACTIVITY.into(),
        screen: "home".into(),
        focused: None,
        task: 1,
        scroll: 0,
        dialog: None,
        intent: None,
    }
}

/// The key an element is known by on its screen: its resource id, or `#index`.
pub fn element_key(screen: &Screen, index: usize) -> String {
    let e = &screen.elements[index];
    let same = screen
        .elements
        .iter()
        .filter(|o| !e.resource_id.is_empty() && o.resource_id == e.resource_id)
        .count();
    if !e.resource_id.is_empty() && same == 1 {
        e.resource_id.clone()
    } else {
        format!("#{index}")
    }
}

pub(crate) fn find_element<'a>(screen: &'a Screen, key: &str) -> Option<&'a Element> {
    if let Some(i) = key.strip_prefix('#') {
        return screen.elements.get(i.parse::<usize>().ok()?);
    }
    screen.elements.iter().find(|e| e.resource_id == key)
}

pub(crate) fn find_element_mut<'a>(screen: &'a mut Screen, key: &str) -> Option<&'a mut Element> {
    if let Some(i) = key.strip_prefix('#') {
        return screen.elements.get_mut(i.parse::<usize>().ok()?);
    }
    screen.elements.iter_mut().find(|e| e.resource_id == key)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
