//! What `simctl io screenshot` writes: the fake simulator's screen drawn as a plain iOS
//! screen at its pixel size (points times scale): status bar with the clock and the Dynamic
//! Island, the home screen's icons and labels on a wallpaper, or the app's elements (large
//! titles, search fields, table cells, buttons, text, switches) on white, and the home
//! indicator. Text is drawn with `mobile_screenshot::text` (Roboto stands in for San
//! Francisco, which may not be embedded), so the labels idb lists can be read off the picture.
//! While a text field has the focus the software keyboard covers the bottom of the screen
//! (light appearance: grey panel, white letter keys, darker special keys; `keyboard`), and
//! a system alert is a card over the dimmed screen (`alert_box`).

use image::{Rgba, RgbaImage};
use mobile_screenshot::text::{self, Style};

use super::keyboard;
use super::state::{Simulator, UiElement};

type Rgb = [u8; 3];

const LABEL: Rgb = [0, 0, 0];
const SECONDARY: Rgb = [110, 110, 115];
const TINT: Rgb = [0, 122, 255];
const WHITE: Rgb = [255, 255, 255];

/// The screen in points, drawn at `scale` pixels per point.
struct Canvas {
    img: RgbaImage,
    scale: f64,
}

impl Canvas {
    fn px(&self, v: f64) -> i64 {
        (v * self.scale).round() as i64
    }

    /// A rectangle in points with corners of `radius` points, anti-aliased at the corners.
    fn round_rect(&mut self, (x, y, w, h): (f64, f64, f64, f64), radius: f64, c: Rgb) {
        let (l, t, r, b) = (self.px(x), self.px(y), self.px(x + w), self.px(y + h));
        let rad = (radius * self.scale)
            .min((r - l) as f64 / 2.0)
            .min((b - t) as f64 / 2.0);
        let (iw, ih) = (i64::from(self.img.width()), i64::from(self.img.height()));
        let (cl, cr) = (l as f64 + rad, r as f64 - rad);
        let (ct, cb) = (t as f64 + rad, b as f64 - rad);
        for py in t.max(0)..b.min(ih) {
            let fy = py as f64 + 0.5;
            let dy = (ct - fy).max(fy - cb).max(0.0);
            for px in l.max(0)..r.min(iw) {
                let fx = px as f64 + 0.5;
                let dx = (cl - fx).max(fx - cr).max(0.0);
                let cover = if dx == 0.0 && dy == 0.0 {
                    1.0
                } else {
                    (rad - (dx * dx + dy * dy).sqrt() + 0.5).clamp(0.0, 1.0)
                };
                if cover >= 1.0 {
                    *self.img.get_pixel_mut(px as u32, py as u32) = Rgba([c[0], c[1], c[2], 255]);
                } else if cover > 0.0 {
                    let p = self.img.get_pixel_mut(px as u32, py as u32);
                    for (dst, &src) in p.0.iter_mut().zip(&c) {
                        let v = f64::from(src) * cover + f64::from(*dst) * (1.0 - cover);
                        *dst = v.round() as u8;
                    }
                }
            }
        }
    }

    fn fill(&mut self, frame: (f64, f64, f64, f64), c: Rgb) {
        self.round_rect(frame, 0.0, c);
    }

    fn style(&self, pt: f64, c: Rgb) -> Style {
        Style::new((pt * self.scale) as f32, [c[0], c[1], c[2], 255])
    }

    /// One line in the box, vertically centred; `center` centres it horizontally. Text
    /// wider than the box is shortened with an ellipsis.
    fn text_in(
        &mut self,
        (x, y, w, h): (f64, f64, f64, f64),
        style: &Style,
        center: bool,
        s: &str,
    ) {
        let max = (w * self.scale) as f32;
        let s = text::ellipsize(style, s, max);
        let width = f64::from(text::measure(style, &s));
        let line = f64::from(text::line_height(style.px));
        let left = if center {
            x * self.scale + (w * self.scale - width) / 2.0
        } else {
            x * self.scale
        };
        let top = y * self.scale + (h * self.scale - line) / 2.0;
        text::draw_on_image(
            &mut self.img,
            left.round() as i32,
            top.round() as i32,
            style,
            &s,
        );
    }
}

/// The app's colour for its home-screen icon, chosen by its bundle id.
fn icon_colour(bundle_id: &str) -> Rgb {
    const PALETTE: [Rgb; 6] = [
        [142, 142, 147],
        [0, 122, 255],
        [52, 199, 89],
        [255, 149, 0],
        [175, 82, 222],
        [255, 59, 48],
    ];
    let sum = bundle_id
        .bytes()
        .fold(0usize, |a, b| a.wrapping_mul(31).wrapping_add(b.into()));
    PALETTE[sum % PALETTE.len()]
}

/// Splits `s` into at most `lines` lines that fit `max` pixels, at spaces.
fn wrap(style: &Style, s: &str, max: f32, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in s.split(' ') {
        match out.last_mut() {
            Some(last) if text::measure(style, &format!("{last} {word}")) <= max => {
                last.push(' ');
                last.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    if out.len() > lines {
        let rest = out.split_off(lines - 1).join(" ");
        out.push(rest);
    }
    out
}

fn home(c: &mut Canvas, visible: &[UiElement]) {
    let (w, h) = (c.img.width(), c.img.height());
    for y in 0..h {
        let k = f64::from(y) / f64::from(h.max(1));
        let row = [30.0 + 40.0 * k, 60.0 + 50.0 * k, 110.0 + 40.0 * k];
        for x in 0..w {
            c.img
                .put_pixel(x, y, Rgba([row[0] as u8, row[1] as u8, row[2] as u8, 255]));
        }
    }
    for e in visible {
        if e.kind == "Slider" {
            // The page control: since iOS 17 a translucent pill that reads "Search".
            c.round_rect(
                (e.x, e.y, e.width, e.height),
                e.height / 2.0,
                [104, 124, 160],
            );
            let style = c.style(13.0, WHITE).medium();
            let label = e.label.clone().unwrap_or_default();
            c.text_in((e.x, e.y, e.width, e.height), &style, true, &label);
            continue;
        }
        let bundle = e
            .on_tap
            .as_deref()
            .and_then(|a| a.strip_prefix("launch:"))
            .unwrap_or("");
        c.round_rect(
            (e.x, e.y, e.width, e.height),
            e.width * 0.225,
            icon_colour(bundle),
        );
        let label = e.label.clone().unwrap_or_default();
        let initial: String = label.chars().take(1).collect();
        let big = c.style(30.0, WHITE).medium();
        c.text_in((e.x, e.y, e.width, e.height), &big, true, &initial);
        // The label under the icon, wrapped on up to three lines across its column, with a
        // soft shadow as on a wallpaper.
        let shadow = c.style(13.0, [0, 0, 0]);
        let shadow = Style {
            color: [0, 0, 0, 110],
            ..shadow
        };
        let style = c.style(13.0, WHITE);
        let column = e.width + 22.0;
        let lines = wrap(&style, &label, (column * c.scale) as f32, 3);
        for (i, line) in lines.iter().enumerate() {
            let y = e.y + e.height + 4.0 + 16.0 * i as f64;
            let offset = 1.0 / c.scale;
            c.text_in(
                (e.x - 11.0 + offset, y + offset, column, 16.0),
                &shadow,
                true,
                line,
            );
            c.text_in((e.x - 11.0, y, column, 16.0), &style, true, line);
        }
    }
}

fn element(c: &mut Canvas, e: &UiElement, screen_w: f64) {
    let frame = (e.x, e.y, e.width, e.height);
    let label = e.label.clone().unwrap_or_default();
    match e.kind.as_str() {
        "Heading" => heading(c, e, e.y + e.height),
        "TextField" | "SearchField" | "SecureTextField" => {
            c.round_rect(frame, 10.0, [232, 232, 237]);
            let value = e.value.clone().filter(|v| !v.is_empty());
            let (shown, colour) = match &value {
                Some(v) => (v.clone(), LABEL),
                None => (label, SECONDARY),
            };
            let style = c.style(17.0, colour);
            c.text_in(
                (e.x + 12.0, e.y, e.width - 24.0, e.height),
                &style,
                false,
                &shown,
            );
            if e.focused {
                let end = e.x
                    + 12.0
                    + f64::from(text::measure(
                        &style,
                        if value.is_some() { &shown } else { "" },
                    )) / c.scale;
                c.fill(
                    (end + 1.0, e.y + e.height * 0.25, 2.0, e.height * 0.5),
                    TINT,
                );
            }
        }
        "Button" | "Cell" if e.width >= screen_w * 0.6 => {
            // A table cell: white row, label, chevron, hairline.
            c.round_rect(frame, 10.0, WHITE);
            let style = c.style(17.0, LABEL);
            c.text_in(
                (e.x + 16.0, e.y, e.width - 48.0, e.height),
                &style,
                false,
                &label,
            );
            let chevron = c.style(17.0, [196, 196, 199]);
            c.text_in(
                (e.x + e.width - 28.0, e.y, 16.0, e.height),
                &chevron,
                true,
                "›",
            );
            c.fill(
                (e.x + 16.0, e.y + e.height - 0.33, e.width - 16.0, 0.33),
                [216, 216, 220],
            );
        }
        "Button" => {
            c.round_rect(frame, e.height / 2.0, TINT);
            let style = c.style(15.0, WHITE).medium();
            c.text_in(frame, &style, true, &label);
        }
        "CheckBox" | "Switch" => {
            let style = c.style(17.0, LABEL);
            c.text_in(
                (e.x + 16.0, e.y, e.width - 80.0, e.height),
                &style,
                false,
                &label,
            );
            let on = e.value.as_deref() == Some("1");
            let track = (
                e.x + e.width - 67.0,
                e.y + (e.height - 31.0) / 2.0,
                51.0,
                31.0,
            );
            c.round_rect(
                track,
                15.5,
                if on { [52, 199, 89] } else { [233, 233, 234] },
            );
            let knob_x = if on { track.0 + 22.0 } else { track.0 + 2.0 };
            c.round_rect((knob_x, track.1 + 2.0, 27.0, 27.0), 13.5, WHITE);
        }
        "Image" => c.round_rect(frame, 8.0, [209, 209, 214]),
        "Group" | "Other" | "Application" => {}
        _ => {
            let style = c.style(17.0, LABEL);
            c.text_in(frame, &style, false, &label);
        }
    }
    for child in &e.children {
        element(c, child, screen_w);
    }
}

/// A large title whose line ends at `bottom` (points).
fn heading(c: &mut Canvas, e: &UiElement, bottom: f64) {
    let style = c.style(30.0, LABEL).medium();
    let line = f64::from(text::line_height(style.px)) / c.scale;
    let label = e.label.clone().unwrap_or_default();
    c.text_in((e.x, bottom - line, e.width, line), &style, false, &label);
}

/// The status bar: the clock left of the Dynamic Island, signal and battery right of it.
fn status_bar(c: &mut Canvas, w: f64, fg: Rgb) {
    let clock = c.style(17.0, fg).medium();
    c.text_in((0.0, 14.0, w * 0.36, 26.0), &clock, true, "9:41");
    c.round_rect((w / 2.0 - 62.5, 11.0, 125.0, 37.0), 18.5, [0, 0, 0]);
    let right = w * 0.64;
    for i in 0..4 {
        let bar = 3.0 + 2.5 * f64::from(i);
        c.round_rect(
            (right + 20.0 + 5.0 * f64::from(i), 32.0 - bar, 3.0, bar),
            1.0,
            fg,
        );
    }
    c.round_rect((right + 62.0, 21.0, 25.0, 12.0), 3.5, fg);
}

/// The PNG of what the simulator shows now, at its pixel size.
pub(crate) fn png(sim: &Simulator) -> Vec<u8> {
    let (w, h) = sim.points();
    let scale = f64::from(sim.scale.max(1));
    let mut c = Canvas {
        img: RgbaImage::from_pixel(
            w * sim.scale.max(1),
            h * sim.scale.max(1),
            Rgba([242, 242, 247, 255]),
        ),
        scale,
    };
    let (wf, hf) = (f64::from(w), f64::from(h));
    let on_home = sim.foreground.is_none();
    // A system alert's elements come last in what is visible; they are drawn over the rest.
    let mut visible = sim.visible();
    let alert = sim.alert.as_ref().map(|a| {
        let n = super::screen::alert_elements(&a.title, sim.points()).len();
        visible.split_off(visible.len().saturating_sub(n))
    });
    if on_home {
        home(&mut c, &visible);
    } else {
        // Large titles last: the fake's frames let a search field overlap the title's frame,
        // and the title sits just above what overlaps it, as iOS draws it.
        for e in visible.iter().filter(|e| e.kind != "Heading") {
            element(&mut c, e, wf);
        }
        for e in visible.iter().filter(|e| e.kind == "Heading") {
            let below = visible
                .iter()
                .filter(|o| o.kind != "Heading" && o.y > e.y && o.y < e.y + e.height)
                .map(|o| o.y)
                .fold(e.y + e.height, f64::min);
            heading(&mut c, e, below);
        }
    }
    if sim.keyboard_shown() {
        keyboard(&mut c, (w, h));
    }
    let fg = if on_home { WHITE } else { LABEL };
    status_bar(&mut c, wf, fg);
    c.round_rect((wf / 2.0 - 67.0, hf - 13.0, 134.0, 5.0), 2.5, fg);
    if let Some(alert) = alert {
        alert_box(&mut c, &alert);
    }
    // A capture that keeps the portrait framebuffer while the interface is turned
    // (`Simulator::capture_points`) holds the turned picture on its side.
    let img = if sim.capture_points() == (w, h) {
        c.img
    } else {
        image::imageops::rotate270(&c.img)
    };
    let mut out = std::io::Cursor::new(Vec::new());
    let _ = image::DynamicImage::ImageRgba8(img)
        .to_rgb8()
        .write_to(&mut out, image::ImageFormat::Png);
    out.into_inner()
}

/// The software keyboard at the bottom of a `(w, h)`-point screen: the predictive bar, the
/// QWERTY rows of [`keyboard::ROWS`], and the globe and dictation keys under them.
fn keyboard(c: &mut Canvas, (w, h): (u32, u32)) {
    const PANEL: Rgb = [209, 212, 217];
    const SPECIAL: Rgb = [171, 177, 186];
    const SHADOW: Rgb = [137, 139, 143];
    let (wf, hf) = (f64::from(w), f64::from(h));
    let top = hf - keyboard::height((w, h));
    c.fill((0.0, top, wf, hf - top), PANEL);
    // The predictive bar: three suggestion slots split by hairlines.
    for i in 1..3 {
        c.fill(
            (wf * f64::from(i) / 3.0, top + 12.0, 0.5, 20.0),
            [172, 176, 184],
        );
    }
    let (margin, gap, key_h, pitch) = (3.0, 6.0, 42.0, 54.0);
    let unit = (wf - 2.0 * margin - 9.0 * gap) / 10.0;
    let letter = c.style(22.0, LABEL);
    let small = c.style(16.0, LABEL);
    for (ri, keys) in keyboard::ROWS.iter().enumerate() {
        let y = top + 50.0 + pitch * ri as f64;
        let widths: Vec<f64> = keys
            .iter()
            .map(|k| match *k {
                "[shift]" | "[delete]" => unit * 1.25,
                "123" | "[emoji]" => unit * 1.25,
                "return" => unit * 2.6,
                "space" => 0.0,
                _ => unit,
            })
            .collect();
        let fixed: f64 = widths.iter().sum::<f64>() + gap * (keys.len() - 1) as f64;
        let space = (wf - 2.0 * margin - fixed).max(unit);
        let spread = keys.iter().any(|k| k.starts_with('[') || *k == "space");
        let mut x = if spread { margin } else { (wf - fixed) / 2.0 };
        for (k, kw) in keys.iter().zip(widths) {
            let kw = if *k == "space" { space } else { kw };
            // Shift and delete sit at the row's ends, the letters centred between them.
            if *k == "[delete]" {
                x = wf - margin - kw;
            } else if ri == 2 && *k == "z" {
                x = (wf - (7.0 * unit + 6.0 * gap)) / 2.0;
            }
            let special = k.starts_with('[') || matches!(*k, "123" | "return");
            let bg = if special && *k != "[emoji]" {
                SPECIAL
            } else {
                WHITE
            };
            c.round_rect((x, y + 1.0, kw, key_h), 5.0, SHADOW);
            c.round_rect((x, y, kw, key_h), 5.0, bg);
            let frame = (x, y, kw, key_h);
            match *k {
                "[shift]" => {
                    // An upward arrow: a stepped head and a stem.
                    let cx = x + kw / 2.0;
                    for i in 0..8 {
                        let half = 1.0 + f64::from(i);
                        c.fill((cx - half, y + 12.0 + f64::from(i), 2.0 * half, 1.0), LABEL);
                    }
                    c.fill((cx - 3.5, y + 20.0, 7.0, 9.0), LABEL);
                }
                "[delete]" => {
                    let (cx, cy) = (x + kw / 2.0, y + key_h / 2.0);
                    c.round_rect((cx - 11.0, cy - 8.0, 22.0, 16.0), 3.0, LABEL);
                    let cross = c.style(14.0, SPECIAL).medium();
                    c.text_in((cx - 11.0, cy - 8.0, 22.0, 16.0), &cross, true, "×");
                }
                "[emoji]" => {
                    let (cx, cy) = (x + kw / 2.0, y + key_h / 2.0);
                    c.round_rect((cx - 11.0, cy - 11.0, 22.0, 22.0), 11.0, LABEL);
                    c.round_rect((cx - 9.5, cy - 9.5, 19.0, 19.0), 9.5, WHITE);
                    c.fill((cx - 5.0, cy - 4.0, 2.0, 3.0), LABEL);
                    c.fill((cx + 3.0, cy - 4.0, 2.0, 3.0), LABEL);
                    c.fill((cx - 5.0, cy + 3.0, 10.0, 1.5), LABEL);
                }
                "123" | "space" | "return" => c.text_in(frame, &small, true, k),
                _ => c.text_in(frame, &letter, true, k),
            }
            x += kw + gap;
        }
    }
    // Under the keys: the globe and the dictation microphone.
    let row = top + 50.0 + pitch * 4.0 + 8.0;
    c.round_rect((24.0, row, 26.0, 26.0), 13.0, [95, 99, 104]);
    c.round_rect((27.0, row + 3.0, 20.0, 20.0), 10.0, PANEL);
    c.fill((36.0, row + 3.0, 2.0, 20.0), [95, 99, 104]);
    c.fill((27.0, row + 12.0, 20.0, 2.0), [95, 99, 104]);
    c.round_rect((wf - 44.0, row, 12.0, 20.0), 6.0, [95, 99, 104]);
    c.fill((wf - 39.0, row + 20.0, 2.0, 5.0), [95, 99, 104]);
}

/// A system alert over the screen: the screen dimmed, then a 270-point card with the title
/// (the first element) and a row of buttons (the others) split by hairlines, at the frames
/// idb lists for them.
fn alert_box(c: &mut Canvas, alert: &[UiElement]) {
    for p in c.img.pixels_mut() {
        for v in &mut p.0[..3] {
            *v = (f64::from(*v) * 0.8).round() as u8;
        }
    }
    let Some(title) = alert.first() else {
        return;
    };
    let bottom = alert
        .iter()
        .map(|e| e.y + e.height)
        .fold(title.y + title.height, f64::max);
    let right = alert
        .iter()
        .map(|e| e.x + e.width)
        .fold(title.x + title.width, f64::max);
    let card = (title.x, title.y, right - title.x, bottom - title.y);
    c.round_rect(card, 14.0, [238, 238, 240]);
    let label = title.label.clone().unwrap_or_default();
    let style = c.style(17.0, LABEL).medium();
    c.text_in(
        (title.x + 16.0, title.y, title.width - 32.0, title.height),
        &style,
        true,
        &label,
    );
    let hairline: Rgb = [200, 200, 204];
    for (i, b) in alert.iter().skip(1).enumerate() {
        c.fill((b.x, b.y - 0.5, b.width, 0.5), hairline);
        if i > 0 {
            c.fill((b.x - 0.25, b.y, 0.5, b.height), hairline);
        }
        let label = b.label.clone().unwrap_or_default();
        let style = c.style(17.0, TINT);
        let style = if i == 0 { style.medium() } else { style };
        c.text_in((b.x, b.y, b.width, b.height), &style, true, &label);
    }
}

#[cfg(test)]
mod tests {
    use crate::{BOOTED_UDID, default_state, run_xcrun};

    #[test]
    fn a_system_alert_is_a_card_over_the_dimmed_screen() {
        let mut state = default_state();
        let before = super::png(&state.simulators[0]);
        let argv: Vec<String> = ["simctl", "openurl", BOOTED_UDID, "qwen://chat"]
            .map(String::from)
            .to_vec();
        assert_eq!(run_xcrun(&mut state, &argv, b"").code, 0);
        let sim = &state.simulators[0];
        assert!(sim.alert.is_some());
        let after = super::png(sim);
        let rgb = |png: &[u8]| image::load_from_memory(png).unwrap().to_rgb8();
        let (before, after) = (rgb(&before), rgb(&after));
        let scale = sim.scale;
        let es = sim.visible();
        let title = es
            .iter()
            .find(|e| e.label.as_deref() == Some("Open in “Qwen”?"))
            .unwrap();
        // Inside the card, past its rounded corner and left of the title: the card colour.
        let (x, y) = (
            (title.x + 20.0) as u32 * scale,
            (title.y + 20.0) as u32 * scale,
        );
        assert_eq!(after.get_pixel(x, y).0, [238, 238, 240]);
        // Far from it: the home screen, dimmed.
        let (was, now) = (before.get_pixel(5, 300).0, after.get_pixel(5, 300).0);
        assert!(
            now.iter().zip(was).all(|(n, w)| *n < w),
            "{was:?} → {now:?}"
        );
        // The alert's elements are not drawn as home-screen icons: no icon colour where the
        // Open button is.
        let open = es
            .iter()
            .find(|e| e.label.as_deref() == Some("Open"))
            .unwrap();
        let p = after.get_pixel((open.x + 4.0) as u32 * scale, (open.y + 4.0) as u32 * scale);
        assert_eq!(p.0, [238, 238, 240], "the button is on the card");
    }
}
