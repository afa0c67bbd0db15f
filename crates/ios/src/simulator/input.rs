//! Input: taps, presses, swipes, drags, typing and buttons through idb, one at a time
//! per simulator (the calls where idb releases differ are in `idb_input`).

use std::time::Duration;

use mobile_device::{Button, DeviceError, Platform, Point, Result};

use super::SimulatorDevice;
use crate::tools::argv;

/// The HID usage of the keyboard's Return key (`idb ui key 40`).
const KEY_RETURN: &str = "40";
/// The HID usage of the keyboard's Delete (backspace) key (`idb ui key 42`).
const KEY_DELETE: &str = "42";

pub(super) fn coord(v: i32, axis: &str) -> Result<String> {
    if v < 0 {
        return Err(DeviceError::invalid(format!(
            "{axis} must not be negative (got {v}); iOS coordinates are points from the top-left corner"
        )));
    }
    Ok(v.to_string())
}

fn seconds(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() { "0".into() } else { s.into() }
}

impl SimulatorDevice {
    pub(super) async fn tap(&self, at: Point) -> Result<()> {
        let args = argv!["ui", "tap", coord(at.x, "x")?, coord(at.y, "y")?];
        let _input = self.input.lock().await;
        self.idb_ok(args, "tapping").await?;
        Ok(())
    }

    pub(super) async fn double_tap(&self, at: Point) -> Result<()> {
        self.idb_double_tap(at).await
    }

    pub(super) async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        let _input = self.input.lock().await;
        self.idb_ok(
            argv![
                "ui",
                "tap",
                coord(at.x, "x")?,
                coord(at.y, "y")?,
                "--duration",
                seconds(duration)
            ],
            "long pressing",
        )
        .await?;
        Ok(())
    }

    pub(super) async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        let _input = self.input.lock().await;
        self.idb_ok(
            argv![
                "ui",
                "swipe",
                coord(from.x, "x")?,
                coord(from.y, "y")?,
                coord(to.x, "x")?,
                coord(to.y, "y")?,
                "--duration",
                seconds(duration)
            ],
            "swiping",
        )
        .await?;
        Ok(())
    }

    /// `idb ui swipe X1 Y1 X2 Y2 --duration S`: idb has no press-and-hold gesture, so a
    /// drag is a swipe slow enough (the whole `duration`) for UIKit to follow the finger.
    pub(super) async fn drag(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        self.swipe(from, to, duration).await
    }

    pub(super) async fn type_text(&self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.idb_type_text(text).await
    }

    /// 1 idb call: `idb ui button NAME`, or `idb ui key CODE` for ENTER and DEL.
    pub(super) async fn press_button(&self, button: Button) -> Result<()> {
        // idb's button names (`HIDButtonType`) are the table's (see `Button`).
        let name = button.name();
        if !button.exists_on(Platform::Ios) {
            return Err(DeviceError::unsupported_with_hint(
                format!("the {name} button"),
                Platform::Ios,
                format!("an iOS simulator has {}", Button::names_on(Platform::Ios)),
            ));
        }
        let _input = self.input.lock().await;
        // The keyboard's keys are HID usages (USB HID Usage Tables, keyboard page:
        // 0x28 Return, 0x2A Delete/Backspace; idb/common/hid.py `KEY_MAP` maps "\n" to
        // 40), pressed with `idb ui key`; the rest are idb's hardware buttons.
        let argv = match button {
            Button::Enter => argv!["ui", "key", KEY_RETURN],
            Button::Delete => argv!["ui", "key", KEY_DELETE],
            _ => argv!["ui", "button", name],
        };
        self.idb_ok(argv, "pressing a button").await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_idb_takes_them() {
        assert_eq!(seconds(Duration::from_millis(500)), "0.5");
        assert_eq!(seconds(Duration::from_secs(1)), "1");
        assert_eq!(seconds(Duration::from_millis(1250)), "1.25");
        assert_eq!(seconds(Duration::ZERO), "0");
    }
}
