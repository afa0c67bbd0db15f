//! The screen: its size and orientation, screenshots, and its elements (uiautomator).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mobile_device::{
    DeviceError, Element, Orientation, Result, ScreenSize, Screenshot, ScreenshotOptions,
};

use super::AndroidDevice;
use super::errors::adb_error;
use crate::adb::output::{self, first_lines};
use crate::adb::{Cap, Link, run_shell};
use crate::capture::Route;
use crate::parse;
use crate::parse::screencap::{RawFrameSink, RawOutcome};
use crate::parse::ui::DumpError;
use crate::quote::command;

/// Attempts of `uiautomator dump` at most.
const TRIES: u32 = 6;
/// Attempts that may fail on an idle-state timeout (each took 10 s on the phone).
const IDLE_TRIES: u32 = 2;
/// Attempts that may find another UiAutomation client connected.
const BUSY_TRIES: u32 = 2;
/// What `UiAutomationManager` throws when another client holds the connection.
const UIAUTOMATION_BUSY: &str = "already registered";
/// What to do about a screen that never goes idle.
const ANIMATING_HINT: &str = "the screen is animating (an animation, a video or a live view keeps it from going idle, and uiautomator waits for idle); wait until it settles or pause it, or take a screenshot instead";

/// The capture route a device's first screenshot takes, before any measurement
/// ([`crate::capture`] then picks by measured time).
///
/// Raw (`screencap` without `-p`, 10 MB for 1080x2400) skips the PNG encode that costs a
/// phone CPU tens to hundreds of milliseconds per frame, and USB and emulator links move
/// the raw frame fast; a device reached over a real network (adb over Wi-Fi, `HOST:PORT`
/// with a non-loopback host) is bandwidth-bound, so its first guess is the ~10x smaller PNG.
pub(super) fn prefers_png(link: &Link) -> bool {
    let serial = &link.serial;
    // mDNS-discovered Wi-Fi devices: `adb-SERIAL-id._adb-tls-connect._tcp`.
    if serial.contains("._adb") {
        return true;
    }
    let host = match serial.rsplit_once(':') {
        Some((host, port)) if port.parse::<u16>().is_ok() => host,
        _ => return false,
    };
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => !ip.is_loopback(),
        Err(_) => host != "localhost",
    }
}

fn png_capture(bytes: Vec<u8>) -> Result<Screenshot> {
    const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
    let Some(start) = bytes.windows(MAGIC.len()).position(|w| w == MAGIC) else {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        return Err(DeviceError::backend(format!(
            "screencap returned no image: {}",
            first_lines(&text)
        )));
    };
    let mut bytes = bytes;
    bytes.drain(..start);
    Ok(Screenshot {
        format: mobile_device::CaptureFormat::Png,
        bytes,
    })
}

impl AndroidDevice {
    /// The display to capture: `None` on a single-display phone (the common case; one
    /// round trip the first time, cached), else the first display that is on.
    async fn capture_display(&self) -> Result<Option<String>> {
        let ids = self
            .displays
            .get_or_try_init(|| async {
                let out = self
                    .sh_cap(
                        "listing displays",
                        command(&["dumpsys", "SurfaceFlinger", "--display-id"])?,
                        Cap::LISTING,
                    )
                    .await?;
                Ok::<_, DeviceError>(parse::display::parse_display_ids(&out))
            })
            .await?;
        if ids.len() < 2 {
            return Ok(None);
        }
        let out = self
            .sh(
                "finding the active display",
                command(&["cmd", "display", "get-displays"])?,
            )
            .await?;
        Ok(parse::display::active_display(&out, ids).or_else(|| ids.first().cloned()))
    }

    /// `uiautomator dump`, retried on its known transient failures within bounds that fit
    /// the server's deadline: an idle-state failure already waited 10 s on the phone
    /// (`DumpCommand`'s `waitForIdle` timeout), so it is tried [`IDLE_TRIES`] times; another
    /// UiAutomation client holding the connection, [`BUSY_TRIES`] times; a momentary null
    /// root up to [`TRIES`] times. Each ends in a hint saying what is wrong.
    pub(super) async fn uiautomator_xml(&self) -> Result<String> {
        let tty = command(&["uiautomator", "dump", "/dev/tty"])?;
        let tmp = "/data/local/tmp/mobile-mcp-ui.xml";
        let file_route = [
            command(&["uiautomator", "dump", tmp])?,
            command(&["cat", tmp])?,
            command(&["rm", "-f", tmp])?,
        ];
        let mut last = String::new();
        let mut used_file = false;
        let (mut idle, mut busy) = (0, 0);
        for attempt in 0..TRIES {
            let out = if used_file {
                self.sh_seq("reading the screen's elements", &file_route, Cap::UI_DUMP)
                    .await?
            } else {
                self.sh_cap("reading the screen's elements", tty.clone(), Cap::UI_DUMP)
                    .await?
            };
            if out.contains(UIAUTOMATION_BUSY) {
                busy += 1;
                if busy >= BUSY_TRIES {
                    return Err(DeviceError::backend_with_hint(
                        format!("uiautomator could not connect: {}", first_lines(out.trim())),
                        "another UiAutomation client is connected (an Appium or UiAutomator2 server, a running instrumentation test, or another tool dumping the screen); stop it, then try again",
                    ));
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
            match parse::ui::extract_xml(&out) {
                Ok(xml) => return Ok(xml.to_string()),
                Err(DumpError::Transient(msg)) => {
                    tracing::debug!(attempt, %msg, "uiautomator transient failure; retrying");
                    if msg.to_ascii_lowercase().contains("idle state") {
                        idle += 1;
                        if idle >= IDLE_TRIES {
                            return Err(DeviceError::backend_with_hint(
                                format!("uiautomator could not dump the screen: {msg}"),
                                ANIMATING_HINT,
                            ));
                        }
                    }
                    last = msg;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(DumpError::NoXml(text)) if !used_file => {
                    // Some builds cannot write to /dev/tty; dump to a file instead.
                    used_file = true;
                    last = text;
                }
                Err(DumpError::NoXml(text)) | Err(DumpError::Invalid(text)) => {
                    last = text;
                    break;
                }
            }
        }
        Err(DeviceError::backend_with_hint(
            format!("uiautomator could not dump the screen: {last}"),
            ANIMATING_HINT,
        ))
    }

    /// 3 round trips at once: `wm size`, `wm density` and `dumpsys window displays`; the
    /// size is the natural one (`wm size`) turned to the current rotation (`cur=`), so a
    /// landscape screen is wider than high whatever its panel's natural orientation.
    pub(super) async fn screen_size(&self) -> Result<ScreenSize> {
        let (wm, displays) = tokio::try_join!(
            self.sh_pair(
                "reading the screen size",
                command(&["wm", "size"])?,
                command(&["wm", "density"])?,
            ),
            self.sh_cap(
                "reading the screen size",
                command(&["dumpsys", "window", "displays"])?,
                Cap::LISTING,
            )
        )?;
        let size = parse::display::parse_wm(&wm).ok_or_else(|| {
            DeviceError::backend(format!("`wm size` printed no size: {}", first_lines(&wm)))
        })?;
        Ok(parse::display::orient(
            size,
            parse::display::parse_current_size(&displays),
        ))
    }

    /// 1 round trip: `screencap` (raw RGBA, no PNG encode on the phone, scaled while it
    /// arrives) or `screencap -p`, whichever has been faster on this device
    /// (`capture.rs`); a multi-display phone adds `dumpsys SurfaceFlinger
    /// --display-id` once and `cmd display get-displays` per capture, and captures with
    /// `-d ID`. A phone whose raw header is the pre-Android-10 one costs one more capture,
    /// once.
    pub(super) async fn screenshot(&self, want: &ScreenshotOptions) -> Result<Screenshot> {
        let display = self.capture_display().await?;
        let mut argv = vec!["screencap".to_string()];
        if let Some(d) = &display {
            argv.push("-d".into());
            argv.push(d.clone());
        }
        let route = self.capture_route.next();
        if route == Route::Raw {
            for _ in 0..2 {
                let started = Instant::now();
                let header = self.raw_header.load(Ordering::Relaxed);
                let mut sink = RawFrameSink::new(*want, header);
                let cmd = command(&argv)?;
                let id = self.id.clone();
                let sink = run_shell(&self.link, "taking a screenshot", move |link, hangup| {
                    link.shell_to(&cmd, &mut sink, Cap::RAW_FRAME, hangup)
                        .map_err(|e| adb_error(&id, link, "taking a screenshot", e))?;
                    Ok(sink)
                })
                .await?;
                match sink.finish() {
                    RawOutcome::Frame(s) => {
                        self.capture_route.record(route, started.elapsed());
                        return Ok(s);
                    }
                    RawOutcome::OtherHeader(len) => self.raw_header.store(len, Ordering::Relaxed),
                    RawOutcome::Unreadable(why) => {
                        tracing::debug!(device = %self.id, %why, "raw screencap unreadable; PNG from now on");
                        break;
                    }
                }
            }
            // Not a frame the pipeline reads: PNG from now on.
            self.capture_route.give_up(Route::Raw);
        }
        argv.insert(1, "-p".into());
        let started = Instant::now();
        let bytes = self
            .sh_bytes("taking a screenshot", command(&argv)?, Cap::PNG)
            .await?;
        if route == Route::Png {
            self.capture_route.record(Route::Png, started.elapsed());
        }
        png_capture(bytes)
    }

    /// 1 round trip (`uiautomator dump /dev/tty`), retried on uiautomator's known
    /// transient failures.
    pub(super) async fn list_elements(&self) -> Result<Vec<Element>> {
        let xml = self.uiautomator_xml().await?;
        parse::ui::parse_elements(&xml)
            .map_err(|e| DeviceError::backend(format!("uiautomator's dump did not parse: {e:?}")))
    }

    pub(super) async fn ui_dump(&self) -> Result<String> {
        self.uiautomator_xml().await
    }

    /// 1 round trip: `dumpsys window displays` (the current logical size, `cur=WxH`:
    /// landscape when wider than high). `user_rotation` is only the locked rotation and
    /// is inverted on landscape-natural panels, so it is read (a second round trip) only
    /// when the device prints no `cur=`.
    pub(super) async fn orientation(&self) -> Result<Orientation> {
        let out = self
            .sh_cap(
                "reading the orientation",
                command(&["dumpsys", "window", "displays"])?,
                Cap::LISTING,
            )
            .await?;
        if let Some((w, h)) = parse::display::parse_current_size(&out) {
            return Ok(if w > h {
                Orientation::Landscape
            } else {
                Orientation::Portrait
            });
        }
        let out = self
            .sh(
                "reading the orientation",
                command(&["settings", "get", "system", "user_rotation"])?,
            )
            .await?;
        parse::display::parse_user_rotation(&out).ok_or_else(|| {
            DeviceError::backend(format!("unexpected user_rotation: {}", first_lines(&out)))
        })
    }

    /// 3 round trips: `wm size` (is the panel landscape-natural, as tablets and TVs
    /// are?), `settings put system accelerometer_rotation 0`, `settings put system
    /// user_rotation N` (0 for the panel's natural orientation, 1 for the other).
    pub(super) async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        let wm = self
            .sh("changing the orientation", command(&["wm", "size"])?)
            .await?;
        let natural_landscape = parse::display::parse_wm(&wm).is_some_and(|s| s.width > s.height);
        let n = if natural_landscape == (orientation == Orientation::Landscape) {
            "0"
        } else {
            "1"
        };
        let out = self
            .sh_seq(
                "changing the orientation",
                &[
                    command(&["settings", "put", "system", "accelerometer_rotation", "0"])?,
                    command(&["settings", "put", "system", "user_rotation", n])?,
                ],
                Cap::SHELL,
            )
            .await?;
        if let Err(said) = output::SETTINGS_PUT.check(&out) {
            return Err(DeviceError::backend(format!(
                "the device refused the orientation change: {said}"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_only_over_a_real_network() {
        let server = |serial: &str| Link {
            addr: "127.0.0.1:5037".parse().unwrap(),
            serial: serial.into(),
        };
        assert!(!prefers_png(&server("emulator-5554")));
        assert!(!prefers_png(&server("R58M12ABCDE")));
        assert!(!prefers_png(&server("127.0.0.1:15555")));
        assert!(prefers_png(&server("192.168.1.20:5555")));
        assert!(prefers_png(&server(
            "adb-R58M-abc._adb-tls-connect._tcp:37000"
        )));
        // The rule is about the device's address, not the server's: a loopback server
        // that reaches a phone over the network still prefers PNG.
        assert!(prefers_png(&server("10.0.0.9:5555")));
        assert!(!prefers_png(&server("localhost:5555")));
    }

    #[test]
    fn png_magic_is_found() {
        let mut b = b"WARNING: x\n".to_vec();
        b.extend_from_slice(b"\x89PNG\r\n\x1a\nrest");
        assert!(png_capture(b).unwrap().bytes.starts_with(b"\x89PNG"));
        assert!(png_capture(b"Error: no display".to_vec()).is_err());
    }
}
