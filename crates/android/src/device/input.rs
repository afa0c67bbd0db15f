//! Input: taps, swipes, keys and text, serialized per device.

use std::time::Duration;

use mobile_device::{Button, DeviceError, Platform, Point, Result};

use super::AndroidDevice;
use crate::adb::output;
use crate::quote::command;

/// A local file for a script on its way to the device, unique in this process.
/// `input` prints nothing on success; anything that looks like an error is reported.
pub(super) fn check_input_output(what: &str, out: &str) -> Result<()> {
    output::INPUT
        .check(out.trim())
        .map_err(|said| DeviceError::backend(format!("{what} failed on the device: {said}")))
}

/// The key event `input keyevent` takes for a button Android has: `KEYCODE_` and the
/// button's name (the names of `android.view.KeyEvent`'s constants; see [`Button`]).
fn keycode(button: Button) -> Option<String> {
    button
        .exists_on(Platform::Android)
        .then(|| format!("KEYCODE_{}", button.name()))
}

/// The longest `input text` argument sent in one command, in bytes. A shell command
/// travels as the adb service name `shell:…`, which a request frames in four hex digits
/// (65,535 bytes at most) and which adbd before protocol version 2 (Android 7) takes only
/// up to its 4,096-byte `MAX_PAYLOAD_V1`; quoting can make an argument up to four times
/// longer. Longer text is typed by several commands, one after the other.
const MAX_INPUT_TEXT_ARG: usize = 900;

/// Splits printable-ASCII text into `input text` arguments.
///
/// `input text` turns `%s` into a space, so spaces are sent as `%s`; a literal `%`
/// followed by `s` cannot be said inside one argument, so the text is cut between them
/// and sent as two `input text` commands (in the same shell session). Newline and tab
/// become key events. An argument is at most `MAX_INPUT_TEXT_ARG` bytes; longer text
/// is cut into several commands.
pub(crate) fn input_text_commands(text: &str) -> Result<Vec<Vec<String>>> {
    let mut cmds: Vec<Vec<String>> = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, cmds: &mut Vec<Vec<String>>| {
        if !cur.is_empty() {
            cmds.push(vec!["input".into(), "text".into(), std::mem::take(cur)]);
        }
    };
    let mut prev_percent = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // `\r\n` is one line break: one ENTER, not two.
            '\r' if chars.peek() == Some(&'\n') => continue,
            '\n' | '\r' => {
                flush(&mut cur, &mut cmds);
                cmds.push(vec![
                    "input".into(),
                    "keyevent".into(),
                    "KEYCODE_ENTER".into(),
                ]);
                prev_percent = false;
                continue;
            }
            '\t' => {
                flush(&mut cur, &mut cmds);
                cmds.push(vec![
                    "input".into(),
                    "keyevent".into(),
                    "KEYCODE_TAB".into(),
                ]);
                prev_percent = false;
                continue;
            }
            ' ' => cur.push_str("%s"),
            's' if prev_percent => {
                flush(&mut cur, &mut cmds);
                cur.push('s');
            }
            c if c.is_ascii_graphic() => cur.push(c),
            c => {
                return Err(DeviceError::invalid(format!(
                    "character {c:?} cannot be typed with `input text`"
                )));
            }
        }
        prev_percent = c == '%';
        if cur.len() >= MAX_INPUT_TEXT_ARG {
            flush(&mut cur, &mut cmds);
        }
    }
    flush(&mut cur, &mut cmds);
    Ok(cmds)
}

/// Decodes what `input text ARG` types, as Android's `InputShellCommand` does (`%s` is a
/// space, any other `%` is literal). Used by the tests to check [`input_text_commands`].
#[cfg(test)]
fn input_text_decode(arg: &str) -> String {
    arg.replace("%s", " ")
}

impl AndroidDevice {
    /// 1 round trip: `input tap X Y`.
    pub(super) async fn tap(&self, at: Point) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        self.input("tapping", command(&["input", "tap", &x, &y])?)
            .await
    }

    /// Android 12 and later: 2 round trips, back to back under the input lock, `input tap
    /// X Y` twice (`input` runs `cmd input` in system_server, so the taps are a few
    /// milliseconds apart). Android 8–11 (plus 1 round trip once, `getprop
    /// ro.build.version.sdk`): `input` starts a Java VM per call (hundreds of milliseconds),
    /// so two calls, even in one shell session, land further apart than the 300 ms a
    /// double tap allows (`ViewConfiguration.DOUBLE_TAP_TIMEOUT`); instead one VM runs
    /// both taps: a monkey script (`Tap(X,Y)`, `UserWait(100)`, `Tap(X,Y)`, AOSP
    /// `MonkeySourceScript`) pushed to the device (1 sync session), run with `monkey -f
    /// FILE 1` and removed (`rm -f FILE`): 3 round trips.
    pub(super) async fn double_tap(&self, at: Point) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        if (1..=30).contains(&self.sdk().await?) {
            return self.double_tap_in_one_vm(&x, &y).await;
        }
        let tap = command(&["input", "tap", &x, &y])?;
        self.input_all("double tapping", &[tap.clone(), tap]).await
    }

    async fn double_tap_in_one_vm(&self, x: &str, y: &str) -> Result<()> {
        const REMOTE: &str = "/data/local/tmp/mobile-mcp-double-tap.mks";
        let script = format!(
            "type= raw events\ncount= 3\nspeed= 1.0\nstart data >>\nTap({x},{y})\nUserWait(100)\nTap({x},{y})\n"
        );
        // An unnamed temporary file: nothing to clean up on this machine.
        let src = (|| {
            use std::io::{Seek, Write};
            let mut f = tempfile::tempfile()?;
            f.write_all(script.as_bytes())?;
            f.rewind()?;
            Ok::<_, std::io::Error>(f)
        })()
        .map_err(|e| DeviceError::backend(format!("writing the tap script: {e}")))?;
        let _turn = self.input.lock().await;
        let link = self.link.clone();
        let id = self.id.clone();
        crate::adb::run_transfer("double tapping", move |cancel| {
            link.push(src, REMOTE, cancel)
                .map_err(|e| super::adb_error(&id, &link, "pushing the tap script", e))
        })
        .await?;
        let out = self
            .sh("double tapping", command(&["monkey", "-f", REMOTE, "1"])?)
            .await;
        let _ = self
            .sh("double tapping", command(&["rm", "-f", REMOTE])?)
            .await;
        let out = out?;
        output::MONKEY_SCRIPT.check(&out).map_err(|said| {
            DeviceError::backend(format!("double tapping failed on the device: {said}"))
        })
    }

    /// 1 round trip: `input swipe X Y X Y MS`.
    pub(super) async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        let ms = duration.as_millis().max(1).to_string();
        self.input(
            "long pressing",
            command(&["input", "swipe", &x, &y, &x, &y, &ms])?,
        )
        .await
    }

    /// 1 round trip: `input swipe X1 Y1 X2 Y2 MS`.
    pub(super) async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        let [x1, y1] = Self::point_args(from)?;
        let [x2, y2] = Self::point_args(to)?;
        let ms = duration.as_millis().max(1).to_string();
        self.input(
            "swiping",
            command(&["input", "swipe", &x1, &y1, &x2, &y2, &ms])?,
        )
        .await
    }

    /// ASCII: 1 round trip `input text ARG` (one more per `%s` cut and per newline or
    /// tab key event; see [`input_text_commands`]). Other text is pasted through the
    /// clipboard by the on-device helper and checked in the field (`unicode.rs`).
    pub(super) async fn type_text(&self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if text.contains('\0') {
            return Err(DeviceError::invalid("text cannot contain NUL characters"));
        }
        let ascii = text
            .chars()
            .all(|c| c.is_ascii_graphic() || matches!(c, ' ' | '\n' | '\r' | '\t'));
        if ascii {
            let cmds = input_text_commands(text)?
                .iter()
                .map(|argv| command(argv))
                .collect::<Result<Vec<_>>>()?;
            return self.input_all("typing text", &cmds).await;
        }
        self.type_unicode(text).await
    }

    /// 1 round trip: `input keyevent KEYCODE_…`.
    pub(super) async fn press_button(&self, button: Button) -> Result<()> {
        let Some(code) = keycode(button) else {
            return Err(DeviceError::unsupported_with_hint(
                format!("the {button} button"),
                Platform::Android,
                format!(
                    "Android buttons are {}",
                    Button::names_on(Platform::Android)
                ),
            ));
        };
        self.input("pressing a button", command(&["input", "keyevent", &code])?)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn typed(cmds: &[Vec<String>]) -> String {
        cmds.iter()
            .map(|c| match c[1].as_str() {
                "text" => input_text_decode(&c[2]),
                "keyevent" if c[2] == "KEYCODE_ENTER" => "\n".to_string(),
                "keyevent" => "\t".to_string(),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn spaces_and_percent_s() {
        let c = input_text_commands("hello world").unwrap();
        assert_eq!(c, vec![vec!["input", "text", "hello%sworld"]]);
        let c = input_text_commands("100%sure").unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(typed(&c), "100%sure");
        assert_eq!(
            typed(&input_text_commands("a\nb\tc % s").unwrap()),
            "a\nb\tc % s"
        );
        assert!(input_text_commands("é").is_err());
        let crlf = input_text_commands("a\r\nb\rc").unwrap();
        assert_eq!(crlf.iter().filter(|c| c[1] == "keyevent").count(), 2);
    }

    proptest! {
        #[test]
        fn typed_text_decodes_to_itself(s in "[ -~\\n\\t]{0,60}") {
            let c = input_text_commands(&s).unwrap();
            prop_assert_eq!(typed(&c), s);
        }
    }

    #[test]
    fn buttons_map_and_ios_ones_do_not() {
        assert_eq!(keycode(Button::Home).as_deref(), Some("KEYCODE_HOME"));
        assert_eq!(
            keycode(Button::DpadCenter).as_deref(),
            Some("KEYCODE_DPAD_CENTER")
        );
        assert_eq!(keycode(Button::Siri), None);
    }
}
