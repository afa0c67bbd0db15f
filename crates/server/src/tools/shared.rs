//! Helpers that tools of several areas use: the screen capture behind every screenshot,
//! the check that a point lies on the screen (with its cache of screen sizes), and the
//! progress notifications of long transfers.
//!
//! Not for: tools (each area's router file holds its own), or the agent loop
//! (`crate::agent`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mobile_device::{
    CoordinateUnit, Device, DeviceError, Orientation, Point, ScreenSize, ScreenshotOptions,
};
use mobile_screenshot::{self as screenshot, ProcessedScreenshot};
use rmcp::RoleServer;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;

use super::{Failure, MobileServer};

impl MobileServer {
    /// Captures the screen of `device` and runs it through the screenshot pipeline with
    /// `opts`; also says the screen's size in the unit taps count.
    pub(crate) async fn capture(
        &self,
        ctx: &RequestContext<RoleServer>,
        device: &Arc<dyn Device>,
        opts: ScreenshotOptions,
    ) -> Result<(ProcessedScreenshot, (u32, u32)), Failure> {
        let _admitted = self.admit(ctx, device).await?;
        let started = std::time::Instant::now();
        let shot = self
            .run(ctx, "taking a screenshot", device.screenshot(&opts))
            .await?;
        let captured = started.elapsed();
        let (processed, took) = tokio::task::spawn_blocking(move || {
            let began = std::time::Instant::now();
            let processed = screenshot::process(&shot, &opts);
            (processed, began.elapsed())
        })
        .await
        .map_err(|e| Failure(format!("the screenshot worker failed: {e}")))?;
        // The capture is freed; handing the freed pages back is kept off the answer's
        // path.
        drop(tokio::task::spawn_blocking(crate::memory::release_freed));
        tracing::debug!(
            capture_ms = format!("{:.2}", captured.as_secs_f64() * 1e3),
            process_ms = format!("{:.2}", took.as_secs_f64() * 1e3),
            total_ms = format!("{:.2}", started.elapsed().as_secs_f64() * 1e3),
            "screenshot stages"
        );
        let processed = processed?;
        // A device that taps in pixels has the capture's size; one that taps in points
        // is asked for its size in points.
        let screen = match device.coordinate_unit() {
            CoordinateUnit::Pixels => (processed.source_width, processed.source_height),
            CoordinateUnit::Points => {
                let s = self
                    .run(ctx, "reading the screen size", device.screen_size())
                    .await?;
                let (mut w, mut h) = (s.width, s.height);
                if (processed.source_width > processed.source_height) != (w > h) {
                    std::mem::swap(&mut w, &mut h);
                }
                (w, h)
            }
        };
        Ok((processed, screen))
    }
}

/// How long a screen size read for the bounds check is reused.
const SCREEN_SIZE_TTL: Duration = Duration::from_secs(30);

impl MobileServer {
    /// Keeps a screen size just read for the tap bounds check.
    pub(crate) fn remember_screen(&self, device: &str, s: ScreenSize) {
        self.screens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(device.to_string(), (Instant::now(), s));
    }

    /// Refuses a point outside the screen as it is turned now. The size comes from a
    /// cache of at most [`SCREEN_SIZE_TTL`] per device (so a run of taps costs one size
    /// read), and a point the cached size puts outside either way up is checked against a
    /// fresh read. The size a device reports is its natural orientation's: a point inside
    /// the screen both ways up needs nothing more, one inside it only one way up is checked
    /// against the orientation read now (one more read, for those points only).
    pub(crate) async fn on_screen(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        at: Point,
    ) -> Result<(), Failure> {
        let (x, y) = (i64::from(at.x), i64::from(at.y));
        let upright = |s: &ScreenSize| x < i64::from(s.width) && y < i64::from(s.height);
        let sideways = |s: &ScreenSize| x < i64::from(s.height) && y < i64::from(s.width);
        let cached = self
            .screens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(d.id())
            .filter(|(when, _)| when.elapsed() < SCREEN_SIZE_TTL)
            .map(|(_, s)| *s)
            .filter(|s| upright(s) || sideways(s));
        let s = match cached {
            Some(s) => s,
            None => {
                let read = self
                    .run(ctx, "reading the screen size", async {
                        Ok(d.screen_size().await)
                    })
                    .await?;
                match read {
                    Ok(s) => {
                        self.remember_screen(d.id(), s);
                        s
                    }
                    // A device that cannot say its size keeps tapping as before.
                    Err(DeviceError::Unsupported { .. }) => return Ok(()),
                    Err(e) => return Err(e.into()),
                }
            }
        };
        let unit = s.unit.as_str();
        let (up, side) = (upright(&s), sideways(&s));
        if up && side {
            return Ok(());
        }
        if !up && !side {
            return Err(Failure(format!(
                "({}, {}) is outside the screen, which is {}x{} {unit} ({}x{} turned sideways); nothing was sent. Use coordinates inside it (mobile_get_screen_size, or a ref from mobile_list_elements_on_screen)",
                at.x, at.y, s.width, s.height, s.height, s.width
            )));
        }
        let read = self
            .run(ctx, "reading the orientation", async {
                Ok(d.orientation().await)
            })
            .await?;
        let now = match read {
            Ok(o) => o,
            // A device that cannot say how it is turned keeps tapping as before.
            Err(DeviceError::Unsupported { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let natural = if s.width > s.height {
            Orientation::Landscape
        } else {
            Orientation::Portrait
        };
        let (w, h) = if now == natural {
            (s.width, s.height)
        } else {
            (s.height, s.width)
        };
        if (now == natural && up) || (now != natural && side) {
            return Ok(());
        }
        Err(Failure(format!(
            "({}, {}) is outside the screen, which is {w}x{h} {unit} as it is turned now ({now}); nothing was sent. Use coordinates inside it (mobile_get_screen_size, or a ref from mobile_list_elements_on_screen)",
            at.x, at.y
        )))
    }
}

/// The task that sends a call's progress notifications.
pub(super) struct ProgressForwarder(Option<tokio::task::JoinHandle<()>>);

impl ProgressForwarder {
    /// Waits (briefly) until every queued notification is sent.
    pub(super) async fn finish(self) {
        if let Some(task) = self.0 {
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
    }
}

impl MobileServer {
    /// A progress callback for long transfers, when the client asked for progress. The
    /// notifications go out in order through one task; [`ProgressForwarder::finish`]
    /// waits for them, so none arrives after the call's result.
    pub(super) fn progress_reporter(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: String,
    ) -> (Option<mobile_device::ProgressFn>, ProgressForwarder) {
        let Some(token) = ctx.meta.get_progress_token() else {
            return (None, ProgressForwarder(None));
        };
        let peer = ctx.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, u64)>();
        let task = tokio::spawn(async move {
            while let Some((done, total)) = rx.recv().await {
                let mut param = ProgressNotificationParam::new(token.clone(), done as f64);
                param.total = Some(total as f64);
                param.message = Some(format!("{what}: {done} of {total} bytes"));
                if peer.notify_progress(param).await.is_err() {
                    break;
                }
            }
        });
        let last = std::sync::atomic::AtomicU64::new(u64::MAX);
        let report: mobile_device::ProgressFn = Arc::new(move |done: u64, total: u64| {
            // At most one notification per 5% step, so a large upload is not chatty.
            let step = (done * 20).checked_div(total).unwrap_or(0);
            if last.swap(step, std::sync::atomic::Ordering::Relaxed) != step {
                let _ = tx.send((done, total));
            }
        });
        (Some(report), ProgressForwarder(Some(task)))
    }
}
