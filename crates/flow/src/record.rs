//! What a recorder keeps of one action that succeeded: the action, the element it
//! actually hit, the screen's element list at that moment and the list the observation
//! after it showed. [`crate::export_flow`] turns a list of these into a flow.

use mobile_device::{Element, Point};
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

/// The actions a recorder knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RecordedAction {
    /// An app was launched (or brought to the front).
    Launch {
        /// Its package or bundle id.
        app: String,
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
