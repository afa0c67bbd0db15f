//! How a device's screenshots are captured: raw frames or PNG, chosen by measurement.
//!
//! `screencap` can send the raw frame (10 MB for 1080×2400, no work on the phone) or a PNG
//! (`-p`, about 10× smaller, but the phone's CPU spends tens to hundreds of milliseconds
//! encoding it). Which one is faster depends on the phone and the link: a USB phone with a
//! slow CPU favours raw, adb over Wi-Fi favours PNG, and the virtual phone of the tests
//! (which caches its PNG) favours PNG by far. So the choice is measured per device: the first
//! capture uses the likely winner (guessed from the link, `device::screen::prefers_png`), the
//! second tries the other route, then every capture takes the faster by a moving average of
//! its wall time, re-trying the slower one now and then so a change (a busier phone,
//! another screen) is noticed. How often depends on what a re-try costs: every
//! [`REPROBE_EVERY`] captures when the routes are close, but when the slower one costs
//! many times the faster (as on the virtual phone) only as often as
//! keeps its average cost per capture at [`REPROBE_SHARE`] of the faster route's time,
//! and at least every [`REPROBE_AT_MOST`] captures: re-trying at a fixed rate there would
//! cost several times the capture itself on average. Each capture is
//! still one device round trip.
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

/// Captures between two tries of the slower route, at the most often.
pub(crate) const REPROBE_EVERY: u64 = 16;

/// Captures between two tries of the slower route, at the least often.
pub(crate) const REPROBE_AT_MOST: u64 = 256;

/// The share of the faster route's time that re-trying the slower one may add per
/// capture on average (between [`REPROBE_EVERY`] and [`REPROBE_AT_MOST`] captures).
pub(crate) const REPROBE_SHARE: f64 = 0.05;

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
    /// The capture that last tried the slower route.
    probed: u64,
}

impl RouteChooser {
    pub(crate) fn new(first: Route) -> Self {
        RouteChooser {
            state: Mutex::new(State {
                first,
                cost: [None, None],
                captures: 0,
                probed: 0,
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
                let (fast, slow, gap) = if a <= b {
                    (first, second, b - a)
                } else {
                    (second, first, a - b)
                };
                // A route that failed (infinite cost) is not tried again.
                if !gap.is_finite() {
                    return fast;
                }
                let every = (gap / (REPROBE_SHARE * a.min(b)))
                    .clamp(REPROBE_EVERY as f64, REPROBE_AT_MOST as f64)
                    as u64;
                if s.captures - s.probed >= every {
                    s.probed = s.captures;
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

    /// How many of `n` captures take the slower route, when the routes cost `raw` and
    /// `png` every time.
    fn reprobes(raw: u64, png: u64, n: u64) -> usize {
        let c = RouteChooser::new(Route::Raw);
        assert_eq!(c.next(), Route::Raw);
        c.record(Route::Raw, ms(raw));
        assert_eq!(c.next(), Route::Png);
        c.record(Route::Png, ms(png));
        let slow = if raw > png { Route::Raw } else { Route::Png };
        (0..n)
            .filter(|_| {
                let r = c.next();
                c.record(r, ms(if r == Route::Raw { raw } else { png }));
                r == slow
            })
            .count()
    }

    #[test]
    fn tries_both_then_keeps_the_faster_and_reprobes() {
        // Close routes: the slower one is re-tried every REPROBE_EVERY captures.
        assert_eq!(reprobes(50, 45, 4 * REPROBE_EVERY), 4);
        assert_eq!(reprobes(60, 100, 4 * REPROBE_EVERY), 4);
        // 50 vs 10 ms: a re-try costs 40 ms, 5% of 10 ms is 0.5: every 80 captures.
        assert_eq!(reprobes(50, 10, 800), 10);
        // Far apart (as on the virtual phone): every REPROBE_AT_MOST captures.
        assert_eq!(reprobes(50, 1, 4 * REPROBE_AT_MOST), 4);
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
