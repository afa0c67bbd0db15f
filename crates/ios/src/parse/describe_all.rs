//! `idb ui describe-all` (one line of compact JSON): a flat array of accessibility
//! elements by default, a tree with `children` under `--nested`. `describe-point`
//! prints a bare object or `null`; both are accepted too.
//!
//! Geometry comes from `frame` (numbers, possibly fractional) or, when that is missing,
//! from the `AXFrame` string `{{x, y}, {w, h}}`. Coordinates are points.

use mobile_device::{Element, ElementStates, Rect};
use serde_json::Value;

use super::ParseError;

/// One accessibility element, with its children when the dump was nested.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AxNode {
    /// `type`: `Application`, `Button`, `StaticText`, `TextField`, … (`null` in the
    /// empty tree idb returns right after a launch).
    pub kind: Option<String>,
    /// `AXLabel`: what VoiceOver reads.
    pub label: Option<String>,
    /// `AXValue`: a field's text, a switch's state.
    pub value: Option<String>,
    /// `AXUniqueId`: the accessibility identifier, when the app set one.
    pub unique_id: Option<String>,
    /// `title`, when present.
    pub title: Option<String>,
    /// `placeholder`, for an empty text field.
    pub placeholder: Option<String>,
    /// x, y, width, height in points.
    pub frame: (f64, f64, f64, f64),
    /// `enabled` (true when absent).
    pub enabled: bool,
    /// `focused`.
    pub focused: bool,
    /// `selected`, or a `selected` trait.
    pub selected: bool,
    /// `role`.
    pub role: Option<String>,
    /// `subrole` (`AXSwitch`, `AXSearchField`, `AXSecureTextField`, `AXTabButton`).
    pub subrole: Option<String>,
    /// `pid` of the app the element belongs to.
    pub pid: Option<u32>,
    /// The nested elements (empty in a flat dump).
    pub children: Vec<AxNode>,
}

/// Parses a `describe-all` (flat or `--nested`) or `describe-point` dump into root nodes.
pub fn parse_describe_all(json: &str) -> Result<Vec<AxNode>, ParseError> {
    const WHAT: &str = "idb ui describe-all";
    let trimmed = json.trim();
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    let v: Value = serde_json::from_str(trimmed).map_err(|e| ParseError::new(WHAT, e))?;
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().map(node).collect(),
        Value::Object(_) => Ok(vec![node(&v)?]),
        _ => Err(ParseError::new(WHAT, "expected an array of elements")),
    }
}

fn node(v: &Value) -> Result<AxNode, ParseError> {
    let obj = v
        .as_object()
        .ok_or_else(|| ParseError::new("idb ui describe-all", "an element is not an object"))?;
    let s = |k: &str| match obj.get(k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(if *b { "1" } else { "0" }.to_string()),
        _ => None,
    };
    let b = |k: &str, default: bool| obj.get(k).and_then(Value::as_bool).unwrap_or(default);
    let frame = obj
        .get("frame")
        .and_then(frame_object)
        .or_else(|| {
            obj.get("AXFrame")
                .and_then(Value::as_str)
                .and_then(parse_ax_frame)
        })
        .unwrap_or_default();
    let children = match obj.get("children") {
        Some(Value::Array(c)) => c.iter().map(node).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    let traits: Vec<&str> = obj
        .get("traits")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Ok(AxNode {
        kind: s("type"),
        label: s("AXLabel"),
        value: s("AXValue"),
        unique_id: s("AXUniqueId"),
        title: s("title"),
        placeholder: s("placeholder"),
        frame,
        enabled: b("enabled", true),
        focused: b("focused", false),
        selected: b("selected", false) || traits.iter().any(|t| t.eq_ignore_ascii_case("selected")),
        role: s("role"),
        subrole: s("subrole"),
        pid: obj
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok()),
        children,
    })
}

fn frame_object(v: &Value) -> Option<(f64, f64, f64, f64)> {
    let n = |k: &str| v.get(k).and_then(Value::as_f64);
    Some((n("x")?, n("y")?, n("width")?, n("height")?))
}

/// Parses an `AXFrame` string, `{{20, 264}, {362, 44}}`.
pub fn parse_ax_frame(s: &str) -> Option<(f64, f64, f64, f64)> {
    let nums: Vec<f64> = s
        .split(['{', '}', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match nums[..] {
        [x, y, w, h] => Some((x, y, w, h)),
        _ => None,
    }
}

/// True for the tree idb returns while an app is still launching: nothing but
/// elements with no type and an empty frame.
pub fn is_placeholder_tree(roots: &[AxNode]) -> bool {
    fn empty(n: &AxNode) -> bool {
        n.kind.is_none() && n.frame.2 <= 0.0 && n.frame.3 <= 0.0 && n.children.iter().all(empty)
    }
    roots.is_empty() || roots.iter().all(empty)
}

/// The size of the screen in points, from the `Application` element's frame.
pub fn application_frame(roots: &[AxNode]) -> Option<(f64, f64)> {
    roots
        .iter()
        .find(|n| n.kind.as_deref() == Some("Application"))
        .map(|n| (n.frame.2, n.frame.3))
        .filter(|(w, h)| *w > 0.0 && *h > 0.0)
}

/// The `Application` element's label: the name of the app in front.
pub fn application_label(roots: &[AxNode]) -> Option<&str> {
    roots
        .iter()
        .find(|n| n.kind.as_deref() == Some("Application"))
        .and_then(|n| n.label.as_deref())
}

/// The type the element list shows: idb's `type`, refined by the subrole where that
/// is the better name (a `CheckBox` with subrole `AXSwitch` is a switch, a
/// `TextField` with `AXSearchField` a search field: facebook/idb
/// FBSimulatorControl/Commands/FBAXRoleVocabulary.swift, `translatorSubroleNames`).
fn element_type(n: &AxNode) -> String {
    let kind = n.kind.as_deref().unwrap_or("Other");
    let sub = n
        .subrole
        .as_deref()
        .map(|s| s.strip_prefix("AX").unwrap_or(s));
    match (kind, sub) {
        ("CheckBox", Some("Switch")) => "Switch",
        ("TextField", Some("SearchField")) => "SearchField",
        ("TextField", Some("SecureTextField")) => "SecureTextField",
        ("Button", Some("TabButton")) => "Tab",
        _ => kind,
    }
    .to_string()
}

/// Whether a tap (or typing, or sliding) does something on an element of this type:
/// idb's own `interactableRoles` (FBAXRoleVocabulary.swift) plus the translator's
/// `TextArea`, the older `Icon` and `TextView`, and the macOS-style
/// `ComboBox`/`MenuButton`.
fn is_actionable(kind: &str) -> bool {
    matches!(
        kind,
        "Button"
            | "Cell"
            | "Link"
            | "CheckBox"
            | "Switch"
            | "Toggle"
            | "TextField"
            | "SecureTextField"
            | "SearchField"
            | "TextView"
            | "TextArea"
            | "Icon"
            | "Tab"
            | "MenuItem"
            | "Slider"
            | "RadioButton"
            | "SegmentedControl"
            | "Stepper"
            | "PopUpButton"
            | "Picker"
            | "PickerWheel"
            | "Key"
            | "DisclosureTriangle"
            | "ComboBox"
            | "MenuButton"
    )
}

/// Flattens the tree depth-first into [`Element`]s with `@eN` refs numbered from 1,
/// dropping elements with an empty frame (nothing to tap or see).
pub fn to_elements(roots: &[AxNode]) -> Vec<Element> {
    fn walk(n: &AxNode, out: &mut Vec<Element>) {
        let rect = Rect {
            x: n.frame.0.round() as i32,
            y: n.frame.1.round() as i32,
            width: n.frame.2.round() as i32,
            height: n.frame.3.round() as i32,
        };
        if !rect.is_empty() {
            let kind = element_type(n);
            let toggle = matches!(kind.as_str(), "CheckBox" | "Switch" | "Toggle");
            let checked = toggle && n.value.as_deref() == Some("1");
            let clickable = is_actionable(&kind);
            out.push(Element {
                // Refs are the server's to give.
                reference: String::new(),
                element_type: kind,
                text: n.title.clone().or_else(|| {
                    if n.value.is_none() {
                        n.placeholder.clone()
                    } else {
                        None
                    }
                }),
                label: n.label.clone(),
                identifier: n.unique_id.clone(),
                value: n.value.clone(),
                rect,
                states: ElementStates {
                    focused: n.focused,
                    selected: n.selected,
                    checked,
                    enabled: n.enabled,
                    clickable,
                    scrollable: false,
                },
            });
        }
        for c in &n.children {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    for r in roots {
        walk(r, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let p = format!("{}/../../fixtures/ios/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn nested_tree_flattens_depth_first() {
        let roots = parse_describe_all(&fixture("describe-all-nested.json")).unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].children.len(), 2);
        assert_eq!(application_frame(&roots), Some((402.0, 874.0)));
        assert_eq!(application_label(&roots), Some("Settings"));
        let els = to_elements(&roots);
        let refs: Vec<_> = els.iter().map(|e| e.reference.as_str()).collect();
        assert_eq!(refs, ["", "", ""], "the server gives refs");
        assert_eq!(els[0].element_type, "Application");
        assert_eq!(els[1].label.as_deref(), Some("General"));
        assert_eq!(
            els[1].identifier.as_deref(),
            Some("com.apple.settings.general")
        );
        assert_eq!(els[1].value, None, "an empty AXValue is no value");
        assert_eq!(
            els[1].rect,
            Rect {
                x: 20,
                y: 264,
                width: 362,
                height: 44
            }
        );
        assert!(els[1].states.clickable);
        assert_eq!(els[2].element_type, "SearchField", "refined by its subrole");
        assert_eq!(els[2].rect.y, 121, "fractional frames are rounded");
    }

    #[test]
    fn flat_array_with_switch_state() {
        let roots = parse_describe_all(&fixture("describe-all-flat.json")).unwrap();
        assert_eq!(roots.len(), 6);
        let els = to_elements(&roots);
        assert_eq!(els.len(), 6);
        assert_eq!(els[5].reference, "", "the server gives refs");
        assert_eq!(els[5].element_type, "CheckBox");
        assert!(!els[5].states.checked);
        assert_eq!(els[4].label.as_deref(), Some("Wi‑Fi"));
        assert!(!is_placeholder_tree(&roots));
    }

    #[test]
    fn flat_home_screen_capture() {
        let roots = parse_describe_all(&fixture("describe-all-flat-homescreen.json")).unwrap();
        assert_eq!(roots.len(), 7);
        assert!(roots.iter().all(|r| r.children.is_empty()));
        assert_eq!(application_frame(&roots), Some((430.0, 932.0)));
        assert_eq!(
            application_label(&roots),
            None,
            "SpringBoard's label is a lone space"
        );
        // A widget and an icon share the id "Calendar": ids are not unique on screen.
        let calendars: Vec<_> = roots
            .iter()
            .filter(|n| n.unique_id.as_deref() == Some("Calendar"))
            .collect();
        assert_eq!(calendars.len(), 2);
        assert_eq!(calendars[0].value.as_deref(), Some("Widget, Stack"));
        assert_eq!(calendars[1].value.as_deref(), Some("Friday, May 16"));
        // serde_json (without `float_roundtrip`) may land one ulp off; compare loosely.
        let (x, y, w, h) = calendars[1].frame;
        assert!((x - 30.666666666666686).abs() < 1e-9 && (h - 90.666_666_666_666_69).abs() < 1e-9);
        assert_eq!((y, w), (294.0, 72.0));
        let els = to_elements(&roots);
        assert_eq!(els.len(), 7);
        assert_eq!(els[0].element_type, "Application");
        assert_eq!(els[0].label, None);
        let photos = &els[4];
        assert_eq!(photos.identifier.as_deref(), Some("Photos"));
        assert_eq!(photos.value, None, "an empty AXValue is no value");
        assert!(photos.states.clickable && photos.states.enabled);
        assert_eq!(
            els[5].rect,
            Rect {
                x: 329,
                y: 400,
                width: 68,
                height: 91
            }
        );
        let search = &els[6];
        assert_eq!(search.element_type, "Slider");
        assert!(search.states.clickable, "a slider is adjustable");
        assert_eq!(search.identifier.as_deref(), Some("spotlight-pill"));
        assert_eq!(search.label.as_deref(), Some("Search"));
        assert_eq!(search.value.as_deref(), Some("Page 1 of 2"));
        assert_eq!(search.rect.y, 757);
    }

    #[test]
    fn nested_axe_capture_with_pid_traits_and_null_label() {
        let roots = parse_describe_all(&fixture("describe-all-nested-axe-contacts.json")).unwrap();
        assert_eq!(roots.len(), 1);
        let app = &roots[0];
        assert_eq!(app.kind.as_deref(), Some("Application"));
        assert_eq!(app.pid, Some(81282));
        assert_eq!(application_label(&roots), Some("Contacts"));
        assert_eq!(application_frame(&roots), Some((402.0, 874.0)));
        let field = &app.children[0];
        assert_eq!(field.kind.as_deref(), Some("TextField"));
        assert_eq!(field.label, None);
        assert_eq!(field.value.as_deref(), Some("Search"));
        assert_eq!(field.children.len(), 2);
        // Fractional points, as printed in both `frame` and `AXFrame`.
        let (x, y, w, h) = field.children[0].frame;
        assert!((x - 360.6666666666667).abs() < 1e-9 && (y - 160.33333333333334).abs() < 1e-9);
        assert!((w - 17.333333333333314).abs() < 1e-9 && h == 22.0);
        let els = to_elements(&roots);
        let kinds: Vec<_> = els.iter().map(|e| e.element_type.as_str()).collect();
        // The search field's subrole `AXSearchField` names it (idb's vocabulary).
        assert_eq!(kinds, ["Application", "SearchField", "Button", "Image"]);
        let refs: Vec<_> = els.iter().map(|e| e.reference.as_str()).collect();
        assert_eq!(refs, ["", "", "", ""], "the server gives refs");
        assert!(els[1].states.clickable);
        assert_eq!(els[2].identifier.as_deref(), Some("Dictate"));
        assert_eq!(
            els[2].rect,
            Rect {
                x: 361,
                y: 160,
                width: 17,
                height: 22
            }
        );
        assert_eq!(els[3].identifier.as_deref(), Some("magnifyingglass"));
        assert!(!els[3].states.clickable);
        assert!(!is_placeholder_tree(&roots));
    }

    #[test]
    fn placeholder_after_launch_and_bare_forms() {
        let roots = parse_describe_all(&fixture("describe-all-empty-after-launch.json")).unwrap();
        assert!(is_placeholder_tree(&roots));
        assert!(to_elements(&roots).is_empty());
        assert!(parse_describe_all("null").unwrap().is_empty());
        let one = parse_describe_all(&fixture("describe-all-docs-element.json")).unwrap();
        assert_eq!(one[0].label.as_deref(), Some("General"));
        assert!(parse_describe_all("[1,2]").is_err());
        assert!(parse_describe_all("usage: idb").is_err());
    }

    #[test]
    fn ax_frame_strings() {
        assert_eq!(
            parse_ax_frame("{{20, 264}, {362, 44}}"),
            Some((20.0, 264.0, 362.0, 44.0))
        );
        assert_eq!(
            parse_ax_frame("{{16, 120.66}, {370, 36}}"),
            Some((16.0, 120.66, 370.0, 36.0))
        );
        assert_eq!(parse_ax_frame("{{1, 2}}"), None);
        let only_ax = r#"[{"AXFrame":"{{1, 2}, {3, 4}}","type":"Button","AXLabel":"x"}]"#;
        let els = to_elements(&parse_describe_all(only_ax).unwrap());
        assert_eq!(
            els[0].rect,
            Rect {
                x: 1,
                y: 2,
                width: 3,
                height: 4
            }
        );
    }
}
