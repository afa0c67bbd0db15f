//! A screen change that takes time: after a tap opens another screen, the new screen
//! slides in from the right over [`Simulator::transition_ms`] (0, the default, is at once),
//! so `idb ui describe-all` reports its elements on their way for a few frames before they
//! rest. A navigation push on iOS is such a slide (UIKit's `UINavigationController`); the
//! duration a test sets is a modelling choice of the order of Core Animation's default
//! (`CATransaction.animationDuration`, 0.25 s), see `fixtures/SOURCES.md`. Only what idb
//! reads moves: taps and screenshots see the resting screen.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::state::{Simulator, UiElement};

/// One display frame (60 Hz): the slide moves once per frame.
const FRAME_MS: u64 = 16;

/// A slide in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    /// When it began, in ms since the Unix epoch.
    pub since_ms: u64,
    /// How long it takes.
    pub duration_ms: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// After a tap: starts the slide when the tap changed the screen shown (`before` is the
/// screen key before the tap).
pub(crate) fn after_tap(sim: &mut Simulator, before: Option<String>) {
    if sim.transition_ms > 0 && sim.screen_key() != before {
        sim.transition = Some(Transition {
            since_ms: now_ms(),
            duration_ms: sim.transition_ms,
        });
    }
}

fn shift(e: &mut UiElement, dx: f64) {
    e.x += dx;
    for c in &mut e.children {
        shift(c, dx);
    }
}

/// The elements as drawn now: moved right by what is left of the slide (decelerating,
/// whole frames), dropping those still wholly off the screen.
pub(crate) fn shape(sim: &Simulator, elements: &mut Vec<UiElement>) {
    let Some(t) = &sim.transition else {
        return;
    };
    let age = now_ms().saturating_sub(t.since_ms) / FRAME_MS * FRAME_MS;
    if t.duration_ms == 0 || age >= t.duration_ms {
        return;
    }
    let p = age as f64 / t.duration_ms as f64;
    let eased = 1.0 - (1.0 - p) * (1.0 - p);
    let w = f64::from(sim.points().0);
    let dx = (w * (1.0 - eased)).round();
    for e in elements.iter_mut() {
        shift(e, dx);
    }
    elements.retain(|e| e.x < w);
}
