//! The living UI: screens that change with time, not only with commands.
//!
//! A real phone's screen keeps moving after a command returns: an activity slides in, a
//! list is filled when its data arrives, a snackbar shows and goes by itself, a fling keeps
//! scrolling, the soft keyboard slides up and pans the layout, a progress spinner never
//! stops. [`Life`] (a field of [`crate::state::PhoneState`]) says which screens do what
//! ([`ScreenLife`], keyed `package/screen`) and remembers when each change began; the
//! screen is then computed from the time since that event (`shape`): the same tree feeds
//! `uiautomator dump`, the screenshot and hit-testing, so a tap in the middle of a
//! transition lands where the element is drawn at that moment.
//!
//! Nothing lives unless a scenario asks for it ([`scenario::living_state`] adds the Shop
//! app); the default scenario's screens stay static and instant. The hooks into the rest of
//! the phone are: `layout::layout` calls `shape`, `PhoneState::run_action` calls
//! [`on_action`], `Shared::run_line` calls [`after_command`] (and waits for
//! [`latency::LatencyProfile`] when one is set), and the screenshot calls [`spinner`].
//!
//! Durations follow public sources (cited where each is defined): Material's
//! `SnackbarManager` (1500/2750 ms), AOSP `config_mediumAnimTime`-scale transitions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::state::{PhoneState, element_key};

mod clock;
pub(crate) mod compose;
pub mod latency;
pub mod scenario;
mod shape;

pub use clock::Clock;
pub use shape::{FRAME_MS, shape, spinner};

/// Material `SnackbarManager.SHORT_DURATION_MS` (`Snackbar.LENGTH_SHORT`), in ms
/// (material-components-android, lib/java/com/google/android/material/snackbar/SnackbarManager.java).
pub const SNACKBAR_SHORT_MS: u64 = 1500;
/// Material `SnackbarManager.LONG_DURATION_MS` (`Snackbar.LENGTH_LONG`), in ms (same file).
pub const SNACKBAR_LONG_MS: u64 = 2750;

/// What one screen does over time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScreenLife {
    /// The screen slides in from the right over this many ms when it is entered (0: at once).
    pub enter_ms: u64,
    /// Elements from this index on arrive late (a list filled when its data comes).
    pub late_from: Option<usize>,
    /// How long after entering the late elements arrive; a progress spinner shows until then.
    pub late_after_ms: u64,
    /// A progress spinner that never stops.
    pub spinner: bool,
    /// A focused text field raises the soft keyboard, which pans the layout up so the field
    /// stays visible (`adjustPan`).
    pub keyboard: bool,
    /// Element key → the snackbar its action shows.
    pub snackbars: BTreeMap<String, Snack>,
}

/// A snackbar an element shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snack {
    /// Its text.
    pub text: String,
    /// How long it stays ([`SNACKBAR_SHORT_MS`] or [`SNACKBAR_LONG_MS`]).
    pub duration_ms: u64,
}

/// A snackbar on screen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Shown {
    pub text: String,
    pub since_ms: u64,
    pub duration_ms: u64,
    /// The screen it belongs to (`package/screen`).
    pub screen: String,
}

/// What the phone last saw, and when each change began.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Seen {
    pub screen: String,
    pub entered_ms: u64,
    pub scroll: i32,
    pub scroll_from: i32,
    pub scroll_ms: u64,
    pub focused: Option<String>,
    pub focus_ms: u64,
    pub snackbar: Option<Shown>,
    /// The frames the display composed (for `dumpsys SurfaceFlinger --frametimeline`).
    pub composed: compose::Composed,
}

/// The living part of the phone's state.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Life {
    /// What lives, by `package/screen`.
    pub screens: BTreeMap<String, ScreenLife>,
    /// When set, every command costs what it costs on a mid-range phone.
    pub latency: Option<latency::LatencyProfile>,
    /// The clock the screen is computed from.
    #[serde(skip)]
    pub clock: Clock,
    #[serde(skip)]
    pub(crate) seen: Seen,
}

/// Compares what a scenario declares; the clock and the stamps of what was seen are how the
/// state is being looked at, not part of it (a saved and reloaded scenario equals its source).
impl PartialEq for Life {
    fn eq(&self, other: &Life) -> bool {
        self.screens == other.screens && self.latency == other.latency
    }
}

/// `package/screen` of the foreground frame.
pub(crate) fn screen_key(s: &PhoneState) -> String {
    s.foreground()
        .map(|f| format!("{}/{}", f.package, f.screen))
        .unwrap_or_default()
}

impl Life {
    /// What the foreground screen does, if it lives.
    pub(crate) fn current<'a>(&'a self, s: &PhoneState) -> Option<&'a ScreenLife> {
        self.screens.get(&screen_key(s))
    }
}

/// After every command: stamps what changed (screen, scroll, focus) with the time now.
pub fn after_command(s: &mut PhoneState) {
    let now = s.living.clock.now();
    // What the old stamps animated up to now was composed before this command's change.
    compose::advance(s, now);
    stamp(s, now);
    compose::after_change(s, now);
}

/// Stamps what changed (screen, scroll, focus) with `now`.
fn stamp(s: &mut PhoneState, now: u64) {
    let key = screen_key(s);
    let (scroll, focused) = s
        .foreground()
        .map(|f| (f.scroll, f.focused.clone()))
        .unwrap_or((0, None));
    let seen = &mut s.living.seen;
    if seen.screen != key {
        seen.screen = key;
        seen.entered_ms = now;
        seen.scroll = scroll;
        seen.scroll_from = scroll;
        seen.focused = focused.clone();
        seen.focus_ms = now;
        return;
    }
    if seen.scroll != scroll {
        seen.scroll_from = seen.scroll;
        seen.scroll = scroll;
        seen.scroll_ms = now;
    }
    if seen.focused != focused {
        seen.focused = focused;
        seen.focus_ms = now;
    }
}

/// When an element's action runs: shows the snackbar it is declared to show.
pub fn on_action(s: &mut PhoneState, element: &str) {
    let key = screen_key(s);
    let Some(snack) = s
        .living
        .screens
        .get(&key)
        .and_then(|l| l.snackbars.get(element))
        .cloned()
    else {
        return;
    };
    let now = s.living.clock.now();
    s.living.seen.snackbar = Some(Shown {
        text: snack.text,
        since_ms: now,
        duration_ms: snack.duration_ms,
        screen: key,
    });
}

/// The key of the element at `index` of the foreground screen (for declaring snackbars).
pub fn key_of(s: &PhoneState, index: usize) -> Option<String> {
    let screen = s.current_screen()?;
    (index < screen.elements.len()).then(|| element_key(screen, index))
}

#[cfg(test)]
mod tests;
