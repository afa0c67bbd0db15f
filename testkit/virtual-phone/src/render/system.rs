//! The system's parts of the screen, drawn over the app: the status bar (clock, Wi-Fi,
//! signal and battery as simple shapes), the three-button navigation bar, and the on-screen
//! keyboard (a Gboard-like QWERTY panel above the navigation bar while a text field has the
//! focus, which is when `dumpsys input_method` says `mInputShown=true`).

use super::canvas::{Align, Canvas, Rgb};

const WHITE: Rgb = [255, 255, 255];

/// The status bar across `0..height`, over `bg` (the app's dark colour, or the wallpaper
/// when `bg` is `None`).
pub(crate) fn status_bar(c: &mut Canvas, height: i32, bg: Option<Rgb>) {
    if let Some(bg) = bg {
        c.fill(0, 0, c.w, height, bg);
    }
    let (w, d) = (c.w, c.dp);
    let pad = c.d(16.0);
    let clock = c.style(14.0, WHITE).medium();
    c.text_in((pad, 0, w / 2, height), &clock, Align::Left, "12:00");
    let mid = height / 2;
    let icon = c.d(14.0);
    // Battery: a body with a nub, nearly full.
    let (br, bw) = (w - pad, c.d(8.0));
    c.round_rect(
        br - bw,
        mid - icon / 2,
        br,
        mid + icon / 2 + 1,
        c.d(1.5),
        WHITE,
    );
    c.fill(
        br - bw / 2 - c.d(1.5),
        mid - icon / 2 - c.d(1.5),
        br - bw / 2 + c.d(1.5),
        mid - icon / 2,
        WHITE,
    );
    // Signal: a right triangle rising to the right.
    let sr = (br - bw - c.d(6.0)) as f32;
    let (top, bottom) = ((mid - icon / 2) as f32, (mid + icon / 2) as f32);
    c.triangle([(sr - 14.0 * d, bottom), (sr, bottom), (sr, top)], WHITE);
    // Wi-Fi: a fan opening upwards.
    let wifi = sr - 14.0 * d - 6.0 * d - 9.0 * d;
    c.fan(wifi, bottom, 12.0 * d, WHITE);
}

/// The navigation bar across `top..c.h`: back, home and recents.
pub(crate) fn nav_bar(c: &mut Canvas, top: i32, bg: Option<Rgb>) {
    if let Some(bg) = bg {
        c.fill(0, top, c.w, c.h, bg);
    }
    let grey: Rgb = [224, 224, 224];
    let cy = (top + c.h) / 2;
    let s = c.d(8.0) as f32;
    let (w, cyf) = (c.w as f32, cy as f32);
    let back = w * 0.25;
    c.triangle(
        [
            (back - s, cyf),
            (back + s, cyf - s * 1.15),
            (back + s, cyf + s * 1.15),
        ],
        grey,
    );
    c.circle(c.w / 2, cy, c.d(9.0), grey);
    let rec = (w * 0.75) as i32;
    let half = c.d(8.0);
    c.round_rect(rec - half, cy - half, rec + half, cy + half, c.d(2.0), grey);
}

/// The keyboard panel's height for a screen, in pixels.
pub(crate) fn keyboard_height(c: &Canvas) -> i32 {
    c.d(8.0 + 40.0 + 4.0 * 56.0)
}

/// The keyboard with its bottom at `bottom` (the top of the navigation bar).
pub(crate) fn keyboard(c: &mut Canvas, bottom: i32, accent: Rgb) {
    let top = bottom - keyboard_height(c);
    c.fill(0, top, c.w, bottom, [232, 234, 237]);
    // The suggestion strip.
    let strip = c.d(40.0);
    let w = c.w;
    let muted = c.style(14.0, [95, 99, 104]);
    c.text_in((0, top, w, top + strip), &muted, Align::Center, "•   •   •");
    let rows: [&[&str]; 4] = [
        &["q", "w", "e", "r", "t", "y", "u", "i", "o", "p"],
        &["a", "s", "d", "f", "g", "h", "j", "k", "l"],
        &["⇧", "z", "x", "c", "v", "b", "n", "m", "⌫"],
        &["?123", ",", " ", ".", "⏎"],
    ];
    let (gap, row_h) = (c.d(6.0), c.d(56.0));
    let unit = (w - gap) / 10;
    let key_style = c.style(22.0, [32, 33, 36]);
    let small = c.style(14.0, [32, 33, 36]);
    for (ri, keys) in rows.iter().enumerate() {
        let y = top + strip + ri as i32 * row_h;
        // Widths in tenths of the row: letters 1, the wide keys 1.5, space 5.
        let widths: Vec<f32> = keys
            .iter()
            .map(|k| match *k {
                " " => 5.0,
                "⇧" | "⌫" | "?123" | "⏎" => 1.5,
                _ => 1.0,
            })
            .collect();
        let total: f32 = widths.iter().sum();
        let mut x = gap as f32 + (10.0 - total) * unit as f32 / 2.0;
        for (k, kw) in keys.iter().zip(widths) {
            let (l, r) = (x as i32, (x + kw * unit as f32) as i32 - gap);
            let (t, b) = (y + gap / 2, y + row_h - gap / 2);
            let special = kw > 1.0 || *k == ",";
            let key_bg = match *k {
                "⏎" => accent,
                _ if special => [201, 205, 210],
                _ => [255, 255, 255],
            };
            c.round_rect(l, t, r, b, c.d(6.0), key_bg);
            match *k {
                "⏎" => {
                    // An arrow: a bar and a head.
                    let (cx, cy) = ((l + r) / 2, (t + b) / 2);
                    let s = c.d(7.0);
                    c.fill(cx - s, cy - c.d(1.0), cx + s, cy + c.d(1.0), WHITE);
                    let (fx, fy, fs) = ((cx - s) as f32, cy as f32, s as f32 * 0.7);
                    c.triangle(
                        [(fx - fs * 0.3, fy), (fx + fs, fy - fs), (fx + fs, fy + fs)],
                        WHITE,
                    );
                }
                "⇧" => {
                    let (cx, cy, s) = (((l + r) / 2) as f32, ((t + b) / 2) as f32, c.d(8.0) as f32);
                    c.triangle([(cx, cy - s), (cx - s, cy), (cx + s, cy)], [32, 33, 36]);
                    c.fill(
                        (cx - s * 0.4) as i32,
                        cy as i32,
                        (cx + s * 0.4) as i32,
                        (cy + s * 0.8) as i32,
                        [32, 33, 36],
                    );
                }
                "⌫" => {
                    let (cx, cy, s) = (((l + r) / 2) as f32, ((t + b) / 2) as f32, c.d(8.0) as f32);
                    c.triangle(
                        [
                            (cx - s * 1.4, cy),
                            (cx - s * 0.5, cy - s),
                            (cx - s * 0.5, cy + s),
                        ],
                        [32, 33, 36],
                    );
                    c.fill(
                        (cx - s * 0.5) as i32,
                        (cy - s) as i32,
                        (cx + s) as i32,
                        (cy + s) as i32,
                        [32, 33, 36],
                    );
                }
                " " => {}
                "?123" => {
                    c.text_in((l, t, r, b), &small, Align::Center, k);
                }
                _ => {
                    c.text_in((l, t, r, b), &key_style, Align::Center, k);
                }
            }
            x += kw * unit as f32;
        }
    }
}
