//! The clipboard service beyond the clip's text (`PhoneState::clipboard`): whether a clip is
//! set, which package set it, and what SystemUI showed for it. The rules that change it are
//! in `commands/app_process.rs` (the only way the shell reaches the service) and
//! `commands/input.rs` (`KEYCODE_PASTE`). Not for: the text itself, which stays in
//! `PhoneState::clipboard` so a paste and the tests read one place.

use serde::{Deserialize, Serialize};

/// What `ClipboardService` and SystemUI hold about the primary clip.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClipService {
    /// A clip is set (`getPrimaryClip` returns one even when its text is empty).
    pub has_clip: bool,
    /// The package that set the clip (`ClipboardService`'s `mPrimaryClipPackage`).
    pub source: Option<String>,
    /// The clip's description carries `com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY`.
    pub suppress_overlay: bool,
    /// Android 13+: SystemUI's clipboard overlay was shown for a new clip, by its source
    /// package (`ClipboardListener.onPrimaryClipChanged`).
    pub overlays: Vec<String>,
    /// Every `IClipboard` call that reached the service, oldest first (`"getPrimaryClip"`,
    /// `"setPrimaryClip"`, `"clearPrimaryClip"`), for tests.
    pub calls: Vec<String>,
}
