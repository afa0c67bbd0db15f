//! Lays out the foreground screen into a view tree with pixel bounds, in the current
//! orientation. The same tree feeds `uiautomator dump`, the screenshot renderer and hit-testing
//! for `input tap`, so what a test sees in a dump is exactly what a tap at those bounds hits.

use crate::state::{ElementKind, LAUNCHER_PACKAGE, PhoneState, element_key};

/// What a node is, for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeRole {
    /// A plain container (the screen root, a list).
    Container,
    /// The app bar at the top.
    Toolbar,
    /// The title text in the app bar.
    Title,
    /// One of the screen's elements.
    Element(ElementKind),
    /// The window of an alert dialog over the screen (`crate::state::Dialog`).
    Dialog,
}

/// One node of the laid-out view tree (uiautomator attributes plus drawing info).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Node {
    /// What the node is, for drawing.
    pub role: NodeRole,
    /// The Android widget class (`android.widget.Button`, …).
    pub class: String,
    /// The `text` attribute.
    pub text: String,
    /// The `resource-id` attribute (`pkg:id/name` or empty).
    pub resource_id: String,
    /// The `package` attribute.
    pub package: String,
    /// The `content-desc` attribute.
    pub content_desc: String,
    /// The `checkable` attribute.
    pub checkable: bool,
    /// The `checked` attribute.
    pub checked: bool,
    /// The `clickable` attribute.
    pub clickable: bool,
    /// The `enabled` attribute.
    pub enabled: bool,
    /// The `focusable` attribute.
    pub focusable: bool,
    /// The `focused` attribute.
    pub focused: bool,
    /// The `scrollable` attribute.
    pub scrollable: bool,
    /// The `password` attribute.
    pub password: bool,
    /// Shown as a hint (empty EditText): drawn dimmer.
    pub is_hint: bool,
    /// `[left, top, right, bottom]`.
    pub bounds: [i32; 4],
    /// Child nodes, in drawing and dump order.
    pub children: Vec<Node>,
    /// The element this node shows (key on its screen), for hit-testing.
    pub element: Option<String>,
    /// For a scrolling list: how far it can scroll, in pixels (0 = fits).
    pub max_scroll: i32,
}

impl Node {
    pub(crate) fn container(class: &str, package: &str, bounds: [i32; 4]) -> Node {
        Node {
            role: NodeRole::Container,
            class: class.to_string(),
            text: String::new(),
            resource_id: String::new(),
            package: package.to_string(),
            content_desc: String::new(),
            checkable: false,
            checked: false,
            clickable: false,
            enabled: true,
            focusable: false,
            focused: false,
            scrollable: false,
            password: false,
            is_hint: false,
            bounds,
            children: Vec::new(),
            element: None,
            max_scroll: 0,
        }
    }

    /// Centre of the bounds.
    pub fn center(&self) -> (i32, i32) {
        (
            (self.bounds[0] + self.bounds[2]) / 2,
            (self.bounds[1] + self.bounds[3]) / 2,
        )
    }

    fn contains(&self, x: f64, y: f64) -> bool {
        x >= f64::from(self.bounds[0])
            && x < f64::from(self.bounds[2])
            && y >= f64::from(self.bounds[1])
            && y < f64::from(self.bounds[3])
    }

    /// Visits the tree depth-first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Node)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }
}

/// System bar heights in pixels for a density.
pub(crate) fn bars(density: u32) -> (i32, i32) {
    (dp(24, density), dp(48, density))
}

fn dp(v: i32, density: u32) -> i32 {
    (v as i64 * density as i64 / 160) as i32
}

/// Lays out the foreground screen.
pub(crate) fn layout(state: &PhoneState) -> Node {
    let (w, h) = state.oriented_size();
    let (w, h) = (w as i32, h as i32);
    let density = state
        .display
        .override_density
        .unwrap_or(state.display.density);
    let (status, navbar) = bars(density);
    let frame = state.foreground();
    let package = frame.map(|f| f.package.clone()).unwrap_or_default();
    let mut root = Node::container("android.widget.FrameLayout", &package, [0, 0, w, h]);
    let mut decor = Node::container("android.widget.LinearLayout", &package, [0, 0, w, h]);
    let mut content = Node::container(
        "android.widget.FrameLayout",
        &package,
        [0, status, w, h - navbar],
    );
    content.resource_id = "android:id/content".into();
    let Some(screen) = state.current_screen() else {
        decor.children.push(content);
        root.children.push(decor);
        return root;
    };
    // Behind the keyguard the app's window has no input focus, so none of its nodes does.
    let focused_key = frame
        .and_then(|f| f.focused.clone())
        .filter(|_| !state.profile.keyguard);
    let pad = dp(16, density);
    let gap = dp(8, density);
    let mut y = status;

    if !screen.title.is_empty() {
        let tb_h = dp(64, density);
        let mut tb = Node::container("android.view.ViewGroup", &package, [0, y, w, y + tb_h]);
        tb.role = NodeRole::Toolbar;
        tb.resource_id = format!("{package}:id/toolbar");
        let mut title = Node::container(
            "android.widget.TextView",
            &package,
            [
                pad,
                y + dp(16, density),
                w - pad,
                y + tb_h - dp(16, density),
            ],
        );
        title.role = NodeRole::Title;
        title.text = screen.title.clone();
        tb.children.push(title);
        content.children.push(tb);
        y += tb_h;
    }

    let bottom = h - navbar;
    let mut list = Node::container(
        if package == LAUNCHER_PACKAGE {
            "android.view.ViewGroup"
        } else {
            "android.widget.LinearLayout"
        },
        &package,
        [0, y, w, bottom],
    );
    list.resource_id = if package == LAUNCHER_PACKAGE {
        "com.android.launcher3:id/workspace".into()
    } else {
        format!("{package}:id/list")
    };

    let is_launcher = package == LAUNCHER_PACKAGE;
    let cols = if is_launcher {
        (w / dp(100, density)).max(1)
    } else {
        1
    };
    let cell_w = (w - 2 * pad) / cols;
    // First pass: positions relative to an unscrolled list.
    let mut placed = Vec::with_capacity(screen.elements.len());
    let mut row_y = y + gap;
    let mut content_bottom = row_y;
    for (i, e) in screen.elements.iter().enumerate() {
        let height = match e.kind {
            ElementKind::Text => dp(40, density),
            ElementKind::ListItem => dp(64, density),
            ElementKind::Button => dp(48, density),
            ElementKind::EditText => dp(56, density),
            ElementKind::Switch => dp(56, density),
            ElementKind::Image => dp(120, density),
            ElementKind::AppIcon => dp(96, density),
        };
        let col = (i as i32) % cols;
        if cols > 1 && col == 0 && i > 0 {
            row_y += dp(96, density) + gap;
        }
        let (left, right) = if cols > 1 {
            (pad + col * cell_w, pad + (col + 1) * cell_w)
        } else {
            (pad, w - pad)
        };
        let top = row_y;
        let bot = top + height;
        if cols == 1 {
            row_y = bot + gap;
        }
        content_bottom = content_bottom.max(bot + gap);
        placed.push((i, e, left, top, right, bot));
    }
    // Content taller than the list scrolls (`input swipe`); what is outside is not shown.
    let max_scroll = (content_bottom - bottom).max(0);
    list.scrollable = max_scroll > 0;
    let scroll = frame.map(|f| f.scroll).unwrap_or(0).clamp(0, max_scroll);
    for (i, e, left, top, right, bot) in placed {
        let (top, bot) = (top - scroll, bot - scroll);
        if top < y || bot > bottom {
            continue; // off screen: not in the dump, not drawn
        }
        let key = element_key(screen, i);
        let mut n = Node::container(e.kind.class_name(), &package, [left, top, right, bot]);
        n.role = NodeRole::Element(e.kind);
        n.resource_id = e.resource_id.clone();
        n.content_desc = e.content_desc.clone();
        n.enabled = e.enabled;
        n.password = e.password;
        n.clickable = e.clickable();
        n.focusable = n.clickable || e.kind == ElementKind::EditText;
        n.checkable = e.kind == ElementKind::Switch;
        n.checked = e.checked;
        n.focused = focused_key.as_deref() == Some(key.as_str());
        if e.kind == ElementKind::EditText && e.text.is_empty() {
            // TextView reports its hint as the text when empty (getTextForAccessibility).
            n.text = e.hint.clone();
            n.is_hint = true;
        } else if e.password {
            n.text = "•".repeat(e.text.chars().count());
        } else {
            n.text = e.text.clone();
        }
        n.element = Some(key);
        list.children.push(n);
    }
    list.max_scroll = max_scroll;
    content.children.push(list);
    decor.children.push(content);
    root.children.push(decor);
    crate::living::shape(state, &mut root);
    if let Some(d) = frame.and_then(|f| f.dialog.as_ref()) {
        let dp = density as f32 / 160.0;
        root.children
            .push(crate::state::dialog_window(d, &package, w, h, dp));
    }
    root
}

/// The scrollable list under `(x, y)`, if any: its bounds and how far it can scroll.
pub(crate) fn scroll_target(root: &Node, x: f64, y: f64) -> Option<i32> {
    let mut found = None;
    root.walk(&mut |n| {
        if n.scrollable && n.contains(x, y) {
            found = Some(n.max_scroll);
        }
    });
    found
}

/// The deepest element node under `(x, y)`.
pub(crate) fn hit_test(root: &Node, x: f64, y: f64) -> Option<&Node> {
    let mut found = None;
    root.walk(&mut |n| {
        if n.element.is_some() && n.contains(x, y) {
            found = Some(n);
        }
    });
    found
}
