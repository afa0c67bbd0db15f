//! What a settle check samples: a [`ScreenFingerprint`], the digest of one signal of what
//! the screen shows ([`SettleSignal`]). Two equal fingerprints mean the screen did not
//! change between them.
//!
//! Not for: taking a fingerprint (backends do, in `Device::screen_fingerprint`) or waiting
//! for the screen (`crate::settle` does).

use std::fmt;

/// Which signal a fingerprint digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SettleSignal {
    /// The list of display frames the compositor composed (Android 12+: SurfaceFlinger's
    /// frame timeline): equal lists mean nothing was composed in between.
    FrameTimeline,
    /// The frame itself.
    FrameHash,
    /// The element list (a device that can hash neither).
    ElementList,
}

impl SettleSignal {
    /// Its name in a settle result: "frame timeline", "frame hash" or "element list".
    pub fn name(self) -> &'static str {
        match self {
            SettleSignal::FrameTimeline => "frame timeline",
            SettleSignal::FrameHash => "frame hash",
            SettleSignal::ElementList => "element list",
        }
    }
}

/// A digest of one signal of the screen. Fingerprints of different signals are never
/// equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScreenFingerprint {
    signal: SettleSignal,
    digest: String,
}

impl ScreenFingerprint {
    /// The fingerprint `digest` of `signal`.
    pub fn new(signal: SettleSignal, digest: impl Into<String>) -> Self {
        ScreenFingerprint {
            signal,
            digest: digest.into(),
        }
    }

    /// The signal it digests.
    pub fn signal(&self) -> SettleSignal {
        self.signal
    }

    /// The digest (hex on Android, where the phone hashes).
    pub fn digest(&self) -> &str {
        &self.digest
    }
}

impl fmt::Display for ScreenFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.signal.name(), self.digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_digest_of_another_signal_is_another_fingerprint() {
        let a = ScreenFingerprint::new(SettleSignal::FrameTimeline, "ab12");
        let b = ScreenFingerprint::new(SettleSignal::FrameHash, "ab12");
        assert_ne!(a, b);
        assert_eq!(
            a,
            ScreenFingerprint::new(SettleSignal::FrameTimeline, "ab12")
        );
        assert_eq!(a.signal().name(), "frame timeline");
        assert_eq!(a.digest(), "ab12");
    }
}
