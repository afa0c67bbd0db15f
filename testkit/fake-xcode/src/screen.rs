//! What the fake simulator shows: the accessibility tree idb prints, taps that change
//! it, text typed into the focused field, and launching apps.

use super::json::J;
use super::state::{Simulator, UiElement};

/// The bundle id of the home screen.
pub const SPRINGBOARD: &str = "com.apple.springboard";

impl Simulator {
    /// Screen size in points as currently oriented.
    pub fn points(&self) -> (u32, u32) {
        if self.orientation.starts_with("LANDSCAPE") {
            (self.height_points, self.width_points)
        } else {
            (self.width_points, self.height_points)
        }
    }

    /// The key into `screens` of what is shown now.
    pub(crate) fn screen_key(&self) -> Option<String> {
        let fg = self.foreground.as_ref()?;
        Some(self.shown.get(fg).cloned().unwrap_or_else(|| fg.clone()))
    }

    /// The elements below the `Application` element, with a system alert on top.
    pub fn visible(&self) -> Vec<UiElement> {
        let mut es = match self.screen_key() {
            Some(key) => self.screens.get(&key).cloned().unwrap_or_default(),
            None => self.home_screen(),
        };
        super::keyboard::avoid(self, &mut es);
        if let Some(a) = &self.alert {
            es.extend(alert_elements(&a.title, self.points()));
        }
        es
    }

    /// The size `simctl io screenshot` writes, in points: the portrait framebuffer
    /// unless the profile turns captures with the interface.
    pub fn capture_points(&self) -> (u32, u32) {
        if self.screenshot_follows_rotation {
            self.points()
        } else {
            (self.width_points, self.height_points)
        }
    }

    /// The home screen as idb prints it on a real simulator
    /// (`fixtures/ios/describe-all-flat-homescreen.json`): every icon is a `Button`
    /// whose id is the app's name, and the page control is a `Slider`.
    fn home_screen(&self) -> Vec<UiElement> {
        let mut es: Vec<UiElement> = self
            .apps
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let (col, row) = ((i % 4) as f64, (i / 4) as f64);
                let mut e = UiElement::new(
                    "Button",
                    a.shown_name(),
                    (27.0 + col * 90.0, 80.0 + row * 100.0, 64.0, 64.0),
                );
                e.id = Some(a.shown_name().to_string());
                e.value = Some(String::new());
                e.on_tap = Some(format!("launch:{}", a.bundle_id));
                e
            })
            .collect();
        let (w, h) = self.points();
        let mut pill = UiElement::new(
            "Slider",
            "Search",
            (w as f64 / 2.0 - 40.0, h as f64 - 117.0, 80.0, 30.0),
        );
        pill.id = Some("spotlight-pill".into());
        pill.value = Some("Page 1 of 1".into());
        es.push(pill);
        es
    }

    /// The label of the `Application` element: the app's display name, or on the
    /// home screen a lone space, as captured (`describe-all-flat-homescreen.json`).
    pub fn application_label(&self) -> String {
        match &self.foreground {
            Some(fg) => self
                .apps
                .iter()
                .find(|a| &a.bundle_id == fg)
                .map(|a| a.shown_name().to_string())
                .unwrap_or_else(|| fg.clone()),
            None => " ".into(),
        }
    }

    /// Starts (or brings forward) an app; returns its pid.
    pub fn launch(&mut self, bundle_id: &str, args: Vec<String>) -> u32 {
        let pid = match self.running.get(bundle_id) {
            Some(pid) => *pid,
            None => {
                let pid = self.next_pid;
                self.next_pid += 1;
                self.running.insert(bundle_id.to_string(), pid);
                pid
            }
        };
        self.launch_args.insert(bundle_id.to_string(), args);
        self.foreground = Some(bundle_id.to_string());
        pid
    }

    /// Taps at a point (portrait points); returns what was hit.
    pub fn tap(&mut self, x: f64, y: f64) -> Option<String> {
        self.gestures.push(format!("tap {x},{y}"));
        let key = self.screen_key();
        // An alert is modal: only its own buttons take taps.
        let mut elements = match &self.alert {
            Some(a) => alert_elements(&a.title, self.points()),
            None => self.visible(),
        };
        let path = hit_path(&elements, x, y)?;
        // Focus moves to a tapped text field.
        let hit = element_at(&mut elements, &path).clone();
        if self.alert.is_none() && (hit.kind.contains("TextField") || hit.kind == "TextArea") {
            // The stored screen, not `elements`: those frames may be moved over the keyboard.
            if let Some(stored) = key.as_ref().and_then(|k| self.screens.get_mut(k)) {
                clear_focus(stored);
                element_at(stored, &path).focused = true;
            }
        }
        match hit.on_tap.as_deref() {
            Some(a) if a.starts_with("launch:") => {
                self.launch(&a["launch:".len()..], Vec::new());
            }
            Some("home") => self.foreground = None,
            Some("alert:open") => {
                if let Some(a) = self.alert.take() {
                    if let Some((scheme, _)) = a.url.split_once(':') {
                        self.approved_schemes.push(scheme.to_ascii_lowercase());
                    }
                    self.opened_urls.push(a.url);
                    self.launch(&a.opens, Vec::new());
                }
            }
            Some("alert:cancel") => self.alert = None,
            Some(a) if a.starts_with("show:") => {
                if let Some(fg) = self.foreground.clone() {
                    let target = a["show:".len()..].to_string();
                    if target == fg {
                        self.shown.remove(&fg);
                    } else {
                        self.shown.insert(fg, target);
                    }
                }
            }
            _ => {}
        }
        hit.label
    }

    /// Types into the focused field; false when nothing has focus.
    pub fn type_text(&mut self, text: &str) -> bool {
        let Some(key) = self.screen_key() else {
            return false;
        };
        let Some(elements) = self.screens.get_mut(&key) else {
            return false;
        };
        fn go(es: &mut [UiElement], text: &str) -> bool {
            for e in es {
                if e.focused {
                    let mut v = e.value.take().unwrap_or_default();
                    v.push_str(text);
                    e.value = Some(v);
                    return true;
                }
                if go(&mut e.children, text) {
                    return true;
                }
            }
            false
        }
        go(elements, text)
    }

    /// The keyboard's Delete: the focused field loses its last character. Whether a field
    /// had the focus.
    pub fn backspace(&mut self) -> bool {
        let Some(key) = self.screen_key() else {
            return false;
        };
        let Some(elements) = self.screens.get_mut(&key) else {
            return false;
        };
        fn go(es: &mut [UiElement]) -> bool {
            for e in es {
                if e.focused {
                    if let Some(v) = e.value.as_mut() {
                        v.pop();
                    }
                    return true;
                }
                if go(&mut e.children) {
                    return true;
                }
            }
            false
        }
        go(elements)
    }
}

fn hit_path(es: &[UiElement], x: f64, y: f64) -> Option<Vec<usize>> {
    // Later siblings are drawn on top, so search from the end.
    for (i, e) in es.iter().enumerate().rev() {
        if e.contains(x, y) {
            let mut path = vec![i];
            if let Some(rest) = hit_path(&e.children, x, y) {
                path.extend(rest);
            }
            return Some(path);
        }
    }
    None
}

fn element_at<'a>(es: &'a mut [UiElement], path: &[usize]) -> &'a mut UiElement {
    let e = &mut es[path[0]];
    if path.len() == 1 {
        e
    } else {
        element_at(&mut e.children, &path[1..])
    }
}

fn clear_focus(es: &mut [UiElement]) {
    for e in es {
        e.focused = false;
        clear_focus(&mut e.children);
    }
}

/// The "Open in “App”?" confirmation: a title and two buttons, centred.
pub(crate) fn alert_elements(title: &str, (w, h): (u32, u32)) -> Vec<UiElement> {
    let (x, y) = (w as f64 / 2.0 - 135.0, h as f64 / 2.0 - 60.0);
    let mut cancel = UiElement::new("Button", "Cancel", (x, y + 76.0, 135.0, 44.0));
    cancel.on_tap = Some("alert:cancel".into());
    let mut open = UiElement::new("Button", "Open", (x + 135.0, y + 76.0, 135.0, 44.0));
    open.on_tap = Some("alert:open".into());
    vec![
        UiElement::new("StaticText", title, (x, y, 270.0, 60.0)),
        cancel,
        open,
    ]
}

/// `role` and `role_description` per `type`: the translator's roles
/// (FBAXRoleVocabulary.swift `translatorRoleNames`) with AppKit's `AX` spelling, and
/// the descriptions captured in `fixtures/ios/` where there is one.
fn role(kind: &str, subrole: Option<&str>) -> (&'static str, &'static str) {
    match (kind, subrole) {
        ("Application", _) => ("AXApplication", "application"),
        ("Button", _) => ("AXButton", "button"),
        ("TextField", Some("AXSearchField")) => ("AXTextField", "search text field"),
        ("TextField", Some("AXSecureTextField")) => ("AXTextField", "secure text field"),
        ("TextField", _) => ("AXTextField", "text field"),
        ("TextArea", _) => ("AXTextArea", "text entry area"),
        ("StaticText", _) => ("AXStaticText", "text"),
        ("Heading", _) => ("AXHeading", "heading"),
        ("Image", _) => ("AXImage", "image"),
        ("CheckBox", Some("AXSwitch")) => ("AXCheckBox", "switch"),
        ("CheckBox", _) => ("AXCheckBox", "checkbox"),
        ("RadioButton", _) => ("AXRadioButton", "radio button"),
        ("PopUpButton", _) => ("AXPopUpButton", "pop up button"),
        ("Slider", _) => ("AXSlider", "slider"),
        ("Link", _) => ("AXLink", "link"),
        _ => ("AXGroup", "group"),
    }
}

/// One element as idb's companion prints it, with its 14 keys in their order.
fn ax(
    kind: &str,
    label: Option<&str>,
    value: Option<&str>,
    id: Option<&str>,
    (x, y, w, h): (f64, f64, f64, f64),
    subrole: Option<&str>,
) -> Vec<(String, J)> {
    let (role, desc) = role(kind, subrole);
    let f = |n: f64| {
        if n.fract() == 0.0 {
            format!("{}", n as i64)
        } else {
            format!("{n}")
        }
    };
    vec![
        (
            "AXFrame".into(),
            J::s(format!(
                "{{{{{}, {}}}, {{{}, {}}}}}",
                f(x),
                f(y),
                f(w),
                f(h)
            )),
        ),
        ("AXUniqueId".into(), J::opt(id)),
        (
            "frame".into(),
            J::obj(vec![
                ("y", J::Num(y)),
                ("x", J::Num(x)),
                ("width", J::Num(w)),
                ("height", J::Num(h)),
            ]),
        ),
        ("role_description".into(), J::s(desc)),
        ("AXLabel".into(), J::opt(label)),
        ("content_required".into(), J::Bool(false)),
        ("type".into(), J::s(kind)),
        ("title".into(), J::Null),
        ("help".into(), J::Null),
        ("custom_actions".into(), J::Arr(vec![])),
        ("AXValue".into(), J::opt(value)),
        ("enabled".into(), J::Bool(true)),
        ("role".into(), J::s(role)),
        ("subrole".into(), J::opt(subrole)),
    ]
}

fn element_json(e: &UiElement, nested: bool, out: &mut Vec<J>) -> J {
    let mut pairs = ax(
        &e.kind,
        e.label.as_deref(),
        e.value.as_deref(),
        e.id.as_deref(),
        (e.x, e.y, e.width, e.height),
        e.subrole.as_deref(),
    );
    if nested {
        let kids = e
            .children
            .iter()
            .map(|c| element_json(c, true, out))
            .collect();
        pairs.push(("children".into(), J::Arr(kids)));
        J::Obj(pairs)
    } else {
        let me = J::Obj(pairs);
        out.push(me.clone());
        for c in &e.children {
            element_json(c, false, out);
        }
        me
    }
}

/// Adds the keys fb-idb 1.5's companion prints beside the 14 of 1.1.x: `pid` and
/// `traits` (`fixtures/ios/describe-all-nested-axe-contacts.json`; facebook/idb
/// FBSimulatorControlTests FBAccessibilitySerializationTests.swift).
pub(crate) fn with_1_5_keys(j: J, pid: u32) -> J {
    match j {
        J::Arr(items) => J::Arr(items.into_iter().map(|i| with_1_5_keys(i, pid)).collect()),
        J::Obj(pairs) => {
            let mut out: Vec<(String, J)> = pairs
                .into_iter()
                .map(|(k, v)| {
                    let v = if k == "children" {
                        with_1_5_keys(v, pid)
                    } else {
                        v
                    };
                    (k, v)
                })
                .collect();
            out.push(("pid".into(), J::Int(pid as i64)));
            out.push(("traits".into(), J::Arr(vec![])));
            J::Obj(out)
        }
        other => other,
    }
}

/// SpringBoard's pid in the fake (the home screen's elements belong to it).
pub(crate) const SPRINGBOARD_PID: u32 = 812;

impl Simulator {
    /// The pid of the process whose elements are shown.
    pub(crate) fn front_pid(&self) -> u32 {
        self.foreground
            .as_ref()
            .and_then(|f| self.running.get(f).copied())
            .unwrap_or(SPRINGBOARD_PID)
    }
}

/// `idb ui describe-all` (flat) or `--nested`.
pub(crate) fn describe_all(sim: &Simulator, nested: bool) -> J {
    let (w, h) = sim.points();
    let label = sim.application_label();
    let mut root = ax(
        "Application",
        Some(&label),
        None,
        None,
        (0.0, 0.0, w as f64, h as f64),
        None,
    );
    let mut visible = sim.visible();
    super::transition::shape(sim, &mut visible);
    if nested {
        let mut sink = Vec::new();
        let kids = visible
            .iter()
            .map(|e| element_json(e, true, &mut sink))
            .collect();
        root.push(("children".into(), J::Arr(kids)));
        J::Arr(vec![J::Obj(root)])
    } else {
        let mut out = vec![J::Obj(root)];
        for e in &visible {
            element_json(e, false, &mut out);
        }
        J::Arr(out)
    }
}

/// `idb ui describe-point X Y`: the deepest element there, or `null`.
pub(crate) fn describe_point(sim: &Simulator, x: f64, y: f64) -> J {
    let visible = sim.visible();
    let Some(path) = hit_path(&visible, x, y) else {
        return J::Null;
    };
    let mut es = visible;
    let e = element_at(&mut es, &path).clone();
    J::Obj(ax(
        &e.kind,
        e.label.as_deref(),
        e.value.as_deref(),
        e.id.as_deref(),
        (e.x, e.y, e.width, e.height),
        e.subrole.as_deref(),
    ))
}

/// The tree idb answers while an app is still launching: one element with no type and
/// an empty frame.
pub(crate) fn empty_tree() -> J {
    J::Arr(vec![
        J::Obj(ax("", None, None, None, (0.0, 0.0, 0.0, 0.0), None)).with_null_type(),
    ])
}

impl J {
    fn with_null_type(self) -> J {
        match self {
            J::Obj(pairs) => J::Obj(
                pairs
                    .into_iter()
                    .map(|(k, v)| match k.as_str() {
                        "type" | "role" | "role_description" | "AXValue" => (k, J::Null),
                        _ => (k, v),
                    })
                    .collect(),
            ),
            other => other,
        }
    }
}
