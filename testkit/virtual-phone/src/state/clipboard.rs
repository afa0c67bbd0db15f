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
    /// Android 12+: the access toasts `ClipboardService.showAccessNotificationLocked` showed,
    /// oldest first (`"Shell pasted from your clipboard"`): one when a package other than the
    /// clip's source (and not the default IME) reads the clip, once per package and clip.
    pub toasts: Vec<String>,
    /// The packages a toast was shown for since the clip was last set (`mNotifiedUids`,
    /// cleared by `setPrimaryClipInternalLocked`).
    pub notified: Vec<String>,
}

impl ClipService {
    /// A new clip from `source`: who was notified about the old one no longer counts.
    pub(crate) fn set_by(&mut self, source: &str) {
        self.has_clip = true;
        self.source = Some(source.to_string());
        self.notified.clear();
    }
}

/// `package` (labelled `label`) reads the clip: on Android 12+ (`sdk` 31) the access toast
/// `"LABEL pasted from your clipboard"` (`R.string.pasted_from_clipboard`) shows unless
/// `package` set the clip, is the default IME's package (`default_ime`), or was shown one
/// for this clip already. The shell does not hold `SUPPRESS_CLIPBOARD_ACCESS_NOTIFICATION`.
pub(crate) fn note_read(
    clip: &mut ClipService,
    sdk: u32,
    package: &str,
    label: &str,
    default_ime: Option<&str>,
) {
    if sdk < 31 || !clip.has_clip || clip.source.as_deref() == Some(package) {
        return;
    }
    let ime_package = default_ime.and_then(|id| id.split('/').next());
    if ime_package == Some(package) || clip.notified.iter().any(|p| p == package) {
        return;
    }
    clip.notified.push(package.to_string());
    clip.toasts
        .push(format!("{label} pasted from your clipboard"));
}
