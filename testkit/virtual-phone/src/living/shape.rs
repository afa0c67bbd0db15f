//! Computes what a living screen shows at the time now: the laid-out tree is moved, cut and
//! added to according to the events [`super::Seen`] stamped, frame by frame.

use crate::layout::{Node, bars};
use crate::state::{PhoneState, element_key};

use super::screen_key;

/// One display frame (60 Hz): the living screen changes at most once per frame.
pub const FRAME_MS: u64 = 16;
/// A snackbar slides in and out over this long (Material `SnackbarBaseLayout`'s
/// `ANIMATION_DURATION` = 250 ms in BaseTransientBottomBar.java).
pub(super) const SNACK_SLIDE_MS: u64 = 250;
/// The IME inset animation (WindowInsetsAnimation of the soft keyboard; AOSP
/// `InsetsController.ANIMATION_DURATION_SHOW_MS` = 275 ms).
pub(super) const KEYBOARD_MS: u64 = 275;
/// A fling keeps the list moving after the finger lifts; modelled as one decelerating run.
pub(super) const FLING_MS: u64 = 300;
/// The soft keyboard's height as a share of the screen.
const KEYBOARD_SHARE: f64 = 0.4;

/// Progress of an animation of `dur` ms begun at `since`, whole frames only, 0.0..=1.0.
fn progress(now: u64, since: u64, dur: u64) -> f64 {
    if dur == 0 {
        return 1.0;
    }
    let t = now.saturating_sub(since) / FRAME_MS * FRAME_MS;
    (t as f64 / dur as f64).min(1.0)
}

/// Decelerate interpolation (Android's `DecelerateInterpolator` with factor 1).
fn ease(p: f64) -> f64 {
    1.0 - (1.0 - p) * (1.0 - p)
}

fn shift(n: &mut Node, dx: i32, dy: i32) {
    n.bounds[0] += dx;
    n.bounds[2] += dx;
    n.bounds[1] += dy;
    n.bounds[3] += dy;
    for c in &mut n.children {
        shift(c, dx, dy);
    }
}

fn dp(s: &PhoneState, v: i32) -> i32 {
    let d = s.display.override_density.unwrap_or(s.display.density);
    (v as i64 * d as i64 / 160) as i32
}

/// The content node (`android:id/content`) of a laid-out tree.
fn content_mut(root: &mut Node) -> Option<&mut Node> {
    root.children.get_mut(0)?.children.get_mut(0)
}

fn progress_bar(package: &str, list: &Node, size: i32) -> Node {
    let cx = (list.bounds[0] + list.bounds[2]) / 2;
    let top = list
        .children
        .last()
        .map(|c| c.bounds[3])
        .unwrap_or(list.bounds[1])
        + size / 2;
    let mut n = list.clone();
    n.children.clear();
    n.class = "android.widget.ProgressBar".into();
    n.resource_id = format!("{package}:id/progress");
    n.package = package.to_string();
    n.scrollable = false;
    n.max_scroll = 0;
    n.element = None;
    n.bounds = [cx - size / 2, top, cx + size / 2, top + size];
    n
}

/// Applies the foreground screen's life at the clock's time to its laid-out tree.
pub fn shape(s: &PhoneState, root: &mut Node) {
    let life = &s.living;
    let Some(sl) = life.current(s) else {
        return;
    };
    let seen = &life.seen;
    let key = screen_key(s);
    if seen.screen != key {
        return; // not stamped yet (state edited directly): shown as settled
    }
    let now = life.clock.now();
    let (w, h) = s.oriented_size();
    let (w, h) = (w as i32, h as i32);
    let (_, navbar) = bars(s.display.override_density.unwrap_or(s.display.density));
    let package = s
        .foreground()
        .map(|f| f.package.clone())
        .unwrap_or_default();
    let index: Vec<String> = s
        .current_screen()
        .map(|sc| (0..sc.elements.len()).map(|i| element_key(sc, i)).collect())
        .unwrap_or_default();
    let Some(content) = content_mut(root) else {
        return;
    };
    let Some(list) = content.children.last_mut() else {
        return;
    };
    let (top, mut bottom) = (list.bounds[1], list.bounds[3]);
    let gap = dp(s, 8);

    // Late content: rows from `late_from` on are not there yet; a spinner turns meanwhile.
    if let Some(from) = sl.late_from
        && now.saturating_sub(seen.entered_ms) < sl.late_after_ms
    {
        list.children.retain(|n| {
            n.element
                .as_ref()
                .and_then(|k| index.iter().position(|i| i == k))
                .is_none_or(|i| i < from)
        });
        let bar = progress_bar(&package, list, dp(s, 48));
        list.children.push(bar);
    } else if sl.spinner {
        let bar = progress_bar(&package, list, dp(s, 48));
        list.children.push(bar);
    }

    // A fling: rows are still on their way to where the scroll ends.
    if seen.scroll != seen.scroll_from && now.saturating_sub(seen.scroll_ms) < FLING_MS {
        let p = ease(progress(now, seen.scroll_ms, FLING_MS));
        let shown = seen.scroll_from as f64 + (seen.scroll - seen.scroll_from) as f64 * p;
        let dy = (seen.scroll as f64 - shown).round() as i32;
        for c in &mut list.children {
            shift(c, 0, dy);
        }
    }

    // A snackbar at the top of the content pushes the rows down while it shows.
    if let Some(sh) = seen.snackbar.as_ref().filter(|sh| sh.screen == key) {
        let age = now.saturating_sub(sh.since_ms);
        let frac = if age < sh.duration_ms {
            ease(progress(now, sh.since_ms, SNACK_SLIDE_MS))
        } else {
            1.0 - ease(progress(now, sh.since_ms + sh.duration_ms, SNACK_SLIDE_MS))
        };
        let height = (f64::from(dp(s, 48)) * frac).round() as i32;
        if height > 0 {
            for c in &mut list.children {
                shift(c, 0, height + gap);
            }
            let mut bar = progress_bar(&package, list, 0);
            bar.class = "android.widget.TextView".into();
            bar.resource_id = format!("{package}:id/snackbar_text");
            bar.text = sh.text.clone();
            bar.role = crate::layout::NodeRole::Element(crate::state::ElementKind::Text);
            bar.bounds = [dp(s, 16), top + gap, w - dp(s, 16), top + gap + height];
            list.children.insert(0, bar);
        }
    }

    // The soft keyboard: slides up and pans the rows so the focused field stays above it.
    if sl.keyboard && seen.focused.is_some() {
        let p = ease(progress(now, seen.focus_ms, KEYBOARD_MS));
        let kb = (f64::from(h) * KEYBOARD_SHARE * p).round() as i32;
        let kb_top = h - navbar - kb;
        let field_bottom = list
            .children
            .iter()
            .find(|n| n.focused)
            .map(|n| n.bounds[3]);
        if let Some(fb) = field_bottom
            && fb + gap > kb_top
        {
            let pan = fb + gap - kb_top;
            for c in &mut list.children {
                shift(c, 0, -pan);
            }
        }
        bottom = bottom.min(kb_top);
    }

    // Rows outside the list area are neither dumped nor drawn.
    list.children
        .retain(|n| n.bounds[1] >= top && n.bounds[3] <= bottom);

    // The activity slides in from the right.
    if now.saturating_sub(seen.entered_ms) < sl.enter_ms {
        let p = ease(progress(now, seen.entered_ms, sl.enter_ms));
        let dx = (f64::from(w) * (1.0 - p)).round() as i32;
        for c in &mut content.children {
            shift(c, dx, 0);
        }
        clip_x(content, w);
    }
}

/// Drops what slid off the right edge and cuts bounds at the screen edge, as uiautomator
/// reports visible bounds.
fn clip_x(n: &mut Node, w: i32) {
    n.children.retain(|c| c.bounds[0] < w);
    for c in &mut n.children {
        c.bounds[2] = c.bounds[2].min(w);
        clip_x(c, w);
    }
}

/// What the screenshot paints over the rendered tree at the clock's time: the turning
/// progress spinner's head and the soft keyboard, as `(bounds, rgb)` fills.
pub fn spinner(s: &PhoneState, root: &Node) -> Vec<([i32; 4], [u8; 3])> {
    let mut out = Vec::new();
    let Some(sl) = s.living.current(s) else {
        return out;
    };
    let now = s.living.clock.now();
    root.walk(&mut |n| {
        if n.class == "android.widget.ProgressBar" {
            // A new position round the centre every frame, 7 degrees on, so the frame
            // repeats only after 360 frames (several seconds), like an indeterminate
            // indicator whose arc also grows and shrinks.
            let deg = (now / FRAME_MS * 7 % 360) as f64;
            let phase = deg.to_radians();
            let (cx, cy) = n.center();
            let r = (n.bounds[2] - n.bounds[0]) / 2;
            let (x, y) = (
                cx + (f64::from(r) * phase.cos()) as i32,
                cy + (f64::from(r) * phase.sin()) as i32,
            );
            out.push(([x - 6, y - 6, x + 6, y + 6], [26, 115, 232]));
        }
    });
    let seen = &s.living.seen;
    if sl.keyboard && seen.focused.is_some() && seen.screen == screen_key(s) {
        let (w, h) = s.oriented_size();
        let (_, navbar) = bars(s.display.override_density.unwrap_or(s.display.density));
        let p = ease(progress(now, seen.focus_ms, KEYBOARD_MS));
        let kb = (f64::from(h) * KEYBOARD_SHARE * p).round() as i32;
        let bottom = h as i32 - navbar;
        if kb > 0 {
            out.push(([0, bottom - kb, w as i32, bottom], [232, 234, 237]));
        }
    }
    out
}
