//! The app's part of the screen: each laid-out node drawn as a plain Material widget at its
//! bounds (app bar and title, text, list rows with a leading icon, filled buttons, filled
//! text fields with an underline, switches, images, launcher icons). Sizes are Material's
//! in dp and sp, scaled by the screen density, so text reads as on a phone.

use super::canvas::{Align, Canvas, Rgb, darker};
use crate::layout::{Node, NodeRole};
use crate::state::ElementKind;

const ON_SURFACE: Rgb = [32, 33, 36];
const MUTED: Rgb = [95, 99, 104];
const WHITE: Rgb = [255, 255, 255];

/// Draws `n` and its children; `accent` is the app's colour.
pub(crate) fn draw(c: &mut Canvas, n: &Node, accent: Rgb) {
    let [l, t, r, b] = n.bounds;
    match n.role {
        NodeRole::Container => {}
        NodeRole::Toolbar => {
            c.fill(l, t, r, b, accent);
            // A soft shadow under the bar (elevation).
            for (i, k) in [0.16f32, 0.10, 0.06, 0.03].iter().enumerate() {
                let y = b + i as i32;
                let shade = darker([255, 255, 255], *k);
                c.fill(l, y, r, y + 1, shade);
            }
        }
        NodeRole::Title => {
            let style = c.style(20.0, WHITE).medium();
            c.text_in((l, t, r, b), &style, Align::Left, &n.text);
        }
        NodeRole::Element(kind) => element(c, n, kind, accent),
        // A dialog's window is drawn over the system bars, by `super::dialog`.
        NodeRole::Dialog => return,
    }
    for ch in &n.children {
        draw(c, ch, accent);
    }
}

fn element(c: &mut Canvas, n: &Node, kind: ElementKind, accent: Rgb) {
    let [l, t, r, b] = n.bounds;
    let bx = (l, t, r, b);
    match kind {
        ElementKind::Text => {
            let style = c.style(16.0, ON_SURFACE);
            c.text_in(bx, &style, Align::Left, &n.text);
        }
        ElementKind::ListItem => {
            // A tinted round icon, then the title at Material's 72 dp keyline.
            let icon = c.d(12.0);
            let cy = (t + b) / 2;
            let tint = mix(accent, WHITE, 0.78);
            c.circle(l + icon, cy, icon + c.d(6.0), tint);
            c.circle(l + icon, cy, icon / 2, accent);
            let text_l = l + c.d(56.0);
            let style = c.style(18.0, ON_SURFACE);
            c.text_in((text_l, t, r, b), &style, Align::Left, &n.text);
            c.fill(text_l, b - 1, r, b, [232, 234, 237]);
        }
        ElementKind::Button => {
            let (bg, fg) = if n.enabled {
                (accent, WHITE)
            } else {
                ([224, 224, 224], [158, 158, 158])
            };
            let inset = c.d(2.0);
            c.round_rect(l, t + inset, r, b - inset, (b - t) / 2, bg);
            let style = c.style(14.0, fg).medium();
            c.text_in(bx, &style, Align::Center, &n.text);
        }
        ElementKind::EditText => {
            // Material's filled text field: rounded top, underline, text at 16 dp.
            let radius = c.d(4.0);
            c.round_rect(l, t, r, b, radius, [241, 243, 244]);
            c.fill(l, b - radius, r, b, [241, 243, 244]);
            let (line, colour) = if n.focused {
                (c.d(2.0), accent)
            } else {
                (c.d(1.0), [117, 117, 117])
            };
            c.fill(l, b - line, r, b, colour);
            let fg = if n.is_hint { MUTED } else { ON_SURFACE };
            let style = c.style(16.0, fg);
            let pad = c.d(16.0);
            let end = c.text_in((l + pad, t, r - pad, b), &style, Align::Left, &n.text);
            if n.focused {
                // The caret: after the value, or at the start over a hint.
                let x = if n.is_hint { l + pad } else { end + c.d(1.0) };
                let half = c.d(11.0);
                let cy = (t + b) / 2;
                c.fill(x, cy - half, x + c.d(2.0), cy + half, accent);
            }
        }
        ElementKind::Switch => {
            let (track_w, track_h) = (c.d(52.0), c.d(32.0));
            let (tr, cy) = (r, (t + b) / 2);
            let tl = tr - track_w;
            let style = c.style(16.0, ON_SURFACE);
            c.text_in((l, t, tl - c.d(16.0), b), &style, Align::Left, &n.text);
            let (tt, tb) = (cy - track_h / 2, cy + track_h / 2);
            if n.checked {
                c.round_rect(tl, tt, tr, tb, track_h / 2, accent);
                c.circle(tr - track_h / 2, cy, c.d(12.0), WHITE);
            } else {
                let outline: Rgb = [117, 117, 117];
                c.round_rect(tl, tt, tr, tb, track_h / 2, outline);
                let inner = c.d(2.0);
                c.round_rect(
                    tl + inner,
                    tt + inner,
                    tr - inner,
                    tb - inner,
                    track_h / 2 - inner,
                    [232, 234, 237],
                );
                c.circle(tl + track_h / 2, cy, c.d(8.0), outline);
            }
        }
        ElementKind::Image => {
            // A picture placeholder: sky, sun and a mountain.
            c.round_rect(l, t, r, b, c.d(12.0), [207, 216, 220]);
            let (w, h) = ((r - l) as f32, (b - t) as f32);
            let base = b as f32 - h * 0.15;
            c.triangle(
                [
                    (l as f32 + w * 0.15, base),
                    (l as f32 + w * 0.45, t as f32 + h * 0.3),
                    (l as f32 + w * 0.75, base),
                ],
                [120, 144, 156],
            );
            c.circle(
                l + (w * 0.72) as i32,
                t + (h * 0.32) as i32,
                (h * 0.12) as i32,
                [255, 224, 130],
            );
        }
        ElementKind::AppIcon => {
            // An adaptive-icon circle with the app's initial, the label below it.
            let size = c.d(52.0);
            let cx = (l + r) / 2;
            let top = t + c.d(8.0);
            let colour = super::app_colour(&n.content_desc);
            c.circle(cx, top + size / 2, size / 2, colour);
            let initial: String = n.text.chars().take(1).collect();
            let big = c.style(24.0, WHITE).medium();
            c.text_in(
                (cx - size / 2, top, cx + size / 2, top + size),
                &big,
                Align::Center,
                &initial,
            );
            let label = c.style(14.0, WHITE);
            let lt = top + size + c.d(4.0);
            c.text_in(
                (l + c.d(2.0), lt, r - c.d(2.0), lt + c.d(24.0)),
                &label,
                Align::Center,
                &n.text,
            );
        }
    }
}

/// `a` mixed towards `b` by `k` (0 = `a`, 1 = `b`).
fn mix(a: Rgb, b: Rgb, k: f32) -> Rgb {
    [0, 1, 2].map(|i| (f32::from(a[i]) * (1.0 - k) + f32::from(b[i]) * k).round() as u8)
}
