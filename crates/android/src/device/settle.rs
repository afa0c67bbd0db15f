//! The screen fingerprint a settle check samples: the frame hashed on the phone.

use mobile_device::{DeviceError, Result};

use super::AndroidDevice;
use crate::adb::Cap;
use crate::quote::command;

/// What `md5sum` prints for standard input: 32 hex digits, two spaces, `-`.
fn parse_md5sum(out: &str) -> Option<&str> {
    let digest = out.split_whitespace().next()?;
    (digest.len() == 32 && digest.bytes().all(|b| b.is_ascii_hexdigit())).then_some(digest)
}

impl AndroidDevice {
    /// 1 round trip: `screencap | md5sum` in one shell. The raw frame (no PNG encode) is
    /// hashed on the phone by toybox's `md5sum` (Android 6 and later), so 33 bytes cross
    /// the cable instead of a frame. Each side of the pipe is one quoted argv.
    pub(super) async fn screen_fingerprint(&self) -> Result<String> {
        let cmd = format!("{} | {}", command(&["screencap"])?, command(&["md5sum"])?);
        let out = self
            .sh_cap("fingerprinting the screen", cmd, Cap::SHELL)
            .await?;
        parse_md5sum(&out).map(str::to_string).ok_or_else(|| {
            DeviceError::backend(format!(
                "`screencap | md5sum` printed no digest: {}",
                out.lines().next().unwrap_or("").chars().take(200).collect::<String>()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_line_is_read_and_anything_else_refused() {
        assert_eq!(
            parse_md5sum("d41d8cd98f00b204e9800998ecf8427e  -\n"),
            Some("d41d8cd98f00b204e9800998ecf8427e")
        );
        assert_eq!(parse_md5sum("/system/bin/sh: md5sum: not found\n"), None);
        assert_eq!(parse_md5sum(""), None);
    }
}
