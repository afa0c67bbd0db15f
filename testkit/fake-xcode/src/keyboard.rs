//! The software keyboard of the fake simulator: up while a text field of the app in front
//! has the focus (as with the simulator's software keyboard shown, or on a device), and
//! what it does to the screen. It covers the bottom of the screen, and a bar holding the
//! focused field (Qwen's composer) rides on top of it, as a view pinned to UIKit's
//! `keyboardLayoutGuide` does, so the frames idb lists, the taps and the picture agree.
//!
//! Height: 335 points in portrait (the keys, the predictive bar and the emoji/dictation
//! row above the home indicator on a Face ID iPhone, as `UIKeyboardFrameEndUserInfoKey`
//! reports it), 209 in landscape; the key rows are the English QWERTY layout.

use super::state::{Simulator, UiElement};

/// The keyboard's height in points for a screen of `(w, h)` points.
pub(crate) fn height((w, h): (u32, u32)) -> f64 {
    if w > h { 209.0 } else { 335.0 }
}

fn has_focus(es: &[UiElement]) -> bool {
    es.iter().any(|e| {
        (e.focused && (e.kind.contains("TextField") || e.kind == "TextArea"))
            || has_focus(&e.children)
    })
}

fn shift(e: &mut UiElement, dy: f64) {
    e.y += dy;
    for c in &mut e.children {
        shift(c, dy);
    }
}

impl Simulator {
    /// Whether the software keyboard is up: an app is in front, no system alert is, and a
    /// text field of its screen has the focus.
    pub fn keyboard_shown(&self) -> bool {
        self.foreground.is_some() && self.alert.is_none() && self.focused_screen()
    }

    fn focused_screen(&self) -> bool {
        let Some(fg) = self.foreground.as_ref() else {
            return false;
        };
        let key = self.shown.get(fg).unwrap_or(fg);
        self.screens.get(key).is_some_and(|es| has_focus(es))
    }
}

/// Moves the top-level element that holds the focused field above the keyboard when the
/// keyboard would cover it (its bottom then sits on the keyboard's top).
pub(crate) fn avoid(sim: &Simulator, es: &mut [UiElement]) {
    if !sim.keyboard_shown() {
        return;
    }
    let points = sim.points();
    let top = f64::from(points.1) - height(points);
    for e in es.iter_mut() {
        let holds = (e.focused && e.kind.contains("TextField")) || has_focus(&e.children);
        if holds && e.y + e.height > top {
            let dy = top - (e.y + e.height);
            shift(e, dy);
        }
    }
}

/// The key rows, top to bottom; the special keys are named in brackets.
pub(crate) const ROWS: [&[&str]; 4] = [
    &["q", "w", "e", "r", "t", "y", "u", "i", "o", "p"],
    &["a", "s", "d", "f", "g", "h", "j", "k", "l"],
    &["[shift]", "z", "x", "c", "v", "b", "n", "m", "[delete]"],
    &["123", "[emoji]", "space", "return"],
];

#[cfg(test)]
mod tests {
    use crate::{BOOTED_UDID, default_state};

    fn rgb(png: &[u8]) -> image::RgbImage {
        image::load_from_memory(png).unwrap().to_rgb8()
    }

    #[test]
    fn a_focused_field_raises_the_keyboard_and_its_bar_rides_on_it() {
        let mut state = default_state();
        let sim = state
            .simulators
            .iter_mut()
            .find(|s| s.udid == BOOTED_UDID)
            .unwrap();
        sim.launch("com.alibaba.qwen", Vec::new());
        let field = |sim: &crate::state::Simulator| {
            let es = sim.visible();
            let bar = es.iter().find(|e| !e.children.is_empty()).unwrap().clone();
            bar.children[0].clone()
        };
        let before = field(sim);
        let (_, h) = sim.points();
        let scale = f64::from(sim.scale);
        let plain = rgb(&crate::picture::png(sim));
        assert!(!sim.keyboard_shown());

        sim.tap(
            before.x + before.width / 2.0,
            before.y + before.height / 2.0,
        );
        assert!(sim.keyboard_shown());
        let after = field(sim);
        let kb_top = f64::from(h) - super::height(sim.points());
        let bar = sim
            .visible()
            .into_iter()
            .find(|e| !e.children.is_empty())
            .unwrap();
        assert!(
            (bar.y + bar.height - kb_top).abs() < 0.5,
            "the composer sits on the keyboard: {bar:?}"
        );
        assert!(after.y < before.y);
        assert!(after.focused);
        // The stored screen keeps its frames: only what is shown moves.
        assert_eq!(sim.screens["com.alibaba.qwen"][1].children[0].y, before.y);
        // A tap on the lifted field's new place still hits it.
        assert_eq!(
            sim.tap(after.x + 10.0, after.y + after.height / 2.0)
                .as_deref(),
            Some("Ask Qwen")
        );

        let shot = rgb(&crate::picture::png(sim));
        let px = |img: &image::RgbImage, x: f64, y: f64| {
            img.get_pixel((x * scale) as u32, (y * scale) as u32).0
        };
        // The panel's grey where the plain screen was the app's background.
        let (gx, gy) = (1.0, kb_top + 4.0);
        assert_ne!(px(&plain, gx, gy), px(&shot, gx, gy));
        assert_eq!(px(&shot, gx, gy), [209, 212, 217]);
        // The first key, "q", is a white cap with a dark glyph on it.
        let (qx, qy) = (3.0, kb_top + 50.0);
        let unit = (f64::from(sim.points().0) - 6.0 - 54.0) / 10.0;
        let mut dark = 0;
        let mut white = 0;
        for dy in 2..40 {
            for dx in 2..(unit as i32 - 2) {
                let p = px(&shot, qx + f64::from(dx), qy + f64::from(dy));
                dark += i32::from(p.iter().all(|v| *v < 100));
                white += i32::from(p == [255, 255, 255]);
            }
        }
        assert!(
            dark > 20 && white > 500,
            "q key: {dark} dark, {white} white"
        );
    }
}
