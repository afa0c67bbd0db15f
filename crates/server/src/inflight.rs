//! Bounds on heavy device work in flight: screenshots, element lists, UI dumps, logs and
//! pulls, the calls that move megabytes from a device and hold buffers while they do.
//! Each holds an [`Admission`] for its whole course (capture, processing, writing), at
//! most [`InFlight::per_device`] at once on one device and [`InFlight::total`] across all,
//! so a burst of such calls is served a few at a time instead of all holding their
//! buffers together. Light calls (taps, keys, listings, the settle fingerprint) are not
//! counted.
//!
//! Not for deadlines or cancellation (`MobileServer::bounded` applies those, to the wait
//! for admission as to the work), nor for serializing input to a device (the backends do
//! that). A heavy section must not ask for a second admission while it holds one: with
//! a per-device bound of 1 it would wait for itself.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default bound per device.
pub(crate) const PER_DEVICE: usize = 2;
/// The default bound across all devices.
pub(crate) const TOTAL: usize = 4;

/// The shared bounds: one per server, shared by every session.
#[derive(Debug)]
pub(crate) struct InFlight {
    per_device: usize,
    total: usize,
    all: Arc<Semaphore>,
    /// One semaphore per device id seen (a few entries: one per device ever used).
    devices: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// Room for one heavy call; released when dropped.
#[must_use = "the admission is released when dropped"]
#[derive(Debug)]
pub(crate) struct Admission {
    _device: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

impl InFlight {
    /// Bounds of `per_device` calls per device and `total` in all (each at least 1).
    pub(crate) fn new(per_device: usize, total: usize) -> InFlight {
        let total = total.max(1);
        InFlight {
            per_device: per_device.max(1),
            total,
            all: Arc::new(Semaphore::new(total)),
            devices: Mutex::default(),
        }
    }

    /// The bound per device.
    pub(crate) fn per_device(&self) -> usize {
        self.per_device
    }

    /// The bound across all devices.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Waits for room for one heavy call on `device` (first on the device, then in
    /// all, always in that order). Dropping the future gives up its place.
    pub(crate) async fn admit(&self, device: &str) -> Admission {
        let one = {
            let mut devices = self.devices.lock().unwrap_or_else(|e| e.into_inner());
            devices
                .entry(device.to_string())
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_device)))
                .clone()
        };
        // Neither semaphore is ever closed.
        let device = one.acquire_owned().await.expect("never closed");
        let all = self
            .all
            .clone()
            .acquire_owned()
            .await
            .expect("never closed");
        Admission {
            _device: device,
            _all: all,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// Runs `n` calls per device on `devices`, each holding its admission for a moment;
    /// returns the peak in flight per device and in all.
    async fn peaks(bounds: Arc<InFlight>, devices: &[&str], n: usize) -> (usize, usize) {
        let now: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let all = Arc::new(AtomicUsize::new(0));
        let peak_one = Arc::new(AtomicUsize::new(0));
        let peak_all = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for d in devices {
            for _ in 0..n {
                let (bounds, now, all) = (bounds.clone(), now.clone(), all.clone());
                let (peak_one, peak_all) = (peak_one.clone(), peak_all.clone());
                let d = d.to_string();
                tasks.push(tokio::spawn(async move {
                    let _a = bounds.admit(&d).await;
                    let mine = {
                        let mut m = now.lock().unwrap();
                        let c = m.entry(d.clone()).or_default();
                        *c += 1;
                        *c
                    };
                    peak_one.fetch_max(mine, Ordering::SeqCst);
                    peak_all.fetch_max(all.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    all.fetch_sub(1, Ordering::SeqCst);
                    *now.lock().unwrap().get_mut(&d).unwrap() -= 1;
                }));
            }
        }
        for t in tasks {
            t.await.unwrap();
        }
        (
            peak_one.load(Ordering::SeqCst),
            peak_all.load(Ordering::SeqCst),
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_are_bounded_per_device_and_in_all() {
        let bounds = Arc::new(InFlight::new(2, 3));
        let (one, all) = peaks(bounds.clone(), &["a", "b", "c"], 20).await;
        assert_eq!(one, 2, "per device");
        assert_eq!(all, 3, "in all");
        assert_eq!(
            bounds.all.available_permits(),
            3,
            "every admission released"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bound_of_zero_is_one() {
        let bounds = Arc::new(InFlight::new(0, 0));
        let (one, all) = peaks(bounds.clone(), &["a", "b"], 5).await;
        assert_eq!((one, all), (1, 1));
        assert_eq!((bounds.per_device(), bounds.total()), (1, 1));
    }
}
