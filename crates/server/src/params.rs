//! One parameter struct per tool. Field names follow the peer server that agents already
//! know (`packageName`, `bundle_id`, `saveTo`, ...); doc comments become the schema
//! descriptions the model reads, so they say what to pass and where to get it.

use mobile_device::{
    AppId, DelayMillis, DevicePath, DeviceUrl, GestureMillis, Latitude, LaunchArguments,
    LaunchOptions, Locales, LogLimit, Longitude, Orientation, Permissions, RecordingLimit,
    SwipeDirection,
};
use rmcp::schemars::{self, JsonSchema};
use serde::{Deserialize, Deserializer};

use mobile_device::lenient_number as number;

fn opt_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    struct W(#[serde(deserialize_with = "number")] f64);
    Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DeviceParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LaunchAppParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Package name (Android) or bundle id (iOS) of the app, from mobile_list_apps.
    #[serde(rename = "packageName")]
    pub package_name: AppId,
    /// Optional comma-separated BCP 47 locales to launch the app in, e.g. "fr-FR" or "de,en".
    #[serde(default)]
    pub locale: Option<Locales>,
    /// Stop the app first so it starts afresh with the arguments given (default false: a
    /// running app is brought to the front as it is; Maestro's launchApp stops it).
    #[serde(default, rename = "stopFirst")]
    pub stop_first: bool,
    /// Clear the app's data before launching (Android `pm clear`; iOS simulator: the app
    /// reinstalled from its own bundle, as Maestro does). Default false.
    #[serde(default, rename = "clearState")]
    pub clear_state: bool,
    /// Runtime permissions to set before launching, e.g. {"all": "deny", "camera": "allow"}.
    #[serde(default)]
    pub permissions: Option<Permissions>,
    /// Launch arguments (intent extras on Android, process arguments on iOS), e.g.
    /// {"isLoggedIn": true, "user": "ada"}.
    #[serde(default)]
    pub arguments: Option<LaunchArguments>,
    /// A deep link to open in this app instead of its start screen (http and https
    /// unless the server allows more schemes).
    #[serde(default)]
    pub url: Option<DeviceUrl>,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

impl LaunchAppParams {
    /// What the device is asked to do.
    pub(crate) fn options(&self) -> LaunchOptions {
        LaunchOptions {
            locales: self.locale.clone(),
            stop_first: self.stop_first,
            clear_state: self.clear_state,
            permissions: self.permissions.clone(),
            arguments: self.arguments.clone().unwrap_or_default(),
            url: self.url.clone(),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AppParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Package name (Android) or bundle id (iOS) of the app, from mobile_list_apps.
    #[serde(rename = "packageName")]
    pub package_name: AppId,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct InstallAppParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Path on this machine to an .apk (Android), or an .app directory or .zip (iOS simulator).
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UninstallAppParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Package name (Android) or bundle id (iOS) of the app to remove.
    pub bundle_id: AppId,
}

/// Where a gesture acts: an element ref, a selector (text, id, label), or x,y. A ref wins
/// over a selector, a selector over x,y.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct Target {
    /// X in screen coordinates (pixels on Android, points on iOS). Not needed with `ref` or a selector.
    #[serde(default, deserialize_with = "opt_number")]
    #[schemars(range(min = 0))]
    pub x: Option<f64>,
    /// Y in screen coordinates. Not needed with `ref` or a selector.
    #[serde(default, deserialize_with = "opt_number")]
    #[schemars(range(min = 0))]
    pub y: Option<f64>,
    /// Element ref from mobile_list_elements_on_screen or an action's result, e.g. "@e5". Preferred over x,y; wins if both are given.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// Or name the element by text, id or label.
    #[serde(flatten)]
    pub selector: Selector,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ClickParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Where to tap.
    #[serde(flatten)]
    pub target: Target,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PointParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Where to act.
    #[serde(flatten)]
    pub target: Target,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LongPressParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Where to press.
    #[serde(flatten)]
    pub target: Target,
    /// How long to press, in milliseconds (1 to 10000; default 500).
    #[serde(default)]
    pub duration: Option<GestureMillis>,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ElementFormat {
    /// One element per line (compact; the default).
    #[default]
    Text,
    /// A JSON array of elements.
    Json,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListElementsParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// "text" (default, one element per line) or "json".
    #[serde(default)]
    pub format: Option<ElementFormat>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PressButtonParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// The button's name; the schema lists them all, from `Button::TABLE`.
    #[schemars(description = format!("Button name: {}.", mobile_device::Button::describe_all(", ")))]
    pub button: mobile_device::Button,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct OpenUrlParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// The URL to open, e.g. `https://example.com`. Only http and https unless the server allows more schemes.
    pub url: DeviceUrl,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SwipeParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Direction the finger moves: up, down, left or right. "up" scrolls content down the page.
    pub direction: SwipeDirection,
    /// Where the swipe starts: x,y, an element ref or a selector (default: the screen centre).
    #[serde(flatten)]
    pub start: Target,
    /// Optional distance in screen coordinates (default: 40% of the screen along the swipe).
    #[serde(default, deserialize_with = "opt_number")]
    #[schemars(range(min = 1))]
    pub distance: Option<f64>,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TypeKeysParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Text to type into the focused field, exactly as given.
    pub text: String,
    /// Press ENTER after typing (to submit a form or search).
    #[serde(default)]
    pub submit: bool,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TakeScreenshotParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Longest side of the returned image in pixels (default 1024). Wins over `scale`.
    #[serde(default, rename = "maxSize")]
    #[schemars(range(min = 1))]
    pub max_size: Option<u32>,
    /// Scale factor in (0, 1], used when maxSize is not given.
    #[serde(default, deserialize_with = "opt_number")]
    pub scale: Option<f64>,
    /// Only this part of the screen, at full detail: a rectangle {x, y, width, height} in
    /// screen coordinates, an element ref from mobile_list_elements_on_screen ("@e5"), or
    /// {text | id | label, match} naming an element.
    #[serde(default)]
    pub clip: Option<ClipParam>,
    /// Draw each actionable element's box and @ref onto the image, and return the element
    /// list with it (default false).
    #[serde(default)]
    pub annotate: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SaveScreenshotParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// File to write: .png, .jpg or .jpeg, under the working directory or the temp directory.
    #[serde(rename = "saveTo")]
    pub save_to: String,
    /// Longest side in pixels (default: full size). Wins over `scale`.
    #[serde(default, rename = "maxSize")]
    #[schemars(range(min = 1))]
    pub max_size: Option<u32>,
    /// Scale factor in (0, 1].
    #[serde(default, deserialize_with = "opt_number")]
    pub scale: Option<f64>,
    /// Replace the file if it already exists. Default false: an existing file is never
    /// replaced, and the call fails naming it.
    #[serde(default)]
    pub overwrite: bool,
    /// Only this part of the screen: a rectangle {x, y, width, height} in screen
    /// coordinates, an element ref ("@e5"), or {text | id | label, match}.
    #[serde(default)]
    pub clip: Option<ClipParam>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SetOrientationParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// portrait or landscape.
    pub orientation: Orientation,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SetLocationParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Latitude in degrees (-90 to 90). Omit both to clear the mock location.
    #[serde(default)]
    pub latitude: Option<Latitude>,
    /// Longitude in degrees (-180 to 180). Omit both to clear the mock location.
    #[serde(default)]
    pub longitude: Option<Longitude>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ClipboardParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Text to put on the clipboard. Omit to read the clipboard instead.
    #[serde(default)]
    pub text: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DeviceLogsParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Most recent lines to return (1 to 10000; default 100).
    #[serde(default)]
    pub limit: Option<LogLimit>,
    /// Filters like "tag=ActivityManager", "level!=D", "message=crash"; keys: pid, process, tag, level, subsystem, category, message.
    #[serde(default)]
    pub filter: Option<Vec<String>>,
    /// Optional file (.log, .txt or .jsonl) to also write the lines to, under the working or temp directory.
    #[serde(default, rename = "saveTo")]
    pub save_to: Option<String>,
    /// Replace the saveTo file if it already exists. Default false: an existing file is never
    /// replaced, and the call fails naming it.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StartRecordingParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Where to write the .mp4 (default: a new file in the temp directory).
    #[serde(default)]
    pub output: Option<String>,
    /// Stop by itself after this many seconds (1 to 180; default 180).
    #[serde(default, rename = "timeLimit")]
    pub time_limit: Option<RecordingLimit>,
    /// Replace the output file if it already exists. Default false: an existing file is never
    /// replaced, and the call fails naming it.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetCrashParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Crash id from mobile_list_crashes.
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UiDumpParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Optional file to write the XML to (under the working or temp directory) instead of returning it.
    #[serde(default)]
    pub output_path: Option<String>,
    /// Replace the output_path file if it already exists. Default false: an existing file is never
    /// replaced, and the call fails naming it.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PushParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// File on this machine to send.
    pub local_path: String,
    /// Absolute destination path on the device, under /sdcard unless `force` is true.
    pub remote_path: DevicePath,
    /// Allow a destination outside /sdcard.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PullParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Absolute path of the file on the device.
    pub remote_path: DevicePath,
    /// Where to write it on this machine (under the working or temp directory).
    pub local_path: String,
    /// Replace the local_path file if it already exists. Default false: an existing file is never
    /// replaced, and the call fails naming it.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BatchStep {
    /// Tool name, e.g. "mobile_click_on_screen_at_coordinates".
    pub name: String,
    /// The tool's arguments without `device` (the batch's device is used).
    #[serde(default)]
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BatchParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Tool calls to run in order on the device (1 to 50; delay steps at most 30000 ms in
    /// all; the whole batch at most 120 s).
    #[schemars(length(min = 1, max = 50))]
    pub steps: Vec<BatchStep>,
    /// Stop at the first failing step (default true).
    #[serde(default = "yes", rename = "stopOnError")]
    pub stop_on_error: bool,
    /// List the elements on screen after the last step (default false).
    #[serde(default, rename = "listElementsAtEnd")]
    pub list_elements_at_end: bool,
}

fn yes() -> bool {
    true
}

/// A screen region: an element ref, or a rectangle in screen coordinates.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "clip must be an element ref (\"@e5\"), a rectangle {\"x\", \"y\", \"width\", \"height\"} in screen coordinates, or {\"text\" | \"id\" | \"label\", \"match\"} naming an element"
)]
pub(crate) enum ClipParam {
    /// An element ref from mobile_list_elements_on_screen, e.g. "@e5": that element's bounds.
    Ref(String),
    /// A rectangle in screen coordinates (pixels on Android, points on iOS).
    Rect(ClipRect),
    /// An element named by text, id or label: that element's bounds.
    Select(SelectorEnd),
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClipRect {
    /// Left edge in screen coordinates.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Top edge in screen coordinates.
    #[serde(deserialize_with = "number")]
    pub y: f64,
    /// Width in screen coordinates (more than 0).
    #[serde(deserialize_with = "number")]
    pub width: f64,
    /// Height in screen coordinates (more than 0).
    #[serde(deserialize_with = "number")]
    pub height: f64,
}

/// One end of a drag: an element ref, or x and y in screen coordinates.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "from and to must each be an element ref (\"@e5\"), {\"x\", \"y\"} in screen coordinates, or {\"text\" | \"id\" | \"label\", \"match\"} naming an element"
)]
pub(crate) enum DragEnd {
    /// An element ref from mobile_list_elements_on_screen, e.g. "@e5": its centre.
    Ref(String),
    /// A point in screen coordinates (pixels on Android, points on iOS).
    Point(DragPoint),
    /// An element named by text, id or label: its centre.
    Select(SelectorEnd),
}

/// An element named by text, id or label, as one end of a drag or a clip.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectorEnd {
    /// The element's text.
    #[serde(default)]
    pub text: Option<String>,
    /// The element's resource id or accessibility identifier.
    #[serde(default)]
    pub id: Option<String>,
    /// The element's accessibility label (content-desc, AXLabel).
    #[serde(default)]
    pub label: Option<String>,
    /// "exact" (default) or "contains".
    #[serde(default, rename = "match")]
    pub match_mode: Option<MatchMode>,
}

impl From<&SelectorEnd> for Selector {
    fn from(s: &SelectorEnd) -> Selector {
        Selector {
            text: s.text.clone(),
            id: s.id.clone(),
            label: s.label.clone(),
            match_mode: s.match_mode,
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DragPoint {
    /// X in screen coordinates.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Y in screen coordinates.
    #[serde(deserialize_with = "number")]
    pub y: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DragParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// Where the drag starts: an element ref ("@e5"), {x, y} in screen coordinates, or
    /// {text | id | label, match} naming an element.
    pub from: DragEnd,
    /// Where it ends: an element ref ("@e7"), {x, y}, or {text | id | label, match}.
    pub to: DragEnd,
    /// How long the move takes after the press-and-hold, in milliseconds (1 to 10000;
    /// default 1000).
    #[serde(default)]
    pub duration: Option<GestureMillis>,
    /// After acting: settle and observe.
    #[serde(flatten)]
    pub after: AfterAction,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FoldParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// folded, half-open or open. Give this or `angle`.
    #[serde(default)]
    pub posture: Option<mobile_device::Posture>,
    /// Hinge angle in degrees (0 folded shut, 180 flat), mapped to the posture it falls in
    /// (below 90 folded, below 180 half-open, else open). Used when posture is not given.
    #[serde(default, deserialize_with = "opt_number")]
    #[schemars(range(min = 0, max = 360))]
    pub angle: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DelayParams {
    /// How long to wait, in milliseconds (0 to 10000).
    #[serde(alias = "ms")]
    pub duration: DelayMillis,
}

/// What an action tool reports after acting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Observe {
    /// Nothing: only the action's own line.
    None,
    /// What changed since the last element list this device gave you (or the whole list on a new screen).
    #[default]
    Changes,
    /// The whole element list.
    Elements,
    /// A screenshot.
    Screenshot,
}

/// After an action: wait for the screen to settle, then show what it shows.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct AfterAction {
    /// After acting, wait at most this many ms for the screen to stop changing (default 2000, or 0 with observe "none"; 0 = do not wait).
    #[serde(default, rename = "settleTimeoutMs", deserialize_with = "opt_number")]
    #[schemars(range(min = 0, max = 30000))]
    pub settle_timeout_ms: Option<f64>,
    /// What to return after acting: "changes" (default: elements added, removed or moved since your last look, with refs; the whole list on a new screen), "elements", "screenshot" or "none".
    #[serde(default)]
    pub observe: Option<Observe>,
}

/// How a selector compares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MatchMode {
    /// The whole value (an id may be given without its `package:id/` prefix).
    #[default]
    Exact,
    /// Part of the value, ignoring case.
    Contains,
}

/// Names an element by what it shows, instead of a ref or coordinates.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct Selector {
    /// The element's text.
    #[serde(default)]
    pub text: Option<String>,
    /// The element's resource id or accessibility identifier.
    #[serde(default)]
    pub id: Option<String>,
    /// The element's accessibility label (content-desc, AXLabel).
    #[serde(default)]
    pub label: Option<String>,
    /// "exact" (default) or "contains" for text, id and label.
    #[serde(default, rename = "match")]
    pub match_mode: Option<MatchMode>,
}

/// What `mobile_wait_for` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WaitUntil {
    /// An element matching the selector is on screen.
    Exists,
    /// No element matches the selector.
    Gone,
    /// Some element's text contains `text`.
    TextAppears,
    /// The screen stopped changing.
    Settled,
    /// The app `packageName` is in front.
    AppInFront,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WaitForParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// What to wait for: "exists", "gone", "text_appears", "settled" or "app_in_front".
    pub until: WaitUntil,
    /// For exists/gone/text_appears: the element to look for.
    #[serde(flatten)]
    pub selector: Selector,
    /// For app_in_front: the app's package name or bundle id.
    #[serde(default, rename = "packageName")]
    pub package_name: Option<String>,
    /// Give up after this many ms (default 10000, at most 60000).
    #[serde(default, rename = "timeoutMs", deserialize_with = "opt_number")]
    #[schemars(range(min = 0, max = 60000))]
    pub timeout_ms: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RunFlowParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// The flow's text (Maestro YAML: `appId: …`, `---`, then the commands). Give this or `path`.
    #[serde(default)]
    pub flow: Option<String>,
    /// Path on this machine to a flow file (.yaml or .yml) under the allowed folders; `runFlow` files are read relative to it.
    #[serde(default)]
    pub path: Option<String>,
    /// Values for the flow's `${NAME}` variables (they win over its `env`), e.g. {"PASSWORD": "…"}.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// How long assertVisible, assertNotVisible and element look-ups wait, in ms (default 17000, Maestro's).
    #[serde(default, rename = "lookupTimeoutMs", deserialize_with = "opt_number")]
    #[schemars(range(min = 0, max = 120000))]
    pub lookup_timeout_ms: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExportFlowParams {
    /// The device id from mobile_list_available_devices.
    pub device: String,
    /// The flow's `appId` (default: the first app this session launched on the device).
    #[serde(default, rename = "appId")]
    pub app_id: Option<AppId>,
    /// The flow's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Also write the flow to this .yaml file under the allowed folders (an existing file is replaced only with overwrite: true).
    #[serde(default, rename = "saveTo")]
    pub save_to: Option<String>,
    /// Replace an existing file at saveTo.
    #[serde(default)]
    pub overwrite: bool,
}
