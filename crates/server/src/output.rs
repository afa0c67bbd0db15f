//! What tools return: the records behind `structuredContent` (each with an object root,
//! so every client version gets an `outputSchema`) and their short text renderings.

use mobile_device::{
    App, Crash, DeviceKind, Element, ForegroundApp, Listing, LogEntry, Orientation,
};
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;

/// The text of `mobile_list_available_devices`: one line per device, then the notes.
pub(crate) fn render_devices(listing: &Listing) -> String {
    let mut out = String::new();
    if listing.devices.is_empty() {
        out.push_str("No devices found.");
    } else {
        out.push_str(&format!(
            "Found {} device{}:",
            listing.devices.len(),
            if listing.devices.len() == 1 { "" } else { "s" }
        ));
        for d in &listing.devices {
            // As people say it: "Pixel 7 (Android 14, real device, online)".
            let kind = match d.kind {
                DeviceKind::Real => "real device",
                DeviceKind::Emulator => "emulator",
                DeviceKind::Simulator => "simulator",
            };
            out.push_str(&format!("\n- {}: {} ({}", d.id, d.name, d.platform));
            if let Some(v) = &d.version {
                out.push_str(&format!(" {v}"));
            }
            out.push_str(&format!(", {kind}, {})", d.state));
            if let Some(h) = &d.hint {
                out.push_str(&format!(" — {h}"));
            }
        }
    }
    for n in &listing.notes {
        out.push_str(&format!("\nNote: {n}"));
    }
    out
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AppList {
    pub apps: Vec<App>,
}

impl AppList {
    pub(crate) fn render(&self) -> String {
        if self.apps.is_empty() {
            return "No apps found on the device.".to_string();
        }
        let items: Vec<String> = self
            .apps
            .iter()
            .map(|a| format!("{} ({})", a.app_name, a.package_name))
            .collect();
        format!("Found these apps on device: {}", items.join(", "))
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ElementList {
    pub elements: Vec<Element>,
}

/// Quotes a value for the one-line element format (JSON string escaping, so newlines and
/// quotes in text stay on one line and unambiguous).
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

impl ElementList {
    pub(crate) const TEXT_HEADER: &'static str = "One element per line: @ref Type text= label= value= id= at=centre x,y size=WxH [focused] [selected] [checked] [disabled]. Tap one with mobile_click_on_screen_at_coordinates and ref.";

    pub(crate) fn render_text(&self) -> String {
        if self.elements.is_empty() {
            return "No elements found on screen. The screen may still be loading, or the app draws its own UI (a game or a web view); take a screenshot instead.".to_string();
        }
        let mut out = String::from(Self::TEXT_HEADER);
        for e in &self.elements {
            let ty = e.element_type.rsplit('.').next().unwrap_or(&e.element_type);
            out.push_str(&format!("\n{} {}", e.reference, ty));
            for (k, v) in [
                ("text", &e.text),
                ("label", &e.label),
                ("value", &e.value),
                ("id", &e.identifier),
            ] {
                if let Some(v) = v
                    && !v.is_empty()
                {
                    out.push_str(&format!(" {k}={}", q(v)));
                }
            }
            // `at` is where a tap lands (the centre), as in the change lists after an
            // action; the top-left corner stays in the structured content's `rect`.
            let c = e.rect.center();
            out.push_str(&format!(
                " at={},{} size={}x{}",
                c.x, c.y, e.rect.width, e.rect.height
            ));
            let s = &e.states;
            for (on, name) in [
                (s.focused, "focused"),
                (s.selected, "selected"),
                (s.checked, "checked"),
                (!s.enabled, "disabled"),
            ] {
                if on {
                    out.push(' ');
                    out.push_str(name);
                }
            }
        }
        out
    }

    pub(crate) fn render_json(&self) -> String {
        format!(
            "Found these elements on screen: {}",
            serde_json::to_string(&self.elements).unwrap_or_else(|_| "[]".into())
        )
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct OrientationOut {
    pub orientation: Orientation,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CrashList {
    pub crashes: Vec<Crash>,
}

impl CrashList {
    pub(crate) fn render(&self) -> String {
        if self.crashes.is_empty() {
            return "No crashes found on the device.".to_string();
        }
        let mut out = format!("Found {} crash reports:", self.crashes.len());
        for c in &self.crashes {
            out.push_str(&format!(
                "\n- {}: {} at {}",
                c.id, c.process_name, c.timestamp
            ));
        }
        out.push_str("\nRead one with mobile_get_crash and its id.");
        out
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LogList {
    pub lines: Vec<LogEntry>,
}

impl LogList {
    /// One JSON object per line, as the peer returns logs.
    pub(crate) fn render(&self) -> String {
        if self.lines.is_empty() {
            return "No log lines matched.".to_string();
        }
        self.lines
            .iter()
            .filter_map(|l| serde_json::to_string(l).ok())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

pub(crate) fn render_foreground(f: &ForegroundApp) -> String {
    match &f.activity {
        Some(a) => format!("Foreground app: {} (activity {a})", f.package_name),
        None => format!("Foreground app: {}", f.package_name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::{ElementStates, Rect};

    #[test]
    fn element_text_lines() {
        let l = ElementList {
            elements: vec![Element {
                reference: "@e2".into(),
                element_type: "android.widget.Switch".into(),
                label: Some("Wi-Fi \"home\"\nx".into()),
                identifier: Some("com.android.settings:id/switch".into()),
                rect: Rect {
                    x: 900,
                    y: 500,
                    width: 100,
                    height: 100,
                },
                states: ElementStates {
                    selected: true,
                    checked: true,
                    enabled: false,
                    ..Default::default()
                },
                ..Default::default()
            }],
        };
        let t = l.render_text();
        let line = t.lines().nth(1).unwrap();
        assert_eq!(
            line,
            r#"@e2 Switch label="Wi-Fi \"home\"\nx" id="com.android.settings:id/switch" at=950,550 size=100x100 selected checked disabled"#
        );
        assert!(
            l.render_json()
                .starts_with("Found these elements on screen: [{\"ref\":\"@e2\"")
        );
    }
}
