//! The screen fingerprint a settle check samples: on Android 12 and later the list of
//! display frames SurfaceFlinger composed, hashed on the phone; else the frame itself,
//! hashed on the phone.
//!
//! `dumpsys SurfaceFlinger --frametimeline -all` (Android 12+; AOSP frameworks/native
//! services/surfaceflinger/FrameTimeline/FrameTimeline.cpp, `FrameTimeline::dumpAll`,
//! lines 1491–1499 in Android 15) prints "Number of display frames : N" and the last 64
//! frames composed for the display (`kDefaultMaxDisplayFrames`, FrameTimeline.h line 525),
//! a frame being added at each composition (`setSfPresent`, lines 918–928) and none when a
//! commit composes nothing. So the text stays the same exactly while nothing is composed:
//! two equal hashes mean no frame reached the screen between them, whatever moved (a
//! window animation, a spinner, a video) — a finer fact than two equal frames, and a
//! binder call instead of a 10 MB capture. Before Android 12 the argument falls through to
//! the full dump (SurfaceFlinger.cpp lines 6436–6453), which differs at every call, so the
//! release is checked first, and the dump's first line once per device.
//!
//! The fingerprint names its signal ([`SettleSignal::FrameTimeline`] or
//! [`SettleSignal::FrameHash`]); the server spaces its samples by it.

use mobile_device::{DeviceError, Result, ScreenFingerprint, SettleSignal};

use super::AndroidDevice;
use crate::adb::Cap;
use crate::quote::{command, pipeline};

/// The first SDK level with FrameTimeline (Android 12).
const FRAME_TIMELINE_SDK: u32 = 31;

const TIMELINE: [&str; 4] = ["dumpsys", "SurfaceFlinger", "--frametimeline", "-all"];
/// The phone-side hash every fingerprint pipeline ends in.
const SHA1SUM: [&str; 1] = ["sha1sum"];

/// What `sha1sum` (or `md5sum`) prints for standard input: the hex digest, two spaces, `-`.
fn parse_digest(out: &str) -> Option<&str> {
    let digest = out.split_whitespace().next()?;
    (matches!(digest.len(), 32 | 40) && digest.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(digest)
}

/// Whether a `--frametimeline -all` dump is the frame list (its first line
/// `Number of display frames : N`), not the full dump an older release falls back to.
fn is_frame_list(out: &str) -> bool {
    out.lines()
        .next()
        .and_then(|l| l.strip_prefix("Number of display frames : "))
        .is_some_and(|n| n.trim().parse::<u32>().is_ok())
}

impl AndroidDevice {
    /// 1 round trip: the frame timeline (Android 12+, when its dump was understood) or the
    /// frame, hashed on the phone by toybox's `sha1sum` (toys/lets/md5sum.c, Android 6
    /// and later), so 43 bytes cross the cable. The first call on a device also reads
    /// the SDK level and, on 12+, the dump once (2 more round trips).
    pub(super) async fn screen_fingerprint(&self) -> Result<ScreenFingerprint> {
        if self.frame_timeline().await? {
            let cmd = pipeline(&[&TIMELINE[..], &SHA1SUM])?;
            let out = self
                .sh_cap("fingerprinting the screen", cmd, Cap::SHELL)
                .await?;
            return digest(
                &out,
                "dumpsys SurfaceFlinger --frametimeline -all | sha1sum",
            )
            .map(|d| ScreenFingerprint::new(SettleSignal::FrameTimeline, d));
        }
        let cmd = pipeline(&[&["screencap"][..], &SHA1SUM])?;
        let out = self
            .sh_cap("fingerprinting the screen", cmd, Cap::SHELL)
            .await?;
        digest(&out, "screencap | sha1sum")
            .map(|d| ScreenFingerprint::new(SettleSignal::FrameHash, d))
    }

    /// Whether this device's frame timeline can be sampled (checked once).
    async fn frame_timeline(&self) -> Result<bool> {
        self.frame_timeline
            .get_or_try_init(|| async {
                if self.sdk().await? < FRAME_TIMELINE_SDK {
                    return Ok::<_, DeviceError>(false);
                }
                let out = self
                    .sh_cap(
                        "reading the frame timeline",
                        command(&TIMELINE)?,
                        Cap::LISTING,
                    )
                    .await?;
                Ok(is_frame_list(&out))
            })
            .await
            .copied()
    }
}

fn digest(out: &str, what: &str) -> Result<String> {
    parse_digest(out).map(str::to_string).ok_or_else(|| {
        DeviceError::backend(format!(
            "`{what}` printed no digest: {}",
            out.lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect::<String>()
        ))
    })
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

    #[test]
    fn the_frame_list_is_told_from_the_full_dump() {
        assert!(is_frame_list(
            "Number of display frames : 64\nDisplay Frame 0\nPrediction State : Valid\n"
        ));
        assert!(is_frame_list("Number of display frames : 0\n"));
        assert!(!is_frame_list(
            "Build configuration: [sf PRESENT_TIME_OFFSET=0]\n\nDisplay identification data:\n"
        ));
        assert!(!is_frame_list(""));
    }
}
