//! When the display composes a frame, for `dumpsys SurfaceFlinger --frametimeline`.
//!
//! SurfaceFlinger composes only when something on screen changed: each composition ends in
//! `FrameTimeline::setSfPresent`, which appends the display frame to the list the dump
//! shows (AOSP frameworks/native services/surfaceflinger/FrameTimeline/FrameTimeline.cpp,
//! `setSfPresent` lines 918–928 → `finalizeCurrentDisplayFrame` lines 1413–1421, which
//! drops the oldest beyond `kDefaultMaxDisplayFrames` = 64, FrameTimeline.h line 525); a
//! commit that composes nothing adds no frame (`onCommitNotComposited`, lines 930–937).
//! So a static screen adds nothing and an animation adds one frame per vsync.
//!
//! The record: every vsync (a multiple of [`FRAME_MS`]) at which one of the living
//! screen's animations ([`super::shape`](mod@super::shape)) was still moving, and the first vsync after any
//! command that changed the laid-out tree (a tap that navigates, typed text, a rotation).

use std::collections::{BTreeSet, VecDeque};
use std::hash::{Hash, Hasher};

use super::shape::{FLING_MS, KEYBOARD_MS, SNACK_SLIDE_MS};
use super::{FRAME_MS, screen_key};
use crate::state::PhoneState;

/// How many display frames FrameTimeline keeps (`kDefaultMaxDisplayFrames`).
pub(crate) const MAX_DISPLAY_FRAMES: usize = 64;

/// The frames composed so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Composed {
    /// The last [`MAX_DISPLAY_FRAMES`] composed frames, oldest first.
    pub frames: VecDeque<Frame>,
    /// Every vsync up to this time has been looked at.
    upto: u64,
    /// A digest of the laid-out tree after the last command.
    drawn: u64,
}

/// One composed display frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    /// Its vsync (present) time, ms.
    pub vsync: u64,
    /// The app window it carried a buffer of: `package/activity`, and the app's pid.
    pub layer: Option<(String, u32)>,
}

/// The app window of the screen `key` (`package/screen`).
fn layer_of(s: &PhoneState, key: &str) -> Option<(String, u32)> {
    let (package, screen) = key.split_once('/')?;
    let p = s.packages.get(package)?;
    let activity = &p.screens.get(screen)?.activity;
    Some((
        format!("{package}/{activity}"),
        crate::commands::app_pid(p.uid),
    ))
}

/// The first vsync at or after `t`.
fn vsync_at_or_after(t: u64) -> u64 {
    t.div_ceil(FRAME_MS) * FRAME_MS
}

/// The time an animation of `dur` begun at `since` makes its last change: `shape` moves
/// in whole frames from `since`, so at the first whole frame that reaches `dur`.
fn last_change(since: u64, dur: u64) -> u64 {
    since + dur.div_ceil(FRAME_MS) * FRAME_MS
}

/// The spans (first change, last change; ms) in which the stamped screen is moving.
fn moving(s: &PhoneState) -> Vec<(u64, u64)> {
    let seen = &s.living.seen;
    let Some(sl) = s.living.screens.get(&seen.screen) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let entered = seen.entered_ms;
    if sl.enter_ms > 0 {
        out.push((entered, last_change(entered, sl.enter_ms)));
    }
    if sl.spinner {
        out.push((entered, u64::MAX));
    } else if sl.late_from.is_some() {
        // The spinner turns until the rows arrive, which is one more change.
        out.push((entered, entered + sl.late_after_ms));
    }
    if seen.scroll != seen.scroll_from {
        out.push((seen.scroll_ms, last_change(seen.scroll_ms, FLING_MS)));
    }
    if sl.keyboard && seen.focused.is_some() {
        out.push((seen.focus_ms, last_change(seen.focus_ms, KEYBOARD_MS)));
    }
    if let Some(sh) = seen.snackbar.as_ref().filter(|sh| sh.screen == seen.screen) {
        out.push((sh.since_ms, last_change(sh.since_ms, SNACK_SLIDE_MS)));
        let gone = sh.since_ms + sh.duration_ms;
        out.push((gone, last_change(gone, SNACK_SLIDE_MS)));
    }
    out
}

/// Records the frames the stamped animations composed up to `now`.
pub(crate) fn advance(s: &mut PhoneState, now: u64) {
    let upto = s.living.seen.composed.upto;
    let last_vsync = now / FRAME_MS * FRAME_MS;
    if last_vsync <= upto && upto != 0 {
        return;
    }
    let mut new = BTreeSet::new();
    for (first, last) in moving(s) {
        let lo = vsync_at_or_after(first).max(upto + 1);
        let hi = if last == u64::MAX {
            last_vsync
        } else {
            vsync_at_or_after(last).min(last_vsync)
        };
        if lo > hi {
            continue;
        }
        // Only the newest frames can stay in the list.
        let span = (MAX_DISPLAY_FRAMES as u64 - 1) * FRAME_MS;
        let mut g = vsync_at_or_after(lo.max(hi.saturating_sub(span)));
        while g <= hi {
            new.insert(g);
            g += FRAME_MS;
        }
    }
    let layer = layer_of(s, &s.living.seen.screen);
    let c = &mut s.living.seen.composed;
    for g in new {
        push(c, g, &layer);
    }
    c.upto = last_vsync;
}

/// After a command: a change of what the screen is made of (the activity stack, the
/// foreground screen's elements and their values, the rotation, the display) is composed at
/// the next vsync; what the living screen then animates is [`advance`]'s.
pub(crate) fn after_change(s: &mut PhoneState, now: u64) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        &s.stack,
        s.current_screen(),
        s.rotation(),
        s.oriented_size(),
    )
        .hash(&mut h);
    (
        s.display.density,
        s.display.override_density,
        s.profile.keyguard,
    )
        .hash(&mut h);
    let drawn = h.finish();
    let layer = layer_of(s, &screen_key(s));
    let c = &mut s.living.seen.composed;
    if c.drawn != drawn {
        // The first look finds the screen as it was already composed; a change is
        // composed at the next vsync.
        let at = if c.drawn == 0 {
            now / FRAME_MS * FRAME_MS
        } else {
            vsync_at_or_after(now)
        };
        c.drawn = drawn;
        push(c, at, &layer);
    }
}

fn push(c: &mut Composed, g: u64, layer: &Option<(String, u32)>) {
    if c.frames.back().is_some_and(|b| b.vsync >= g) {
        return;
    }
    c.frames.push_back(Frame {
        vsync: g,
        layer: layer.clone(),
    });
    while c.frames.len() > MAX_DISPLAY_FRAMES {
        c.frames.pop_front();
    }
}

/// The composed frames as `dumpsys` sees them now (oldest first).
pub(crate) fn frames_now(s: &mut PhoneState) -> Vec<Frame> {
    let now = s.living.clock.now();
    if s.living.seen.composed.drawn == 0 {
        after_change(s, now);
    }
    advance(s, now);
    // A frame at a vsync that has not come yet (a change stamped just now) is not composed.
    s.living
        .seen
        .composed
        .frames
        .iter()
        .filter(|f| f.vsync <= now)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::scenario::{SHOP, living_state};
    use super::super::{Clock, after_command};
    use super::*;

    fn shop() -> PhoneState {
        let mut s = living_state();
        s.living.clock = Clock::manual(1_000_000);
        after_command(&mut s);
        s.start_activity(SHOP, None).expect("shop launches");
        after_command(&mut s);
        s
    }

    #[test]
    fn a_transition_composes_frames_and_a_static_screen_none() {
        let mut s = shop();
        let at_launch = frames_now(&mut s);
        s.living.clock.advance(200);
        let sliding = frames_now(&mut s);
        assert!(sliding.len() > at_launch.len() + 5, "{sliding:?}");
        // The slide (300 ms) and the late list (500 ms) are over after 600 ms.
        s.living.clock.advance(400);
        let rest = frames_now(&mut s);
        s.living.clock.advance(1000);
        assert_eq!(frames_now(&mut s), rest, "nothing composed while static");
        let last = rest.last().unwrap().vsync;
        assert!((1_000_500..=1_000_520).contains(&last), "{last}");
        // A read-only command composes nothing; a navigation does.
        after_command(&mut s);
        assert_eq!(frames_now(&mut s), rest);
        s.focus(Some(format!("{SHOP}:id/search_input")));
        after_command(&mut s);
        s.living.clock.advance(20);
        assert_ne!(frames_now(&mut s), rest);
    }

    #[test]
    fn a_spinner_composes_for_ever() {
        let mut s = shop();
        s.living
            .screens
            .get_mut(&format!("{SHOP}/main"))
            .unwrap()
            .spinner = true;
        s.living.clock.advance(5000);
        let a = frames_now(&mut s);
        s.living.clock.advance(100);
        let b = frames_now(&mut s);
        assert_ne!(a, b);
        assert_eq!(b.len(), MAX_DISPLAY_FRAMES, "the list keeps 64 frames");
        assert_eq!(
            b.last().map(|f| f.vsync),
            Some(1_005_100 / FRAME_MS * FRAME_MS)
        );
    }
}
