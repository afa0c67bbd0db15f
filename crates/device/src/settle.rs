//! Waiting until the screen stops changing after an action, bounded: the one settle
//! mechanism, used by the server's tools after an action and by the flow runner between
//! steps.
//!
//! The signal is a fingerprint of the screen ([`Device::screen_fingerprint`]: on Android 12
//! and later the list of display frames SurfaceFlinger composed, hashed on the phone
//! (`dumpsys SurfaceFlinger --frametimeline -all | sha1sum`; a fingerprint of
//! [`SettleSignal::FrameTimeline`]), before 12 the frame hashed on the phone (`screencap |
//! sha1sum`), one round trip and 43 bytes either way; docs/performance.md has the
//! comparison with pulling frames or dumping the UI tree). Where a device has none, the
//! fingerprint is a hash of its element list. The screen has settled when two samples
//! started at least [`SettleConfig::gap`] apart are equal (back to back when a sample
//! takes longer than the gap); a screen that keeps changing until the bound is reported
//! as not settled, which is a fact about the screen, not a failure of the action.
//!
//! Not for: deadlines or cancellation of the whole wait (the caller bounds
//! [`settle_device`]; a sample that fails ends the wait as "not checked").
//!
//! ```
//! use std::time::{Duration, Instant};
//! use mobile_device::settle::{SettleConfig, settle};
//! use mobile_device::{ScreenFingerprint, SettleSignal};
//!
//! let cfg = SettleConfig { timeout: Duration::from_secs(1), gap: Duration::from_millis(1) };
//! let same = || async { Ok(ScreenFingerprint::new(SettleSignal::FrameHash, "ab")) };
//! let s = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap()
//!     .block_on(settle(cfg, "frame hash", Instant::now(), None, same));
//! assert!(s.settled);
//! ```

use std::future::Future;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{Device, DeviceError, Element, ScreenFingerprint, SettleSignal};

/// How the wait runs.
#[derive(Debug, Clone, Copy)]
pub struct SettleConfig {
    /// The bound: give up after this long.
    pub timeout: Duration,
    /// The least time between two samples; two equal samples this far apart mean the
    /// screen rested at least this long (several display frames).
    pub gap: Duration,
}

/// The default bound of a settle wait.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(2000);
/// The default least time between samples: six frames at 60 Hz.
pub const DEFAULT_GAP: Duration = Duration::from_millis(100);
/// The least time between two frame-timeline samples: three vsyncs at 60 Hz. Two equal
/// frame lists mean SurfaceFlinger composed nothing in between (an animation composes at
/// every vsync it does not drop), a stronger fact than two equal frames, which a slow
/// animation can show for a while; so a shorter rest is enough.
pub const TIMELINE_GAP: Duration = Duration::from_millis(50);

/// The least time between two samples of `signal`.
pub fn gap(signal: SettleSignal) -> Duration {
    match signal {
        SettleSignal::FrameTimeline => TIMELINE_GAP,
        SettleSignal::FrameHash | SettleSignal::ElementList => DEFAULT_GAP,
    }
}

/// What the wait found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Settled {
    /// Whether the screen stopped changing within the bound.
    pub settled: bool,
    /// How long the wait took, in ms.
    #[serde(rename = "waitedMs")]
    pub waited_ms: u64,
    /// How many fingerprints were taken.
    pub samples: u32,
    /// What was sampled: "frame timeline", "frame hash" or "element list" ("none" when the
    /// wait could not sample).
    pub signal: &'static str,
    /// Why the wait stopped early, if a sample failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The fingerprint the screen rested on, when it settled.
    #[serde(skip)]
    pub last: Option<ScreenFingerprint>,
}

impl Settled {
    /// A wait that could not look at the screen (a sample timed out or the device failed):
    /// the action stands, and this says the screen was not checked.
    pub fn unchecked(start: Instant, error: String) -> Settled {
        Settled {
            settled: false,
            waited_ms: start.elapsed().as_millis() as u64,
            samples: 0,
            signal: "none",
            error: Some(error),
            last: None,
        }
    }

    /// The line the tool text carries.
    pub fn render(&self) -> String {
        match (&self.error, self.settled) {
            (Some(e), _) => format!("Screen: not checked for settling ({e})"),
            (None, true) => format!("Screen settled after {} ms", self.waited_ms),
            (None, false) => format!(
                "Screen still changing after {} ms (not settled: an animation, a video or a spinner); what it shows now follows",
                self.waited_ms
            ),
        }
    }
}

/// Samples `fingerprint` until two samples `gap` apart are equal or `timeout` passes.
/// `start` is when the wait began; `first`, if given, is a sample already taken at the
/// start (so the wait does not pay for it twice).
pub async fn settle<F, Fut>(
    cfg: SettleConfig,
    signal: &'static str,
    start: Instant,
    first: Option<Result<ScreenFingerprint, String>>,
    mut fingerprint: F,
) -> Settled
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<ScreenFingerprint, String>>,
{
    let mut samples = 0u32;
    let done = |settled, samples, error, last| Settled {
        settled,
        waited_ms: start.elapsed().as_millis() as u64,
        samples,
        signal,
        error,
        last,
    };
    // Samples are spaced start to start: a sample that takes longer than the gap is
    // followed at once (its capture and the next one's are a sample's duration apart).
    let mut last_at = start;
    let first = match first {
        Some(f) => f,
        None => {
            last_at = Instant::now();
            fingerprint().await
        }
    };
    let mut last = match first {
        Ok(f) => f,
        Err(e) => return done(false, 1, Some(e), None),
    };
    samples += 1;
    loop {
        let next = last_at + cfg.gap;
        if next > start + cfg.timeout {
            return done(false, samples, None, None);
        }
        tokio::time::sleep_until(next.into()).await;
        last_at = Instant::now();
        let now_fp = match fingerprint().await {
            Ok(f) => f,
            Err(e) => return done(false, samples + 1, Some(e), None),
        };
        samples += 1;
        if now_fp == last {
            return done(true, samples, None, Some(now_fp));
        }
        last = now_fp;
    }
}

/// A hash of an element list (the settle signal where a device has no frame hash).
pub fn list_hash(elements: &[Element]) -> ScreenFingerprint {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(elements)
        .unwrap_or_default()
        .hash(&mut h);
    ScreenFingerprint::new(SettleSignal::ElementList, format!("{:016x}", h.finish()))
}

/// Waits until the screen of `d` stops changing, at most `timeout` of sampling. The first
/// sample also says which signal the device has: its fingerprint, or its element list
/// where it has none ([`DeviceError::Unsupported`]). A sample that hangs is not bounded
/// here: the caller puts its deadline around the whole wait.
pub async fn settle_device(d: &dyn Device, timeout: Duration) -> Settled {
    let start = Instant::now();
    let probe = d.screen_fingerprint().await;
    let signal = match &probe {
        Err(DeviceError::Unsupported { .. }) => SettleSignal::ElementList,
        Ok(fp) => fp.signal(),
        Err(_) => SettleSignal::FrameHash,
    };
    let cfg = SettleConfig {
        timeout,
        gap: gap(signal),
    };
    if signal != SettleSignal::ElementList {
        let first = probe.map_err(|e| e.to_string());
        settle(cfg, signal.name(), start, Some(first), || async {
            d.screen_fingerprint().await.map_err(|e| e.to_string())
        })
        .await
    } else {
        settle(cfg, signal.name(), start, None, || async {
            d.list_elements()
                .await
                .map(|l| list_hash(&l))
                .map_err(|e| e.to_string())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn cfg(timeout_ms: u64) -> SettleConfig {
        SettleConfig {
            timeout: Duration::from_millis(timeout_ms),
            gap: Duration::from_millis(1),
        }
    }

    fn fp(digest: &str) -> ScreenFingerprint {
        ScreenFingerprint::new(SettleSignal::FrameHash, digest)
    }

    fn seq(
        items: &[&str],
    ) -> impl FnMut() -> std::future::Ready<Result<ScreenFingerprint, String>> {
        let items: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(
            items.iter().rev().map(|s| s.to_string()).collect(),
        ));
        move || {
            let mut v = items.lock().unwrap();
            let next = if v.len() > 1 {
                v.pop()
            } else {
                v.last().cloned()
            };
            std::future::ready(Ok(fp(&next.unwrap())))
        }
    }

    #[tokio::test]
    async fn settles_on_two_equal_samples() {
        let s = settle(
            cfg(5000),
            "frame hash",
            Instant::now(),
            None,
            seq(&["a", "b", "c", "c"]),
        )
        .await;
        assert!(s.settled);
        assert_eq!(s.samples, 4);
    }

    #[tokio::test]
    async fn a_sample_taken_at_the_start_is_not_taken_again() {
        let calls = Arc::new(Mutex::new(0u32));
        let c = calls.clone();
        let s = settle(
            cfg(5000),
            "frame hash",
            Instant::now(),
            Some(Ok(fp("a"))),
            move || {
                *c.lock().unwrap() += 1;
                std::future::ready(Ok(fp("a")))
            },
        )
        .await;
        assert!(s.settled);
        assert_eq!(s.samples, 2);
        assert_eq!(*calls.lock().unwrap(), 1, "one more sample, not two");
        assert_eq!(s.last, Some(fp("a")));
    }

    #[tokio::test]
    async fn a_screen_that_keeps_changing_is_reported_not_settled() {
        let n = Arc::new(Mutex::new(0u64));
        let s = settle(cfg(30), "frame hash", Instant::now(), None, move || {
            let mut n = n.lock().unwrap();
            *n += 1;
            std::future::ready(Ok(fp(&n.to_string())))
        })
        .await;
        assert!(!s.settled);
        assert!(s.error.is_none());
        assert!(s.render().contains("not settled"));
    }

    #[test]
    fn the_frame_timeline_is_sampled_more_often_than_the_frame() {
        assert!(gap(SettleSignal::FrameTimeline) < gap(SettleSignal::FrameHash));
        assert_eq!(gap(SettleSignal::ElementList), gap(SettleSignal::FrameHash));
    }

    #[tokio::test]
    async fn a_failed_sample_stops_the_wait_without_failing() {
        let s = settle(cfg(1000), "frame hash", Instant::now(), None, || {
            std::future::ready(Err("md5sum: not found".to_string()))
        })
        .await;
        assert!(!s.settled);
        assert_eq!(s.error.as_deref(), Some("md5sum: not found"));
    }
}
