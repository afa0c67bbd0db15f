//! What a recorder keeps of one action that succeeded: the action, the element it
//! actually hit, the screen's element list at that moment and the list the observation
//! after it showed. [`crate::export_flow`] turns a list of these into a flow.

use mobile_device::{ArgumentValue, Element, LaunchOptions, Point};
use serde::{Deserialize, Serialize};

/// One action that succeeded, with what the agent saw around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedStep {
    /// What was done.
    pub action: RecordedAction,
    /// The element the action hit (found by ref or selector), when it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<Element>,
    /// The text that keys the element's row (the one-of-a-kind text above it), when the
    /// element has look-alikes on screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The element list the element was found on (empty when none was read).
    #[serde(default)]
    pub screen: Vec<Element>,
    /// The element list the observation after the action showed, when one was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<Element>>,
    /// The screen's size in input coordinates, when known (points become percents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_size: Option<(u32, u32)>,
}

impl RecordedStep {
    /// A step with only its action.
    pub fn new(action: RecordedAction) -> Self {
        RecordedStep {
            action,
            element: None,
            anchor: None,
            screen: Vec::new(),
            after: None,
            screen_size: None,
        }
    }
}

impl RecordedAction {
    /// A launch of `app` with `options`, as a flow's `launchApp` can say it; `None` when
    /// the options have no `launchApp` equivalent (a locale, a deep link).
    pub fn launch(app: &str, options: &LaunchOptions) -> Option<RecordedAction> {
        if options.locales.is_some() || options.url.is_some() {
            return None;
        }
        let arguments = options
            .arguments
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    ArgumentValue::Text(t) => serde_json::Value::String(t.clone()).to_string(),
                    ArgumentValue::Int(i) => i.to_string(),
                    ArgumentValue::Bool(b) => b.to_string(),
                    ArgumentValue::Float(f) => format!("{f:?}"),
                };
                (k.to_string(), v)
            })
            .collect();
        Some(RecordedAction::Launch {
            app: app.to_string(),
            clear_state: options.clear_state,
            permissions: options
                .permissions
                .as_ref()
                .and_then(|p| serde_json::to_value(p).ok()),
            arguments,
        })
    }
}

/// The actions a recorder knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RecordedAction {
    /// An app was launched (or brought to the front).
    Launch {
        /// Its package or bundle id.
        app: String,
        /// Its data was cleared first (`clearState: true`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        clear_state: bool,
        /// The permissions set first, in Maestro's map (`{"all": "deny", "camera":
        /// "allow"}`); none when the launch left them as they were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permissions: Option<serde_json::Value>,
        /// Launch arguments in order: each key and its value as a YAML scalar (a number or
        /// `true`/`false` bare, text quoted).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        arguments: Vec<(String, String)>,
    },
    /// An app was stopped.
    Terminate {
        /// Its package or bundle id.
        app: String,
    },
    /// A tap.
    Tap {
        /// Where.
        at: Point,
    },
    /// A double tap.
    DoubleTap {
        /// Where.
        at: Point,
    },
    /// A long press.
    LongPress {
        /// Where.
        at: Point,
        /// How long, in ms.
        millis: u64,
    },
    /// A swipe.
    Swipe {
        /// From.
        from: Point,
        /// To.
        to: Point,
        /// How long, in ms.
        millis: u64,
    },
    /// Text typed into the focused field.
    Type {
        /// The text.
        text: String,
        /// ENTER pressed afterwards.
        submit: bool,
    },
    /// A button pressed, by its name in `mobile_device::Button`'s table.
    Button {
        /// The name (`BACK`, `ENTER`, …).
        name: String,
    },
    /// A URL opened.
    OpenUrl {
        /// The URL.
        url: String,
    },
    /// A wait for an element to show or go, that succeeded.
    Wait {
        /// The element's text, when the wait named one by text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The element's id, when the wait named one by id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Waited for it to go rather than to show.
        gone: bool,
        /// The wait's timeout, in ms.
        timeout_ms: u64,
    },
    /// A mock location set.
    SetLocation {
        /// Degrees north.
        latitude: f64,
        /// Degrees east.
        longitude: f64,
    },
    /// Anything else that succeeded (named so the export can say it left it out).
    Other {
        /// What it was, as a person would say it.
        what: String,
    },
}
