//! Drag and drop: `input draganddrop`, which presses, waits the long-press timeout so the
//! view under the finger picks itself up, moves, and lets go.
//!
//! Source: AOSP `cmds/input/src/com/android/commands/input/Input.java` (`sendDragAndDrop`:
//! ACTION_DOWN, `Thread.sleep(ViewConfiguration.getLongPressTimeout())`, ACTION_MOVE steps
//! over the duration, ACTION_UP), kept in `services/core/java/com/android/server/input/
//! InputShellCommand.java` from Android 12. A release whose `input` lacks it answers
//! `Error: Unknown command: draganddrop`. A swipe is no stand-in (it moves at once, with no
//! hold, so a list scrolls instead of lifting the row), so that is a clear error instead.

use std::time::Duration;

use mobile_device::{DeviceError, Platform, Point, Result};

use super::AndroidDevice;
use crate::quote::command;

impl AndroidDevice {
    /// 1 round trip: `input draganddrop X1 Y1 X2 Y2 MS`.
    pub(super) async fn drag(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        let [x1, y1] = Self::point_args(from)?;
        let [x2, y2] = Self::point_args(to)?;
        let ms = duration.as_millis().max(1).to_string();
        let cmd = command(&["input", "draganddrop", &x1, &y1, &x2, &y2, &ms])?;
        match self.input("dragging", cmd).await {
            Err(DeviceError::Backend { message, .. })
                if message.contains("Unknown command: draganddrop") =>
            {
                Err(DeviceError::unsupported_with_hint(
                    "dragging",
                    Platform::Android,
                    "this Android release's `input` command has no draganddrop (older releases); a swipe cannot stand in, since it does not hold before moving",
                ))
            }
            other => other,
        }
    }
}
