//! uiautomator's window dump (`uiautomator dump /dev/tty`): XML `<hierarchy>` of
//! `<node>`s. Parsed with `roxmltree` (a well-kept, read-only XML parser).
//!
//! Kept nodes: those with text, content-desc, hint or resource-id, or that are
//! checkable or clickable, and whose bounds are not empty. Refs `@eN` number the kept
//! nodes depth-first from 1, so the same dump always gives the same refs.

use mobile_device::{Element, ElementStates, Rect};

/// Why a dump could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpError {
    /// A known transient uiautomator failure worth retrying.
    Transient(String),
    /// No XML in the output; the text says what uiautomator printed instead.
    NoXml(String),
    /// XML that does not parse.
    Invalid(String),
}

/// Messages uiautomator prints when the accessibility tree is momentarily unavailable
/// (animations, a window change); a retry a moment later normally succeeds.
const TRANSIENT: &[&str] = &[
    "null root node returned by UiTestAutomationBridge",
    "could not get idle state",
    "Could not get idle state",
];

/// Finds the XML document in `uiautomator dump /dev/tty` output (which appends
/// `UI hierchary dumped to: /dev/tty`) and returns it.
pub fn extract_xml(output: &str) -> Result<&str, DumpError> {
    if let Some(t) = TRANSIENT.iter().find(|t| output.contains(*t)) {
        return Err(DumpError::Transient((*t).to_string()));
    }
    let start = output
        .find("<?xml")
        .or_else(|| output.find("<hierarchy"))
        .ok_or_else(|| DumpError::NoXml(output.trim().chars().take(300).collect()))?;
    let rest = &output[start..];
    let end = if let Some(i) = rest.find("</hierarchy>") {
        i + "</hierarchy>".len()
    } else if let Some(i) = rest.find("/>") {
        // `<hierarchy rotation="0" />`: an empty screen.
        i + 2
    } else {
        return Err(DumpError::Invalid(
            "the dump ends before </hierarchy>".into(),
        ));
    };
    Ok(&rest[..end])
}

/// `[x1,y1][x2,y2]` to a rectangle.
pub fn parse_bounds(s: &str) -> Option<Rect> {
    let nums: Vec<i32> = s
        .split(['[', ']', ','])
        .filter(|p| !p.is_empty())
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    let [x1, y1, x2, y2] = nums.as_slice() else {
        return None;
    };
    Some(Rect {
        x: *x1,
        y: *y1,
        width: x2 - x1,
        height: y2 - y1,
    })
}

fn attr<'a>(n: &roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    n.attribute(name).filter(|v| !v.is_empty())
}

fn flag(n: &roxmltree::Node, name: &str) -> bool {
    n.attribute(name) == Some("true")
}

/// Parses a dump into the kept elements, depth-first, with refs from `@e1`.
pub fn parse_elements(xml: &str) -> Result<Vec<Element>, DumpError> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| DumpError::Invalid(e.to_string()))?;
    let mut out = Vec::new();
    // `descendants()` walks in document order, which is depth-first pre-order.
    for n in doc.root().descendants().filter(|n| n.has_tag_name("node")) {
        let text = attr(&n, "text");
        let desc = attr(&n, "content-desc");
        let hint = attr(&n, "hint");
        let id = attr(&n, "resource-id");
        let checkable = flag(&n, "checkable");
        let clickable = flag(&n, "clickable");
        if text.is_none()
            && desc.is_none()
            && hint.is_none()
            && id.is_none()
            && !checkable
            && !clickable
        {
            continue;
        }
        let Some(rect) = n.attribute("bounds").and_then(parse_bounds) else {
            continue;
        };
        if rect.is_empty() {
            continue;
        }
        out.push(Element {
            // Refs are the server's to give.
            reference: String::new(),
            element_type: n.attribute("class").unwrap_or("").to_string(),
            text: text.map(str::to_string),
            label: desc.or(hint).map(str::to_string),
            identifier: id.map(str::to_string),
            value: None,
            rect,
            states: ElementStates {
                focused: flag(&n, "focused"),
                selected: flag(&n, "selected"),
                checked: flag(&n, "checked"),
                enabled: n.attribute("enabled") != Some("false"),
                clickable,
                scrollable: flag(&n, "scrollable"),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_dump_keeps_labelled_nodes_in_depth_first_order() {
        let xml = include_str!("../../../../fixtures/android/parser-uiautomator-talos.xml");
        let out = format!("{xml}\nUI hierchary dumped to: /dev/tty\n");
        let els = parse_elements(extract_xml(&out).unwrap()).unwrap();
        assert_eq!(els.len(), 18);
        assert!(
            els.iter().all(|e| e.reference.is_empty()),
            "the server gives refs"
        );
        assert_eq!(
            els[0].identifier.as_deref(),
            Some("com.balsdon.accessibilityDeveloperService:id/action_bar_root")
        );
        assert_eq!(els[3].text.as_deref(), Some("Accessibility Broadcast Dev"));
        assert_eq!(
            els[3].rect,
            Rect {
                x: 44,
                y: 185,
                width: 703,
                height: 74
            }
        );
        let prev = &els[7];
        assert_eq!(
            (prev.reference.as_str(), prev.text.as_deref()),
            ("", Some("PREV"))
        );
        assert!(prev.states.clickable);
        assert_eq!(
            els[9].label.as_deref(),
            Some("Decrease accessibility volume")
        );
        assert_eq!(
            els[15]
                .text
                .as_deref()
                .map(|t| t.starts_with("Run\nadb shell")),
            Some(true)
        );
        assert!(
            els.iter().all(|e| e.text.as_deref() != Some("Heading 3")),
            "zero bounds dropped"
        );
        assert_eq!(
            els[17].identifier.as_deref(),
            Some("android:id/statusBarBackground")
        );
    }

    #[test]
    fn nested_states_entities_and_hints() {
        let els = parse_elements(include_str!(
            "../../../../fixtures/android/parser-uiautomator-nested.xml"
        ))
        .unwrap();
        assert_eq!(els.len(), 3);
        let cb = &els[0];
        assert_eq!(cb.element_type, "android.widget.CheckBox");
        assert!(cb.states.checked && cb.states.selected && cb.states.focused && !cb.states.enabled);
        assert_eq!(els[1].text.as_deref(), Some("Wi‑Fi & \"more\" <ok>"));
        assert_eq!(els[1].reference, "", "the server gives refs");
        assert_eq!(els[2].label.as_deref(), Some("Search"));
    }

    #[test]
    fn empty_tree_and_failures() {
        let xml = include_str!("../../../../fixtures/android/parser-uiautomator-empty.xml");
        assert!(
            parse_elements(extract_xml(xml).unwrap())
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            extract_xml("ERROR: null root node returned by UiTestAutomationBridge.\n"),
            Err(DumpError::Transient(
                "null root node returned by UiTestAutomationBridge".into()
            ))
        );
        assert!(matches!(
            extract_xml("ERROR: could not get idle state."),
            Err(DumpError::Transient(_))
        ));
        assert!(matches!(extract_xml("Killed"), Err(DumpError::NoXml(_))));
        assert!(matches!(
            parse_elements("<hierarchy><node"),
            Err(DumpError::Invalid(_))
        ));
        assert_eq!(
            parse_bounds("[1,2][3,4]"),
            Some(Rect {
                x: 1,
                y: 2,
                width: 2,
                height: 2
            })
        );
        assert_eq!(parse_bounds("junk"), None);
    }

    #[test]
    fn real_launcher_dump_nested() {
        let xml = include_str!("../../../../fixtures/android/parser-uiautomator-real-launcher.xml");
        let out = format!("{xml}\nUI hierchary dumped to: /dev/tty\n");
        let els = parse_elements(extract_xml(&out).unwrap()).unwrap();
        assert_eq!(els.len(), 18);
        assert_eq!(els[0].identifier.as_deref(), Some("android:id/content"));
        assert_eq!(
            els[0].rect,
            Rect {
                x: 0,
                y: 0,
                width: 1080,
                height: 1794
            }
        );
        let workspace = els
            .iter()
            .find(|e| {
                e.identifier.as_deref()
                    == Some("com.google.android.apps.nexuslauncher:id/workspace")
            })
            .unwrap();
        assert!(workspace.states.scrollable);
        let clock = &els[9];
        assert_eq!(clock.reference, "", "the server gives refs");
        assert_eq!(
            (clock.text.as_deref(), clock.label.as_deref()),
            (Some("Fri, Apr 21"), Some("Fri, Apr 21"))
        );
        assert_eq!(
            clock.rect,
            Rect {
                x: 77,
                y: 123,
                width: 968,
                height: 57
            }
        );
        let messages = &els[13];
        assert_eq!(messages.text.as_deref(), Some("Messages"));
        assert!(messages.states.clickable && messages.states.enabled);
        assert_eq!(
            messages.rect,
            Rect {
                x: 237,
                y: 1382,
                width: 202,
                height: 166
            }
        );
        let mic = &els[17];
        assert_eq!(mic.label.as_deref(), Some("Voice search"));
        assert_eq!(mic.element_type, "android.widget.ImageView");
        assert_eq!(
            mic.rect,
            Rect {
                x: 869,
                y: 1603,
                width: 142,
                height: 165
            }
        );
    }
}
