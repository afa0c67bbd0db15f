//! The screen fingerprint a settle check samples: the frame hashed on the phone.

use mobile_device::{DeviceError, Result};

use super::AndroidDevice;
use crate::adb::Cap;
use crate::quote::command;

/// What `sha1sum` (or `md5sum`) prints for standard input: the hex digest, two spaces, `-`.
fn parse_digest(out: &str) -> Option<&str> {
    let digest = out.split_whitespace().next()?;
    (matches!(digest.len(), 32 | 40) && digest.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(digest)
}

impl AndroidDevice {
    /// 1 round trip: `screencap | sha1sum` in one shell. The raw frame (no PNG encode) is
    /// hashed on the phone by toybox's `sha1sum` (toys/lets/md5sum.c, Android 6 and later),
    /// so 43 bytes cross the cable instead of a frame. Each side of the pipe is one quoted
    /// argv.
    pub(super) async fn screen_fingerprint(&self) -> Result<String> {
        let cmd = format!("{} | {}", command(&["screencap"])?, command(&["sha1sum"])?);
        let out = self
            .sh_cap("fingerprinting the screen", cmd, Cap::SHELL)
            .await?;
        parse_digest(&out).map(str::to_string).ok_or_else(|| {
            DeviceError::backend(format!(
                "`screencap | sha1sum` printed no digest: {}",
                out.lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect::<String>()
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
            parse_digest("d41d8cd98f00b204e9800998ecf8427e  -\n"),
            Some("d41d8cd98f00b204e9800998ecf8427e")
        );
        assert_eq!(
            parse_digest("da39a3ee5e6b4b0d3255bfef95601890afd80709  -\n"),
            Some("da39a3ee5e6b4b0d3255bfef95601890afd80709")
        );
        assert_eq!(parse_digest("/system/bin/sh: sha1sum: not found\n"), None);
        assert_eq!(parse_digest(""), None);
    }
}
