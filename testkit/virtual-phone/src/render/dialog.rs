//! An alert dialog's window, drawn over everything else: the dim over the whole screen
//! (the platform themes' `backgroundDimAmount`, 0.6), then a Material card with its
//! title, message and two text buttons in the app's colour, at the bounds
//! `crate::state::dialog` laid out.

use super::canvas::{Align, Canvas, Rgb};
use crate::layout::Node;
use crate::state::{BUTTON_SP, MESSAGE_SP, TITLE_SP, wrap};

/// The share of black the dim mixes over the screen behind the dialog.
const DIM: f32 = 0.6;
const SURFACE: Rgb = [255, 255, 255];
const ON_SURFACE: Rgb = [32, 33, 36];
const MUTED: Rgb = [95, 99, 104];

/// Draws the dialog `window` (a `NodeRole::Dialog` node) over the frame.
pub(crate) fn draw(c: &mut Canvas, window: &Node, accent: Rgb) {
    c.dim(DIM);
    let [l, t, r, b] = window.bounds;
    c.round_rect(l, t, r, b, c.d(28.0), SURFACE);
    window.walk(&mut |n| {
        let [nl, nt, nr, nb] = n.bounds;
        match n.resource_id.as_str() {
            "android:id/alertTitle" => {
                let style = c.style(TITLE_SP, ON_SURFACE);
                c.text_in((nl, nt, nr, nb), &style, Align::Left, &n.text);
            }
            "android:id/message" => {
                let style = c.style(MESSAGE_SP, MUTED);
                let line = c.d(20.0);
                for (i, text) in wrap(style.px, &n.text, (nr - nl) as f32).iter().enumerate() {
                    let y = nt + i as i32 * line;
                    c.text_in((nl, y, nr, y + line), &style, Align::Left, text);
                }
            }
            "android:id/button1" | "android:id/button2" => {
                let style = c.style(BUTTON_SP, accent).medium();
                c.text_in((nl, nt, nr, nb), &style, Align::Center, &n.text);
            }
            _ => {}
        }
    });
}
