//! The input calls where fb-idb releases differ, each checked against what the
//! simulator then shows: double taps (`idb ui multi-tap`, 1.5+), text idb cannot type
//! (pasted from the simulator's pasteboard with Cmd+V, `idb ui key --command`, 1.5+),
//! rotation (`idb ui rotate`, 1.5+) and the orientation read from the accessibility
//! tree (screenshots keep the portrait framebuffer on many Xcode releases).
//!
//! fb-idb 1.1.8 (the release most users have) has none of the three commands; its
//! argparse answers `invalid choice: 'rotate'` or `unrecognized arguments: --command`
//! with exit 2 (facebook/idb `idb/cli/main.py`, `idb/common/command.py` at v1.1.8),
//! and the errors here say which release is needed instead.

use std::ffi::OsString;
use std::time::Duration;

use mobile_device::{DeviceError, NextStep, Orientation, Platform, Point, Result};

use super::{SimulatorDevice, coord};
use crate::errors;
use crate::parse::describe_all::{AxNode, application_frame};
use crate::process::Output;
use crate::tools::argv;

/// The HID usage of the `v` key (idb/common/hid.py `KEY_MAP`).
const KEY_V: &str = "25";
/// How long the pasted text stays on the pasteboard after Cmd+V before the user's
/// content is put back: the app reads the pasteboard when it handles the key event,
/// which the companion sends without waiting for it.
const PASTE_SETTLE: Duration = Duration::from_millis(300);
/// How often, and how far apart, the tree is read to see a rotation land.
const ROTATION_CHECKS: u32 = 5;
const ROTATION_CHECK_DELAY: Duration = Duration::from_millis(300);

/// Whether `idb ui text` can type `c`: the keys of `KEY_MAP` in idb/common/hid.py
/// (the same in 1.1.8 and 1.5.0), a US keyboard's letters, digits, punctuation, space
/// and `\n`. Anything else makes `text_to_events` raise "No keycode found for …"
/// before a single key is sent.
pub(crate) fn idb_can_type(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == ' '
        || c == '\n'
        || "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".contains(c)
}

/// An argparse refusal (exit 2) whose stderr contains `what`: the installed idb
/// lacks a command or option.
fn lacks(out: &Output, what: &str) -> bool {
    out.code == Some(2) && out.stderr.contains(what)
}

/// The error for a command that fb-idb 1.1.x does not have.
fn needs_idb_1_5(what: &str, command: &str, otherwise: &str) -> DeviceError {
    DeviceError::unsupported_with_hint(
        what,
        Platform::Ios,
        format!(
            "it needs {command}, which fb-idb has from release 1.5.0; the installed idb is older (1.1.x has no such command). Upgrade the client with `pip install --upgrade --pre fb-idb` (1.5.0 is tagged as a beta) and the companion to the same release{otherwise}"
        ),
    )
}

/// The orientation an `Application` frame shows.
fn frame_orientation(roots: &[AxNode]) -> Option<Orientation> {
    application_frame(roots).map(|(w, h)| {
        if w > h {
            Orientation::Landscape
        } else {
            Orientation::Portrait
        }
    })
}

/// An "Open in “App”?" confirmation in the tree: its title and the Open button.
fn open_prompt(roots: &[AxNode]) -> Option<(String, Option<Point>)> {
    fn all<'a>(ns: &'a [AxNode], out: &mut Vec<&'a AxNode>) {
        for n in ns {
            out.push(n);
            all(&n.children, out);
        }
    }
    let mut nodes = Vec::new();
    all(roots, &mut nodes);
    let title = nodes.iter().find_map(|n| {
        n.label
            .as_deref()
            .filter(|l| l.starts_with("Open in ") && l.ends_with('?'))
    })?;
    let open = nodes
        .iter()
        .find(|n| n.kind.as_deref() == Some("Button") && n.label.as_deref() == Some("Open"))
        .map(|n| {
            Point::new(
                (n.frame.0 + n.frame.2 / 2.0).round() as i32,
                (n.frame.1 + n.frame.3 / 2.0).round() as i32,
            )
        });
    Some((title.to_string(), open))
}

impl SimulatorDevice {
    /// Runs an idb call against this simulator and returns its output, failed or not.
    async fn idb_output(&self, mut args: Vec<OsString>, what: &str) -> Result<Output> {
        args.push("--udid".into());
        args.push(self.udid.clone().into());
        self.tools.idb(args, what).await
    }

    /// Both taps in one `idb ui multi-tap` run (one HID stream, 0.1 s apart: idb's
    /// `multi_tap_to_events`). Two `idb ui tap` runs are two Python processes and
    /// two companion connections, too far apart for iOS to see a double tap.
    pub(super) async fn idb_double_tap(&self, at: Point) -> Result<()> {
        let args = argv!["ui", "multi-tap", coord(at.x, "x")?, coord(at.y, "y")?];
        let _input = self.input.lock().await;
        let out = self.idb_output(args, "double tapping").await?;
        if out.success() {
            return Ok(());
        }
        if lacks(&out, "invalid choice: 'multi-tap'") {
            return Err(needs_idb_1_5(
                "a double tap",
                "`idb ui multi-tap` (both taps in one event stream)",
                ". With idb 1.1 each `idb ui tap` is its own process, so two taps land too far apart to count as a double tap",
            ));
        }
        Err(errors::idb_error(&self.udid, "double tapping", &out))
    }

    /// Types `text`: with `idb ui text` when idb has a key for every character, else
    /// through the simulator's pasteboard: what it holds is read (`simctl pbpaste`), the
    /// text put there (`simctl pbcopy`), pasted with Cmd+V, and the old content put back
    /// (`simctl pbcopy`) after [`PASTE_SETTLE`], so typing does not replace the user's
    /// clipboard. Either way idb sends US-keyboard key positions, which the simulator
    /// reads through its hardware keyboard layout. Where idb has no Cmd+V (1.1) the text
    /// stays on the pasteboard to be pasted by hand, and the error says so.
    pub(super) async fn idb_type_text(&self, text: &str) -> Result<()> {
        let _input = self.input.lock().await;
        let Some(c) = text.chars().find(|c| !idb_can_type(*c)) else {
            // idb's argparse would read a leading `-` as an option: end the options first.
            let args = if text.starts_with('-') {
                argv!["ui", "text", "--udid", &self.udid, "--", text]
            } else {
                argv!["ui", "text", text, "--udid", &self.udid]
            };
            let out = self.tools.idb(args, "typing text").await?;
            if !out.success() {
                return Err(errors::idb_error(&self.udid, "typing text", &out));
            }
            return Ok(());
        };
        let saved = self
            .tools
            .simctl_with_input(argv!["pbpaste", &self.udid], None, "pbpaste")
            .await?;
        if !saved.success() {
            return Err(errors::simctl_error(&self.ctx("pbpaste", None), &saved));
        }
        self.set_pasteboard_bytes(text.as_bytes()).await?;
        let out = self
            .idb_output(argv!["ui", "key", KEY_V, "--command"], "pasting text")
            .await?;
        if out.success() {
            // The app reads the pasteboard when it handles the key, after idb returns.
            tokio::time::sleep(PASTE_SETTLE).await;
            self.set_pasteboard_bytes(&saved.stdout).await?;
            return Ok(());
        }
        if lacks(&out, "unrecognized arguments: --command") {
            let shown = if c.is_control() {
                format!("{:?}", c)
            } else {
                format!("'{c}'")
            };
            return Err(DeviceError::unsupported_with_hint(
                format!("typing {shown}"),
                Platform::Ios,
                "idb types only the US-keyboard ASCII characters it has keycodes for, so the text was put on the simulator's clipboard instead (replacing what it held); pasting it needs `idb ui key --command` (Cmd+V), which fb-idb has from release 1.5.0 (`pip install --upgrade --pre fb-idb`, and the companion of the same release). Until then paste it by hand: long-press the focused field and choose Paste",
            ));
        }
        Err(errors::idb_error(&self.udid, "pasting text", &out))
    }

    async fn set_pasteboard_bytes(&self, bytes: &[u8]) -> Result<()> {
        let out = self
            .tools
            .simctl_with_input(argv!["pbcopy", &self.udid], Some(bytes), "pbcopy")
            .await?;
        if out.success() {
            Ok(())
        } else {
            Err(errors::simctl_error(&self.ctx("pbcopy", None), &out))
        }
    }

    /// `idb ui rotate`, then the tree is read until the interface has turned.
    pub(super) async fn idb_set_orientation(&self, orientation: Orientation) -> Result<()> {
        let o = match orientation {
            Orientation::Portrait => "PORTRAIT",
            Orientation::Landscape => "LANDSCAPE_LEFT",
        };
        let out = {
            let _input = self.input.lock().await;
            self.idb_output(argv!["ui", "rotate", o], "changing the orientation")
                .await?
        };
        if lacks(&out, "invalid choice: 'rotate'") {
            return Err(needs_idb_1_5(
                "changing the orientation",
                "`idb ui rotate`",
                ". Or rotate by hand with Simulator.app's Device > Rotate Left / Rotate Right (Cmd+Left / Cmd+Right)",
            ));
        }
        if !out.success() {
            return Err(errors::idb_error(
                &self.udid,
                "changing the orientation",
                &out,
            ));
        }
        let mut seen = None;
        for attempt in 0..ROTATION_CHECKS {
            if attempt > 0 {
                tokio::time::sleep(ROTATION_CHECK_DELAY).await;
            }
            let (_, roots) = self.describe_all().await?;
            seen = frame_orientation(&roots);
            if seen.is_none_or(|s| s == orientation) {
                return Ok(());
            }
        }
        Err(DeviceError::backend_with_hint(
            format!(
                "idb accepted the rotation but the screen is still {}",
                match seen {
                    Some(Orientation::Landscape) => "landscape",
                    _ => "portrait",
                }
            ),
            "The app in front may support only one orientation, or the idb companion may be older than the client and ignore rotation events (both must be fb-idb 1.5.0 or later)",
        ))
    }

    /// The interface orientation: the `Application` frame of the tree when idb is
    /// there (a screenshot keeps the portrait framebuffer on many Xcode releases),
    /// else the screenshot's shape.
    pub(super) async fn tree_orientation(&self) -> Result<Option<Orientation>> {
        if self.tools.idb.is_none() {
            return Ok(None);
        }
        let (_, roots) = self.describe_all().await?;
        Ok(frame_orientation(&roots))
    }

    /// After `simctl openurl` with a custom scheme: fails, naming the button to tap,
    /// when the system's "Open in “App”?" confirmation is in front (the URL waits
    /// behind it: expo/eas-cli#4274). Without idb nothing can be seen, and it passes.
    pub(super) async fn check_open_prompt(&self, url: &str) -> Result<()> {
        if self.tools.idb.is_none() {
            return Ok(());
        }
        let (_, roots) = self.describe_all().await?;
        let Some((title, open)) = open_prompt(&roots) else {
            return Ok(());
        };
        let at = open
            .map(|p| format!(" at ({}, {})", p.x, p.y))
            .unwrap_or_default();
        Err(DeviceError::backend_with_hint(
            format!(
                "Simulator {} is asking “{title}” before opening {url}; the app opens only once that is confirmed",
                self.udid
            ),
            format!("Tap its Open button{at} to open it (or Cancel to refuse)"),
        )
        .then(NextStep::ListElements))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_map_is_idbs() {
        for c in "azAZ09 \n;=,-./`[\\]'!@#$%^&*()_+{}:\"|<>?~".chars() {
            assert!(idb_can_type(c), "{c:?}");
        }
        for c in "é世🎉\t\r€".chars() {
            assert!(!idb_can_type(c), "{c:?}");
        }
    }
}
