//! Text `input text` cannot type, and the clipboard, through the on-device helper
//! ([`crate::helper`]).
//!
//! `input text` maps each character to key events with the virtual keyboard's
//! `KeyCharacterMap`, which has no keys for CJK, Arabic, emoji or combining marks, and the
//! command dies (AOSP `InputShellCommand.sendText`). So any other text is pasted: the user's
//! clip is read, the text is set as the clip in pieces of at most [`PASTE_BYTES`], each
//! pasted into the focused field with `KEYCODE_PASTE` (279; `input` waits until the app
//! handled it), and the user's clip is put back (or cleared) on every path, failures
//! included. The first clip is read back before the first paste, so a clipboard service
//! that ignores the shell never has the user's own clip pasted. The field is read before and after (`uiautomator dump`), and the typing only
//! succeeds when the field then holds exactly the text inserted at one place.
//!
//! Not for: ASCII text (`input`), the helper's protocol ([`crate::helper`]).

use std::io::{Seek, Write};

use mobile_device::{DeviceError, NextStep, Platform, Result};

use super::AndroidDevice;
use crate::helper::{self, Failure, Reply, Verb};
use crate::quote::command;

/// UTF-8 bytes pasted at once (8 KiB of base64 on the command line).
pub(crate) const PASTE_BYTES: usize = 6 * 1024;

/// What the focused field shows, from a UI dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FocusedField {
    pub text: String,
    pub password: bool,
}

/// The focused node of a `uiautomator dump` (the one with `focused="true"`).
pub(crate) fn focused_field(xml: &str) -> Option<FocusedField> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let node = doc
        .descendants()
        .find(|n| n.has_tag_name("node") && n.attribute("focused") == Some("true"))?;
    Some(FocusedField {
        text: node.attribute("text").unwrap_or("").to_string(),
        password: node.attribute("password") == Some("true"),
    })
}

/// Whether `after` is `before` with `typed` inserted at one place, or, when the field was
/// empty and showed its hint (uiautomator reports a hint as the text), `typed` alone.
pub(crate) fn holds_typed(before: &str, after: &str, typed: &str) -> bool {
    if after == typed {
        return true;
    }
    if after.len() != before.len() + typed.len() {
        return false;
    }
    after.match_indices(typed).any(|(i, _)| {
        after.is_char_boundary(i)
            && format!("{}{}", &after[..i], &after[i + typed.len()..]) == before
    })
}

fn shorten(s: &str) -> String {
    const MAX: usize = 200;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{:?}… ({} characters)", &s[..i], s.chars().count()),
        None => format!("{s:?}"),
    }
}

impl AndroidDevice {
    /// One helper call (1 round trip); when the helper is missing on the device it is
    /// pushed (1 sync session) and the call made again (1 more).
    async fn helper_call(&self, what: &str, verb: Verb<'_>) -> Result<Reply> {
        let line = helper::command_line(verb)?;
        let out = self.sh(what, line.clone()).await?;
        match helper::parse_reply(&out) {
            Ok(r) => return Ok(r),
            Err(Failure::Missing(_)) | Err(Failure::Other(_)) => {}
            Err(e) => return Err(Self::helper_error(what, e)),
        }
        self.push_helper(what).await?;
        let out = self.sh(what, line).await?;
        helper::parse_reply(&out).map_err(|e| Self::helper_error(what, e))
    }

    fn helper_error(what: &str, e: Failure) -> DeviceError {
        match e {
            Failure::NoAppProcess(said) => DeviceError::unsupported_with_hint(
                what,
                Platform::Android,
                format!(
                    "this device's shell has no `app_process` ({said}), so the helper that reaches the clipboard cannot start; type ASCII text, or install and select an input method that takes text (such as ADBKeyboard)"
                ),
            ),
            Failure::Missing(said) | Failure::Other(said) => DeviceError::backend(format!(
                "{what}: the helper did not start on the device even after it was pushed to {} ({said})",
                helper::remote_path()
            )),
            Failure::Helper(said) => DeviceError::backend(format!(
                "{what}: the clipboard service refused the shell ({said}); type ASCII text, or use an input method that takes text"
            )),
        }
    }

    /// Pushes the helper to [`helper::remote_path`] (1 sync session).
    async fn push_helper(&self, what: &str) -> Result<()> {
        let src = (|| {
            let mut f = tempfile::tempfile()?;
            f.write_all(helper::DEX)?;
            f.rewind()?;
            Ok::<_, std::io::Error>(f)
        })()
        .map_err(|e| DeviceError::backend(format!("writing the helper: {e}")))?;
        let link = self.link.clone();
        let id = self.id.clone();
        let remote = helper::remote_path();
        let what = what.to_string();
        crate::adb::run_transfer(&what.clone(), move |cancel| {
            link.push(src, &remote, cancel)
                .map_err(|e| super::adb_error(&id, &link, &what, e))
        })
        .await?;
        Ok(())
    }

    async fn clip_get(&self, what: &str) -> Result<Option<String>> {
        match self.helper_call(what, Verb::Get).await? {
            Reply::Clip(c) => Ok(c),
            other => Err(DeviceError::backend(format!(
                "{what}: the helper answered {other:?} to clip-get"
            ))),
        }
    }

    async fn clip_put(&self, what: &str, clip: Option<&str>) -> Result<()> {
        let verb = match clip {
            Some(t) => Verb::Set(t),
            None => Verb::Clear,
        };
        match self.helper_call(what, verb).await? {
            Reply::Done => Ok(()),
            other => Err(DeviceError::backend(format!(
                "{what}: the helper answered {other:?}"
            ))),
        }
    }

    /// 1 round trip (`env CLASSPATH=… app_process / mobile.mcp.Helper clip-get`), plus the
    /// push the first time on a device. No clip reads as the empty text.
    pub(super) async fn clipboard(&self) -> Result<String> {
        Ok(self
            .clip_get("reading the clipboard")
            .await?
            .unwrap_or_default())
    }

    /// 1 round trip (`… clip-set BASE64`), plus the push the first time on a device.
    pub(super) async fn set_clipboard(&self, text: &str) -> Result<()> {
        self.clip_put("setting the clipboard", Some(text)).await
    }

    /// Types text `input text` cannot: 1 UI dump, 1 clip read, per piece of
    /// [`PASTE_BYTES`] a clip set and a paste (the first clip read back once), 1 clip
    /// restore, 1 UI dump (7 round trips for up to 6 KiB of UTF-8), under the input lock.
    pub(super) async fn type_unicode(&self, text: &str) -> Result<()> {
        const WHAT: &str = "typing text";
        let _turn = self.input.lock().await;
        let before = focused_field(&self.uiautomator_xml().await?).ok_or_else(|| {
            DeviceError::backend(
                "typing text: no field has the focus, so a paste would go nowhere; tap a text field first",
            )
            .then(NextStep::ListElements)
        })?;
        let saved = self.clip_get(WHAT).await?;
        let pasted = self.paste_all(text).await;
        let restored = self.clip_put(WHAT, saved.as_deref()).await;
        pasted?;
        restored.map_err(|e| {
            DeviceError::backend(format!(
                "the text was pasted, but the user's clipboard could not be put back: {e}"
            ))
        })?;
        let after = focused_field(&self.uiautomator_xml().await?).ok_or_else(|| {
            DeviceError::backend(
                "typing text: after the paste no field has the focus, so what arrived cannot be checked",
            )
            .then(NextStep::ListElements)
        })?;
        if after.password || holds_typed(&before.text, &after.text, text) {
            return Ok(());
        }
        Err(DeviceError::backend(format!(
            "typing text: the field does not hold the text as typed; it holds {} (before: {}); the field may not take pastes, or may change what it is given",
            shorten(&after.text),
            shorten(&before.text)
        ))
        .then(NextStep::ListElements))
    }

    /// Per piece: the clip set and a paste. The first clip is read back before anything is
    /// pasted, so a clipboard that ignores the shell never gets the user's own clip pasted.
    async fn paste_all(&self, text: &str) -> Result<()> {
        for (i, piece) in helper::chunks(text, PASTE_BYTES).into_iter().enumerate() {
            self.clip_put("typing text", Some(piece)).await?;
            if i == 0 && self.clip_get("typing text").await?.as_deref() != Some(piece) {
                return Err(DeviceError::unsupported_with_hint(
                    "typing text beyond ASCII",
                    Platform::Android,
                    "the clipboard service did not take the shell's clip, so nothing was pasted: it ignores the shell when com.android.shell's WRITE_CLIPBOARD or READ_CLIPBOARD app op is not allowed (`adb shell appops get com.android.shell WRITE_CLIPBOARD`; `appops set com.android.shell WRITE_CLIPBOARD allow` restores it); or type ASCII text, or use an input method that takes text",
                ));
            }
            let out = self
                .sh(
                    "typing text",
                    command(&["input", "keyevent", "KEYCODE_PASTE"])?,
                )
                .await?;
            super::check_input_output("pasting", &out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_focused_node_is_read_from_a_dump() {
        let xml = r#"<?xml version="1.0"?><hierarchy rotation="0"><node text="a" focused="false"/><node text="你好" focused="true" password="false"/></hierarchy>"#;
        assert_eq!(
            focused_field(xml),
            Some(FocusedField {
                text: "你好".into(),
                password: false
            })
        );
        assert_eq!(
            focused_field("<hierarchy><node focused=\"false\"/></hierarchy>"),
            None
        );
    }

    #[test]
    fn typed_text_must_be_inserted_whole_at_one_place() {
        assert!(holds_typed("", "你好", "你好"));
        assert!(holds_typed("Search", "你好", "你好"), "a hint is replaced");
        assert!(holds_typed("ab", "a👋🏽b", "👋🏽"));
        assert!(holds_typed("ab", "ab👋🏽", "👋🏽"));
        assert!(!holds_typed("ab", "ab👋", "👋🏽"), "a cut surrogate pair");
        assert!(!holds_typed("ab", "abx", "y"));
        assert!(!holds_typed("", "", "x"));
    }
}
