//! The benchmarked tools: one row of the table each, with the arguments every server gets.

use serde_json::{Value, json};

/// One benchmarked tool: a row label, the MCP tool name, its arguments (`$DEV` = device id),
/// and whether only our servers are measured (arguments the peer does not have: it would
/// drop them and take a plain screenshot, which is not the same work).
pub(crate) struct Tool {
    pub(crate) label: &'static str,
    pub(crate) name: &'static str,
    pub(crate) args: Value,
    pub(crate) ours_only: bool,
    /// Arguments only this build of ours takes, added to its calls (and to ours with the
    /// filter) but not to the baseline's or the peer's: `observe: "none"` makes an action
    /// the bare action the others perform, so the rows compare the same work.
    pub(crate) ours_extra: Option<Value>,
}

/// The tools in table order; the first is the only one that names no device.
pub(crate) fn tools() -> Vec<Tool> {
    let t = |label, name, args| Tool {
        label,
        name,
        args,
        ours_only: false,
        ours_extra: None,
    };
    let ours = |label, name, args| Tool {
        label,
        name,
        args,
        ours_only: true,
        ours_extra: None,
    };
    // An action called as the peer's is: no settle, no observation.
    let bare = |label, name, args| Tool {
        label,
        name,
        args,
        ours_only: false,
        ours_extra: Some(json!({"observe": "none"})),
    };
    vec![
        t("list devices", "mobile_list_available_devices", json!({})),
        t("list apps", "mobile_list_apps", json!({"device": "$DEV"})),
        t(
            "screen size",
            "mobile_get_screen_size",
            json!({"device": "$DEV"}),
        ),
        t(
            "screenshot",
            "mobile_take_screenshot",
            json!({"device": "$DEV"}),
        ),
        ours(
            "screenshot annotate",
            "mobile_take_screenshot",
            json!({"device": "$DEV", "annotate": true}),
        ),
        ours(
            "screenshot clip",
            "mobile_take_screenshot",
            json!({"device": "$DEV", "clip": {"x": 0, "y": 900, "width": 1080, "height": 600}}),
        ),
        t(
            "list elements",
            "mobile_list_elements_on_screen",
            json!({"device": "$DEV"}),
        ),
        bare(
            "tap",
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "$DEV", "x": 5, "y": 5}),
        ),
        bare(
            "type text",
            "mobile_type_keys",
            json!({"device": "$DEV", "text": "hello", "submit": false}),
        ),
        bare(
            "launch",
            "mobile_launch_app",
            json!({"device": "$DEV", "packageName": "com.example.notes"}),
        ),
        bare(
            "terminate",
            "mobile_terminate_app",
            json!({"device": "$DEV", "packageName": "com.example.notes"}),
        ),
        bare(
            "press button",
            "mobile_press_button",
            json!({"device": "$DEV", "button": "BACK"}),
        ),
        ours(
            "tap, settle and observe",
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "$DEV", "x": 5, "y": 5}),
        ),
        t(
            "get orientation",
            "mobile_get_orientation",
            json!({"device": "$DEV"}),
        ),
        bare(
            "open URL",
            "mobile_open_url",
            json!({"device": "$DEV", "url": "https://example.com/bench"}),
        ),
    ]
}

/// A call that our server rejects in argument validation, before any device I/O: the
/// client + server round trip of "a tool touching no device".
pub(crate) fn no_device_call(dev: &str) -> (&'static str, Value) {
    (
        "mobile_terminate_app",
        json!({"device": dev, "packageName": "not a package;"}),
    )
}

/// `args` with every `"$DEV"` string replaced by the device id.
pub(crate) fn subst(args: &Value, dev: &str) -> Value {
    match args {
        Value::String(s) if s == "$DEV" => Value::String(dev.to_string()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), subst(v, dev))).collect())
        }
        other => other.clone(),
    }
}
