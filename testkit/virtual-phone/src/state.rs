//! The phone's state: packages and their screens, the activity stack, settings, files, logs.
//!
//! Everything here is plain data (serde), so a scenario can be loaded from JSON (`--state`) and
//! tests can snapshot and edit it. Screens are *declared* as lists of elements; their pixel
//! geometry is computed by [`crate::layout`] from the screen size and rotation, so the same
//! screen lays out in portrait and landscape.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

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
    Navigate { screen: String },
    /// Like the BACK key.
    Back,
    /// Launch an app's launcher activity.
    Launch { package: String },
    /// Flip `checked`.
    Toggle,
    /// The app crashes: a Java crash is appended to the crash (and main) log buffers and the
    /// app's activities leave the stack.
    Crash { exception: String },
    /// Append the text of field `field` (same screen) as a new text element on screen `to`
    /// (with `prefix`), clear the field, and go to `to` (pop back if it is below on the stack).
    Submit {
        field: String,
        to: String,
        prefix: String,
    },
}

/// One element of a screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Element {
    pub kind: ElementKind,
    #[serde(default)]
    pub text: String,
    /// Full resource id (`pkg:id/name`) or empty.
    #[serde(default)]
    pub resource_id: String,
    #[serde(default)]
    pub content_desc: String,
    /// Hint shown by an empty EditText.
    #[serde(default)]
    pub hint: String,
    #[serde(default)]
    pub checked: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub password: bool,
    #[serde(default)]
    pub action: Option<Action>,
}

fn yes() -> bool {
    true
}

impl Element {
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
    pub fn id(mut self, id: &str) -> Self {
        self.resource_id = id.to_string();
        self
    }
    pub fn desc(mut self, d: &str) -> Self {
        self.content_desc = d.to_string();
        self
    }
    pub fn hint(mut self, h: &str) -> Self {
        self.hint = h.to_string();
        self
    }
    pub fn action(mut self, a: Action) -> Self {
        self.action = Some(a);
        self
    }
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
    pub elements: Vec<Element>,
}

/// An installed package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    /// Launcher label.
    pub label: String,
    pub system: bool,
    #[serde(default = "default_version_name")]
    pub version_name: String,
    #[serde(default = "default_version_code")]
    pub version_code: u64,
    /// Path `pm list packages -f` shows.
    pub apk_path: String,
    pub uid: u32,
    /// Full class name of the MAIN/LAUNCHER activity, if it has one.
    pub launcher_activity: Option<String>,
    /// All activity class names (full).
    pub activities: Vec<String>,
    /// Screens by name; `main_screen` is where the launcher activity starts.
    pub screens: BTreeMap<String, Screen>,
    pub main_screen: String,
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
    pub package: String,
    pub activity: String,
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
}

/// A file on the phone's storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    #[serde(with = "bytes_as_base64ish")]
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

    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(data) {
            Ok(t) => Repr::Text(t.to_string()).serialize(s),
            Err(_) => Repr::Bytes(data.to_vec()).serialize(s),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
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
    pub pid: u32,
    pub tid: u32,
    /// V, D, I, W, E, F.
    pub level: char,
    pub tag: String,
    pub message: String,
}

/// Display geometry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Display {
    pub width: u32,
    pub height: u32,
    pub density: u32,
    #[serde(default)]
    pub override_size: Option<(u32, u32)>,
    #[serde(default)]
    pub override_density: Option<u32>,
}

/// An input event the phone received (for tests that assert on gestures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputEvent {
    Tap {
        x: f64,
        y: f64,
    },
    Swipe {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        duration_ms: u64,
    },
    LongPress {
        x: f64,
        y: f64,
        duration_ms: u64,
    },
    DragAndDrop {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        duration_ms: u64,
    },
    Text {
        text: String,
    },
    Key {
        code: u32,
        name: String,
    },
}

/// The whole phone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PhoneState {
    /// `getprop` values.
    pub props: BTreeMap<String, String>,
    pub packages: BTreeMap<String, Package>,
    /// Activity stack, bottom first; the last frame is in the foreground.
    pub stack: Vec<Frame>,
    /// `settings` namespaces: "system", "secure", "global".
    pub settings: BTreeMap<String, BTreeMap<String, String>>,
    pub display: Display,
    pub clipboard: String,
    /// The `main` log buffer.
    pub logcat: Vec<LogLine>,
    /// The `crash` log buffer.
    pub crash_log: Vec<LogLine>,
    pub files: BTreeMap<String, FileEntry>,
    pub dirs: BTreeSet<String>,
    /// Every input event received, oldest first.
    pub input_events: Vec<InputEvent>,
    /// URL Chrome shows.
    pub browser_url: String,
    /// Locale per package set by `cmd locale set-app-locales`.
    pub app_locales: BTreeMap<String, String>,
    pub next_task: u32,
    pub next_uid: u32,
    pub screen_on: bool,
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
        self.packages
            .get_mut(&f.package)?
            .screens
            .get_mut(&f.screen)
    }

    /// `user_rotation` (0..=3) from the system settings.
    pub fn rotation(&self) -> u32 {
        self.setting("system", "user_rotation")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .map(|r| r % 4)
            .unwrap_or(0)
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

    /// Appends a log line stamped now.
    pub fn log(&mut self, level: char, tag: &str, message: &str) {
        self.logcat.push(LogLine {
            time_ms: now_ms(),
            pid: 1234,
            tid: 1234,
            level,
            tag: tag.to_string(),
            message: message.to_string(),
        });
        if self.logcat.len() > 5000 {
            let excess = self.logcat.len() - 5000;
            self.logcat.drain(..excess);
        }
    }

    /// Resolves `.Act` / `Act` / full names against a package.
    pub fn resolve_activity(&self, package: &str, activity: &str) -> String {
        if let Some(rest) = activity.strip_prefix('.') {
            format!("{package}.{rest}")
        } else if !activity.contains('.') {
            format!("{package}.{activity}")
        } else {
            activity.to_string()
        }
    }

    /// Puts `package`'s `activity` (or its launcher activity) in the foreground.
    /// Returns the full activity name, or an error message like `am` prints.
    pub fn start_activity(
        &mut self,
        package: &str,
        activity: Option<&str>,
    ) -> Result<String, String> {
        let Some(pkg) = self.packages.get(package) else {
            return Err(format!(
                "Error type 3\nError: Activity class {{{package}/{}}} does not exist.",
                activity.unwrap_or("")
            ));
        };
        let activity = match activity {
            Some(a) => self.resolve_activity(package, a),
            None => match &pkg.launcher_activity {
                Some(a) => a.clone(),
                None => return Err(format!("Error: no launcher activity in {package}")),
            },
        };
        if !pkg.activities.contains(&activity) {
            return Err(format!(
                "Error type 3\nError: Activity class {{{package}/{activity}}} does not exist."
            ));
        }
        let screen = if pkg.launcher_activity.as_deref() == Some(activity.as_str()) {
            pkg.main_screen.clone()
        } else {
            pkg.screens
                .iter()
                .find(|(_, s)| s.activity == activity)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| pkg.main_screen.clone())
        };
        // A launcher alias (Chrome's `…chrome.Main`) resolves to the activity that shows the
        // screen, which is what dumpsys then reports.
        let activity = pkg
            .screens
            .get(&screen)
            .map(|s| s.activity.clone())
            .filter(|a| !a.is_empty())
            .unwrap_or(activity);
        if package == LAUNCHER_PACKAGE {
            self.go_home();
            return Ok(activity);
        }
        // Bring the app's task to the front with this activity on top.
        let task = self
            .stack
            .iter()
            .find(|f| f.package == package)
            .map(|f| f.task)
            .unwrap_or_else(|| {
                self.next_task += 1;
                self.next_task
            });
        self.stack.retain(|f| f.package != package);
        self.stack.push(Frame {
            package: package.to_string(),
            activity: activity.clone(),
            screen,
            focused: None,
            task,
            scroll: 0,
        });
        let comp = short_component(package, &activity);
        self.log(
            'I',
            "ActivityTaskManager",
            &format!("START u0 {{flg=0x10000000 cmp={comp}}} from uid 2000"),
        );
        Ok(activity)
    }

    /// HOME: the launcher alone on the stack.
    pub fn go_home(&mut self) {
        self.stack.retain(|f| f.package == LAUNCHER_PACKAGE);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        self.stack.truncate(1);
        if let Some(f) = self.stack.last_mut() {
            f.focused = None;
        }
    }

    /// BACK: pop one frame (never the launcher).
    pub fn go_back(&mut self) {
        if let Some(f) = self.stack.last_mut()
            && f.focused.take().is_some()
            && f.package != LAUNCHER_PACKAGE
        {
            // First BACK closes the keyboard, like a real IME.
            return;
        }
        if self.stack.len() > 1 {
            self.stack.pop();
        }
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
    }

    /// `am force-stop`.
    pub fn force_stop(&mut self, package: &str) {
        if package == LAUNCHER_PACKAGE {
            return;
        }
        let was = self.stack.iter().any(|f| f.package == package);
        self.stack.retain(|f| f.package != package);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        if was {
            self.log(
                'I',
                "ActivityManager",
                &format!("Force stopping {package} appid=10123 user=0: from pid 4242"),
            );
        }
    }

    /// Navigates inside the foreground app.
    pub fn navigate(&mut self, screen: &str) {
        let Some(top) = self.stack.last().cloned() else {
            return;
        };
        let Some(pkg) = self.packages.get(&top.package) else {
            return;
        };
        let Some(target) = pkg.screens.get(screen) else {
            return;
        };
        // Going to a screen already below on the stack pops back to it.
        if let Some(i) = self
            .stack
            .iter()
            .rposition(|f| f.package == top.package && f.screen == screen)
        {
            self.stack.truncate(i + 1);
            if let Some(f) = self.stack.last_mut() {
                f.focused = None;
            }
            return;
        }
        let activity = target.activity.clone();
        self.stack.push(Frame {
            package: top.package.clone(),
            activity,
            screen: screen.to_string(),
            focused: None,
            task: top.task,
            scroll: 0,
        });
    }

    /// Types `text` into the focused field. Returns false when no field is focused.
    pub fn type_text(&mut self, text: &str) -> bool {
        let Some(id) = self.stack.last().and_then(|f| f.focused.clone()) else {
            return false;
        };
        match self
            .current_screen_mut()
            .and_then(|s| find_element_mut(s, &id))
        {
            Some(e) => {
                e.text.push_str(text);
                true
            }
            None => false,
        }
    }

    /// Runs an element's action.
    pub fn run_action(&mut self, action: &Action, element_key: &str) {
        match action {
            Action::Navigate { screen } => self.navigate(screen),
            Action::Back => self.go_back(),
            Action::Launch { package } => {
                let _ = self.start_activity(package, None);
            }
            Action::Crash { exception } => self.crash_foreground(exception),
            Action::Toggle => {
                if let Some(e) = self
                    .current_screen_mut()
                    .and_then(|s| find_element_mut(s, element_key))
                {
                    e.checked = !e.checked;
                }
            }
            Action::Submit { field, to, prefix } => {
                let text = self
                    .current_screen_mut()
                    .and_then(|s| find_element_mut(s, field))
                    .map(|e| std::mem::take(&mut e.text))
                    .unwrap_or_default();
                if let Some(f) = self.stack.last_mut() {
                    f.focused = None;
                }
                let Some(top) = self.stack.last().cloned() else {
                    return;
                };
                if !text.is_empty()
                    && let Some(screen) = self
                        .packages
                        .get_mut(&top.package)
                        .and_then(|p| p.screens.get_mut(to))
                {
                    let id = format!("{}:id/item", top.package);
                    screen
                        .elements
                        .push(Element::new(ElementKind::Text, &format!("{prefix}{text}")).id(&id));
                }
                self.navigate(to);
            }
        }
    }

    /// Crashes the foreground app with `exception` (see [`Action::Crash`]).
    pub fn crash_foreground(&mut self, exception: &str) {
        let Some(top) = self.stack.last().cloned() else {
            return;
        };
        if top.package == LAUNCHER_PACKAGE {
            return;
        }
        let uid = self
            .packages
            .get(&top.package)
            .map(|p| p.uid)
            .unwrap_or(10000);
        let pid = crate::commands::app_pid(uid);
        let now = now_ms();
        let class = top
            .activity
            .rsplit('.')
            .next()
            .unwrap_or("MainActivity")
            .to_string();
        let lines = [
            "FATAL EXCEPTION: main".to_string(),
            format!("Process: {}, PID: {pid}", top.package),
            exception.to_string(),
            format!("\tat {}.onClick({class}.java:57)", top.activity),
            "\tat android.view.View.performClick(View.java:7659)".to_string(),
            "\tat android.os.Handler.handleCallback(Handler.java:958)".to_string(),
        ];
        for message in lines {
            let line = LogLine {
                time_ms: now,
                pid,
                tid: pid,
                level: 'E',
                tag: "AndroidRuntime".into(),
                message,
            };
            self.crash_log.push(line.clone());
            self.logcat.push(line);
        }
        self.stack.retain(|f| f.package != top.package);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        self.log(
            'I',
            "ActivityManager",
            &format!("Process {} (pid {pid}) has died: fg  TOP ", top.package),
        );
    }

    /// Focuses the element with `key` on the current screen.
    pub fn focus(&mut self, key: Option<String>) {
        if let Some(f) = self.stack.last_mut() {
            f.focused = key;
        }
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
