//! What a flow is once read: its config and its steps, each with the line it came from.
//!
//! The shapes follow Maestro's YAML models (`maestro-orchestra/src/main/java/maestro/
//! orchestra/yaml/`: `YamlConfig.kt`, `YamlFluentCommand.kt`, `YamlElementSelector.kt`,
//! `YamlSwipe.kt`, `YamlScrollUntilVisible.kt`, `YamlExtendedWaitUntil.kt`, …) for the
//! subset this crate runs.

use std::time::Duration;

/// A flow: the config document, then the steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// The first document.
    pub config: Config,
    /// The second document, in order.
    pub steps: Vec<Step>,
}

/// The config document (`appId`, `name`, `tags`, `env`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// The app `launchApp` and friends act on when they name none.
    pub app_id: Option<String>,
    /// The flow's name (else the file's name).
    pub name: Option<String>,
    /// Tags, as written.
    pub tags: Vec<String>,
    /// Variables for `${NAME}`, as written (before outside values override them).
    pub env: Vec<(String, String)>,
}

/// One command of a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The line the command starts on (in the file named by `file`, or the flow's own).
    pub line: usize,
    /// The file the step was read from, when it came through `runFlow: file`.
    pub file: Option<String>,
    /// `label:`, a caption shown instead of the command.
    pub label: Option<String>,
    /// `optional: true`: a failure is reported and the flow goes on.
    pub optional: bool,
    /// What to do.
    pub command: Command,
}

/// The commands this crate runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Stop the app, then launch it.
    LaunchApp(LaunchApp),
    /// `tapOn`, `doubleTapOn`, `longPressOn`.
    Tap {
        /// Which tap.
        kind: TapKind,
        /// An element or a point.
        target: Target,
    },
    /// Type text into the focused field.
    InputText(String),
    /// Delete this many characters before the cursor.
    EraseText(u32),
    /// Wait (up to the lookup timeout) until an element is visible.
    AssertVisible(Selector),
    /// Wait (up to the lookup timeout) until no element matches.
    AssertNotVisible(Selector),
    /// Wait up to `timeout` for `visible` to show or `not_visible` to go.
    ExtendedWaitUntil {
        /// Wait until this shows.
        visible: Option<Selector>,
        /// Wait until this has gone.
        not_visible: Option<Selector>,
        /// How long at most.
        timeout: Duration,
    },
    /// Scroll the screen down once (a swipe up from the centre).
    Scroll,
    /// A swipe.
    Swipe(Swipe),
    /// Swipe until an element is visible.
    ScrollUntilVisible {
        /// The element.
        element: Selector,
        /// Which way the content moves into view (`DOWN`: scroll down).
        direction: Direction,
        /// How long at most.
        timeout: Duration,
        /// How much of the element must be on screen, 0..=100.
        visibility: u8,
        /// Keep scrolling until the element is near the centre.
        center: bool,
    },
    /// The back button.
    Back,
    /// A named key (Maestro's `KeyCode` descriptions: "Enter", "Back", "Home", …).
    PressKey(String),
    /// Close the software keyboard.
    HideKeyboard,
    /// Open a URL or deep link.
    OpenLink(String),
    /// Wait until the screen stops changing, at most `timeout`.
    WaitForAnimationToEnd {
        /// At most this long (Maestro's default when absent).
        timeout: Option<Duration>,
    },
    /// Save a screenshot under this name (`.png` added).
    TakeScreenshot(String),
    /// Run other steps (from a file or inline).
    RunFlow {
        /// The file, as written, when the steps came from one.
        file: Option<String>,
        /// The steps.
        steps: Vec<Step>,
    },
    /// Mock the device's location.
    SetLocation {
        /// Degrees north.
        latitude: f64,
        /// Degrees east.
        longitude: f64,
    },
    /// Run steps several times, or while a condition holds.
    Repeat {
        /// At most this many times.
        times: Option<u32>,
        /// Only while this holds (checked before each round).
        condition: Option<Condition>,
        /// The steps.
        steps: Vec<Step>,
    },
}

/// `launchApp`'s options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaunchApp {
    /// The app (the config's `appId` when not given).
    pub app_id: String,
    /// `clearState: true`.
    pub clear_state: Option<bool>,
    /// `permissions: {name: allow|deny}`, as written.
    pub permissions: Option<Vec<(String, String)>>,
    /// `arguments: {key: value}`, as written.
    pub arguments: Option<Vec<(String, String)>>,
    /// `stopApp: false` launches without stopping first.
    pub stop_app: bool,
}

/// Which tap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapKind {
    /// `tapOn`.
    Tap,
    /// `doubleTapOn`.
    Double,
    /// `longPressOn`.
    Long,
}

impl TapKind {
    /// The command's name in a flow.
    pub fn command(self) -> &'static str {
        match self {
            TapKind::Tap => "tapOn",
            TapKind::Double => "doubleTapOn",
            TapKind::Long => "longPressOn",
        }
    }
}

/// Where a tap lands.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// The element a selector finds.
    Element(Selector),
    /// A point.
    Point(PointSpec),
}

/// `point: "x%, y%"` or `point: "x, y"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointSpec {
    /// Percent of the screen's width and height, 0..=100.
    Percent(u8, u8),
    /// Screen coordinates (pixels on Android, points on iOS).
    Absolute(i32, i32),
}

/// A swipe, as one of Maestro's four forms (`YamlSwipe.kt`).
#[derive(Debug, Clone, PartialEq)]
pub enum Swipe {
    /// `direction:` from the screen's centre.
    Direction(Direction, Duration),
    /// `start`/`end` in screen coordinates or percents.
    Points(PointSpec, PointSpec, Duration),
    /// `direction` and `from`: a swipe starting on an element.
    FromElement(Selector, Direction, Duration),
}

/// A direction of a swipe or scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Up.
    Up,
    /// Down.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
}

impl Direction {
    /// The name Maestro writes.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "UP",
            Direction::Down => "DOWN",
            Direction::Left => "LEFT",
            Direction::Right => "RIGHT",
        }
    }
}

/// `repeat: while:`: `visible` / `notVisible`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Holds while this element is visible.
    pub visible: Option<Selector>,
    /// Holds while no element matches this.
    pub not_visible: Option<Selector>,
}

/// An element selector (Maestro's `ElementSelector`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selector {
    /// A regex the whole text (or hint, or accessibility text) must match.
    pub text: Option<String>,
    /// A regex the whole resource id (or the part after `/`) must match.
    pub id: Option<String>,
    /// The n-th match, top to bottom then left to right.
    pub index: Option<usize>,
    /// Relational filters.
    pub below: Option<Box<Selector>>,
    /// Relational filters.
    pub above: Option<Box<Selector>>,
    /// Relational filters.
    pub left_of: Option<Box<Selector>>,
    /// Relational filters.
    pub right_of: Option<Box<Selector>>,
    /// Inside the element this finds.
    pub child_of: Option<Box<Selector>>,
    /// Holding the element this finds.
    pub contains_child: Option<Box<Selector>>,
    /// State filters.
    pub enabled: Option<bool>,
    /// State filters.
    pub checked: Option<bool>,
    /// State filters.
    pub focused: Option<bool>,
    /// State filters.
    pub selected: Option<bool>,
}

impl Selector {
    /// A selector of one text regex (Maestro's bare string form).
    pub fn text(t: impl Into<String>) -> Self {
        Selector {
            text: Some(t.into()),
            ..Default::default()
        }
    }

    /// How a report names it: `text "OK", index 1, below (id "title")`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.text {
            parts.push(format!("text {t:?}"));
        }
        if let Some(i) = &self.id {
            parts.push(format!("id {i:?}"));
        }
        let rel = [
            ("below", &self.below),
            ("above", &self.above),
            ("leftOf", &self.left_of),
            ("rightOf", &self.right_of),
            ("childOf", &self.child_of),
            ("containsChild", &self.contains_child),
        ];
        for (name, s) in rel {
            if let Some(s) = s {
                parts.push(format!("{name} ({})", s.describe()));
            }
        }
        let states = [
            ("enabled", self.enabled),
            ("checked", self.checked),
            ("focused", self.focused),
            ("selected", self.selected),
        ];
        for (name, v) in states {
            if let Some(v) = v {
                parts.push(format!("{name}: {v}"));
            }
        }
        if let Some(i) = self.index {
            parts.push(format!("index {i}"));
        }
        if parts.is_empty() {
            "any element".into()
        } else {
            parts.join(", ")
        }
    }
}

impl Command {
    /// The command's name in a flow.
    pub fn name(&self) -> &'static str {
        match self {
            Command::LaunchApp(_) => "launchApp",
            Command::Tap { kind, .. } => kind.command(),
            Command::InputText(_) => "inputText",
            Command::EraseText(_) => "eraseText",
            Command::AssertVisible(_) => "assertVisible",
            Command::AssertNotVisible(_) => "assertNotVisible",
            Command::ExtendedWaitUntil { .. } => "extendedWaitUntil",
            Command::Scroll => "scroll",
            Command::Swipe(_) => "swipe",
            Command::ScrollUntilVisible { .. } => "scrollUntilVisible",
            Command::Back => "back",
            Command::PressKey(_) => "pressKey",
            Command::HideKeyboard => "hideKeyboard",
            Command::OpenLink(_) => "openLink",
            Command::WaitForAnimationToEnd { .. } => "waitForAnimationToEnd",
            Command::TakeScreenshot(_) => "takeScreenshot",
            Command::RunFlow { .. } => "runFlow",
            Command::SetLocation { .. } => "setLocation",
            Command::Repeat { .. } => "repeat",
        }
    }
}
