//! How a device's screenshots are captured: raw frames or PNG, chosen by measurement.
//!
//! `screencap` can send the raw frame (10 MB for 1080×2400, no work on the phone) or a PNG
//! (`-p`, about 10× smaller, but the phone's CPU spends tens to hundreds of milliseconds
//! encoding it). Which one is faster depends on the phone and the link: a USB phone with a
//! slow CPU favours raw, adb over Wi-Fi favours PNG, and the virtual phone of the tests
//! (which caches its PNG) favours PNG by 50×. So the choice is measured per device: the first
//! capture uses the likely winner (guessed from the link, `device::prefers_png`), the
//! second tries the other route, then every capture takes the faster by a moving average of
//! its wall time, re-trying the slower one every [`REPROBE_EVERY`] captures so a change (a
//! busier phone, another screen) is noticed. Each capture is still one device round trip.
//!
//! The host's decode afterwards is left out of the comparison: both routes then feed the same
//! row-by-row downscaler, and inflating a 100 KB PNG costs a few milliseconds here, small
//! next to what separates the routes on any real link.

use std::sync::Mutex;
use std::time::Duration;

/// One way to capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// `screencap`: the raw frame.
    Raw,
    /// `screencap -p`: a PNG encoded on the phone.
    Png,
}

impl Route {
    fn index(self) -> usize {
        match self {
            Route::Raw => 0,
            Route::Png => 1,
        }
    }

    fn other(self) -> Route {
        match self {
            Route::Raw => Route::Png,
            Route::Png => Route::Raw,
        }
    }
}

/// Captures between two tries of the slower route.
pub(crate) const REPROBE_EVERY: u64 = 16;

/// Weight of a new sample in the moving average (1/4: two slow outliers don't flip it).
const NEW_SAMPLE_WEIGHT: f64 = 0.25;

/// Picks the faster route of one device from the captures it has seen.
#[derive(Debug)]
pub(crate) struct RouteChooser {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    first: Route,
    /// Moving average of the capture time per route, in seconds; `None` before a sample.
    cost: [Option<f64>; 2],
    captures: u64,
}

impl RouteChooser {
    pub(crate) fn new(first: Route) -> Self {
        RouteChooser {
            state: Mutex::new(State {
                first,
                cost: [None, None],
                captures: 0,
            }),
        }
    }

    /// The route for the next capture.
    pub(crate) fn next(&self) -> Route {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.captures += 1;
        let (first, second) = (s.first, s.first.other());
        match (s.cost[first.index()], s.cost[second.index()]) {
            (None, _) => first,
            (Some(_), None) => second,
            (Some(a), Some(b)) => {
                let (fast, slow) = if a <= b {
                    (first, second)
                } else {
                    (second, first)
                };
                // A route that failed (infinite cost) is not tried again.
                let slow_usable = s.cost[slow.index()].is_some_and(f64::is_finite);
                if slow_usable && s.captures.is_multiple_of(REPROBE_EVERY) {
                    slow
                } else {
                    fast
                }
            }
        }
    }

    /// Records how long a capture over `route` took.
    pub(crate) fn record(&self, route: Route, took: Duration) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let new = took.as_secs_f64();
        let slot = &mut s.cost[route.index()];
        *slot = Some(match *slot {
            Some(old) if old.is_finite() => old + NEW_SAMPLE_WEIGHT * (new - old),
            _ => new,
        });
    }

    /// Marks a route as unusable on this device (e.g. a raw frame in a pixel format the
    /// pipeline does not read).
    pub(crate) fn give_up(&self, route: Route) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.cost[route.index()] = Some(f64::INFINITY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn tries_both_then_keeps_the_faster_and_reprobes() {
        let c = RouteChooser::new(Route::Raw);
        assert_eq!(c.next(), Route::Raw);
        c.record(Route::Raw, ms(50));
        assert_eq!(c.next(), Route::Png);
        c.record(Route::Png, ms(2));
        let mut picked = Vec::new();
        for _ in 0..(2 * REPROBE_EVERY) {
            let r = c.next();
            picked.push(r);
            c.record(r, if r == Route::Raw { ms(50) } else { ms(2) });
        }
        let raw = picked.iter().filter(|&&r| r == Route::Raw).count();
        assert_eq!(
            raw, 2,
            "the slower route is re-tried once per {REPROBE_EVERY}: {picked:?}"
        );
    }

    #[test]
    fn follows_a_change_and_ignores_one_outlier() {
        let c = RouteChooser::new(Route::Png);
        c.record(Route::Png, ms(300));
        c.record(Route::Raw, ms(40));
        assert_eq!(c.next(), Route::Raw);
        // One slow raw capture does not flip the choice (average 40 -> 105 ms).
        c.record(Route::Raw, ms(300));
        assert_eq!(c.next(), Route::Raw);
        // Raw keeps being slow: the average passes PNG's and PNG wins.
        for _ in 0..6 {
            c.record(Route::Raw, ms(600));
        }
        assert_eq!(c.next(), Route::Png);
    }

    #[test]
    fn a_failed_route_is_not_tried_again() {
        let c = RouteChooser::new(Route::Raw);
        c.give_up(Route::Raw);
        c.record(Route::Png, ms(500));
        for _ in 0..(3 * REPROBE_EVERY) {
            assert_eq!(c.next(), Route::Png);
        }
    }
}
