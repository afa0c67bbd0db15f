//! The clock the living UI reads: the wall clock, or a manual one a unit test advances.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Milliseconds for the living UI. `Clock::default()` is the wall clock; [`Clock::manual`]
/// starts at a given time and moves only when [`Clock::advance`] is called, so a test can
/// look at the screen in the middle of a transition without sleeping.
#[derive(Clone, Default)]
pub struct Clock(Option<Arc<AtomicU64>>);

impl Clock {
    /// A clock that stands at `start_ms` until advanced.
    pub fn manual(start_ms: u64) -> Clock {
        Clock(Some(Arc::new(AtomicU64::new(start_ms))))
    }

    /// Moves a manual clock forward (no effect on the wall clock).
    pub fn advance(&self, ms: u64) {
        if let Some(t) = &self.0 {
            t.fetch_add(ms, Ordering::SeqCst);
        }
    }

    /// The time now, in milliseconds.
    pub fn now(&self) -> u64 {
        match &self.0 {
            Some(t) => t.load(Ordering::SeqCst),
            None => crate::state::now_ms(),
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(t) => write!(f, "Clock::manual({})", t.load(Ordering::SeqCst)),
            None => f.write_str("Clock::wall"),
        }
    }
}

/// Two clocks compare equal: the clock is how the state is looked at, not part of it.
impl PartialEq for Clock {
    fn eq(&self, _: &Clock) -> bool {
        true
    }
}
