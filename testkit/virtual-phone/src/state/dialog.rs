//! A plain Material alert dialog over the foreground activity: its state (on the activity's
//! `Frame`), its window laid out as the nodes `uiautomator` reports for a real
//! `AlertDialog`, and what taps and BACK do to it.
//!
//! The view tree follows AOSP's `core/res/res/layout/alert_dialog_material.xml` with its
//! `alert_dialog_title_material.xml` and `alert_dialog_button_bar_material.xml` (the sources
//! are in `fixtures/SOURCES.md`): `parentPanel` › `topPanel` › `title_template` ›
//! `alertTitle`; `contentPanel` › `scrollView` › a `LinearLayout` › `message`; `buttonPanel`
//! › the button bar › `button2` (negative) and `button1` (positive). Views the dialog hides
//! (the icon without a drawable, `customPanel` without a custom view, the neutral `button3`
//! and the spacers) are not visible to accessibility and are not dumped. The dialog's window
//! is the active window, which is the one `uiautomator dump` reports
//! (`DumpCommand` dumps `getRootInActiveWindow()`), so while it shows a dump holds only the
//! dialog; a screenshot shows the activity behind it under the dim.

use serde::{Deserialize, Serialize};

use super::{Action, PhoneState};
use crate::layout::{Node, NodeRole};

/// The dialog's text sizes in sp: the title (Material 3 headline small) and the message and
/// buttons (body medium / label large).
pub(crate) const TITLE_SP: f32 = 24.0;
/// The message's size in sp.
pub(crate) const MESSAGE_SP: f32 = 14.0;
/// The buttons' label size in sp.
pub(crate) const BUTTON_SP: f32 = 14.0;

/// An alert dialog: a title, a message and two text buttons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Dialog {
    /// The title (`android:id/alertTitle`).
    pub title: String,
    /// The message (`android:id/message`).
    pub message: String,
    /// The positive button's label (`android:id/button1`).
    pub positive: String,
    /// The negative button's label (`android:id/button2`); it only dismisses.
    pub negative: String,
    /// What the positive button does once the dialog is dismissed.
    #[serde(default)]
    pub on_positive: Option<Box<Action>>,
}

/// Material's sizes for the dialog, in dp.
const MARGIN: f32 = 24.0;
const MAX_WIDTH: f32 = 560.0;
const PAD: f32 = 24.0;
const TITLE_H: f32 = 32.0;
const TITLE_GAP: f32 = 16.0;
const MESSAGE_LINE: f32 = 20.0;
const BUTTONS_GAP: f32 = 24.0;
const BUTTON_H: f32 = 40.0;
const BUTTON_PAD: f32 = 12.0;
const BUTTON_SPACING: f32 = 8.0;

/// `text` broken at spaces into lines no wider than `max` pixels at `px`.
pub(crate) fn wrap(px: f32, text: &str, max: f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && mobile_screenshot::text::text_width(px, &candidate) > max {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn node(class: &str, id: &str, package: &str, bounds: [i32; 4]) -> Node {
    let mut n = Node::container(class, package, bounds);
    n.resource_id = id.to_string();
    n
}

/// The dialog's window on a `w` x `h` screen at `dp` pixels per dp, for the app `package`.
pub(crate) fn window(d: &Dialog, package: &str, w: i32, h: i32, dp: f32) -> Node {
    let px = |v: f32| (v * dp).round() as i32;
    let card_w = (w - 2 * px(MARGIN)).min(px(MAX_WIDTH));
    let inner = card_w - 2 * px(PAD);
    let lines = wrap(MESSAGE_SP * dp, &d.message, inner as f32).len().max(1) as f32;
    let card_h =
        px(PAD + TITLE_H + TITLE_GAP + lines * MESSAGE_LINE + BUTTONS_GAP + BUTTON_H + PAD);
    let (l, t) = ((w - card_w) / 2, (h - card_h) / 2);
    let (r, b) = (l + card_w, t + card_h);

    let title_t = t + px(PAD);
    let title_b = title_t + px(TITLE_H);
    let mut title = node(
        "android.widget.TextView",
        "android:id/alertTitle",
        package,
        [l + px(PAD), title_t, r - px(PAD), title_b],
    );
    title.text = d.title.clone();
    let mut template = node(
        "android.widget.LinearLayout",
        "android:id/title_template",
        package,
        [l, t, r, title_b],
    );
    template.children.push(title);
    let mut top = node(
        "android.widget.LinearLayout",
        "android:id/topPanel",
        package,
        [l, t, r, title_b],
    );
    top.children.push(template);

    let msg_t = title_b + px(TITLE_GAP);
    let msg_b = msg_t + px(lines * MESSAGE_LINE);
    let mut message = node(
        "android.widget.TextView",
        "android:id/message",
        package,
        [l + px(PAD), msg_t, r - px(PAD), msg_b],
    );
    message.text = d.message.clone();
    let mut column = node(
        "android.widget.LinearLayout",
        "",
        package,
        [l, msg_t, r, msg_b],
    );
    column.children.push(message);
    let mut scroll = node(
        "android.widget.ScrollView",
        "android:id/scrollView",
        package,
        [l, msg_t, r, msg_b],
    );
    scroll.children.push(column);
    let mut content_panel = node(
        "android.widget.LinearLayout",
        "android:id/contentPanel",
        package,
        [l, title_b, r, msg_b],
    );
    content_panel.children.push(scroll);

    // Text buttons at the end of the bar, the positive one last.
    let btn_b = b - px(PAD);
    let btn_t = btn_b - px(BUTTON_H);
    let width = |s: &str| {
        let text = mobile_screenshot::text::text_width(BUTTON_SP * dp, s).ceil() as i32;
        (text + 2 * px(BUTTON_PAD)).max(px(48.0))
    };
    let pos_r = r - px(PAD) + px(BUTTON_PAD);
    let pos_l = pos_r - width(&d.positive);
    let neg_r = pos_l - px(BUTTON_SPACING);
    let neg_l = neg_r - width(&d.negative);
    let button = |id: &str, text: &str, bounds: [i32; 4]| {
        let mut n = node("android.widget.Button", id, package, bounds);
        n.text = text.to_string();
        n.clickable = true;
        n.focusable = true;
        // Known by its id, so `PhoneHandle::element_center` and hit-testing find it.
        n.element = Some(id.to_string());
        n
    };
    let mut bar = node(
        "android.widget.LinearLayout",
        "",
        package,
        [l, btn_t - px(4.0), r, btn_b + px(4.0)],
    );
    bar.children.push(button(
        "android:id/button2",
        &d.negative,
        [neg_l, btn_t, neg_r, btn_b],
    ));
    bar.children.push(button(
        "android:id/button1",
        &d.positive,
        [pos_l, btn_t, pos_r, btn_b],
    ));
    let mut buttons = node(
        "android.widget.ScrollView",
        "android:id/buttonPanel",
        package,
        bar.bounds,
    );
    buttons.children.push(bar);

    let mut parent = node(
        "android.widget.LinearLayout",
        "android:id/parentPanel",
        package,
        [l, t, r, b],
    );
    parent.children = vec![top, content_panel, buttons];
    let mut content = node(
        "android.widget.FrameLayout",
        "android:id/content",
        package,
        [l, t, r, b],
    );
    content.children.push(parent);
    let mut decor = node("android.widget.FrameLayout", "", package, [l, t, r, b]);
    decor.role = NodeRole::Dialog;
    decor.children.push(content);
    decor
}

/// Which button of a laid-out dialog window is under `(x, y)`: `Some(true)` positive,
/// `Some(false)` negative, `None` neither.
fn button_at(window: &Node, x: f64, y: f64) -> Option<bool> {
    let mut hit = None;
    window.walk(&mut |n| {
        let [l, t, r, b] = n.bounds;
        let inside = x >= f64::from(l) && x < f64::from(r) && y >= f64::from(t) && y < f64::from(b);
        if inside && n.resource_id == "android:id/button1" {
            hit = Some(true);
        } else if inside && n.resource_id == "android:id/button2" {
            hit = Some(false);
        }
    });
    hit
}

impl PhoneState {
    /// The dialog in front, if the foreground activity shows one.
    pub fn dialog(&self) -> Option<&Dialog> {
        self.foreground()?.dialog.as_ref()
    }

    /// Shows `d` over the foreground activity (the soft keyboard goes down: the dialog has
    /// the focus now).
    pub fn show_dialog(&mut self, d: &Dialog) {
        if let Some(f) = self.stack.last_mut() {
            f.focused = None;
            f.dialog = Some(d.clone());
        }
        let title = d.title.clone();
        self.log('I', "AlertDialog", &format!("show: {title}"));
    }

    /// Dismisses the dialog in front, if any; true when there was one. BACK does this
    /// (`Dialog.onBackPressed` cancels a cancelable dialog).
    pub fn dismiss_dialog(&mut self) -> bool {
        self.stack
            .last_mut()
            .and_then(|f| f.dialog.take())
            .is_some()
    }

    /// A tap while a dialog shows: on a button it dismisses the dialog and runs the button's
    /// action; outside the dialog it cancels it (Material dialog themes set
    /// `windowCloseOnTouchOutside`); inside it does nothing. Nothing behind the dialog gets
    /// the tap. Returns false when no dialog shows.
    pub(crate) fn tap_dialog(&mut self, root: &Node, x: f64, y: f64) -> bool {
        let Some(d) = self.dialog().cloned() else {
            return false;
        };
        let Some(window) = root.children.iter().find(|n| n.role == NodeRole::Dialog) else {
            return false;
        };
        let [l, t, r, b] = window.bounds;
        let outside =
            x < f64::from(l) || x >= f64::from(r) || y < f64::from(t) || y >= f64::from(b);
        match button_at(window, x, y) {
            Some(positive) => {
                self.dismiss_dialog();
                let label = if positive { &d.positive } else { &d.negative };
                self.log('I', "AlertDialog", &format!("button: {label}"));
                if positive && let Some(action) = &d.on_positive {
                    self.run_action(action, "android:id/button1");
                }
            }
            None if outside => {
                self.dismiss_dialog();
            }
            None => {}
        }
        true
    }
}
