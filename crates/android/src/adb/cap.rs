//! How much of a device command's output this crate takes: every shell call is given a
//! [`Cap`] for its purpose, and past it the call hangs up (the device command ends) and
//! either keeps what fits with a note ([`Past::Note`]) or fails ([`Past::Fail`]) where a
//! cut result would be wrong (an image, an XML document).
//!
//! A device, or an adb server, can print without end (`logcat` without `-d`, a `cat` of a
//! huge file, a broken server); without a cap, its output would be held until the memory
//! runs out. The caps are far above what each command prints on a real phone, so they
//! only stop output that is not what the command was asked for.

/// A byte limit on one command's output, and what a call does past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cap {
    /// At most this many bytes of output are taken.
    pub(crate) bytes: usize,
    /// What the call returns when the device sends more.
    pub(crate) past: Past,
    /// What the output is, for the note or the error (`command output`, `the device log`).
    pub(crate) what: &'static str,
}

/// What a call returns once its output reached its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Past {
    /// What fits, followed by a line that says it was cut ([`note`]).
    Note,
    /// An error: a cut result would be wrong.
    Fail,
}

const MIB: usize = 1 << 20;

impl Cap {
    /// The replies of ordinary commands (`input`, `am`, `pm`, `settings`, `wm`, `ps`,
    /// `getprop`): a few KiB on a real phone, `getprop` and `ps -A` tens of KiB.
    pub(crate) const SHELL: Cap = Cap {
        bytes: MIB,
        past: Past::Note,
        what: "command output",
    };

    /// Listings that grow with what is installed or open (`dumpsys window`, `dumpsys
    /// SurfaceFlinger`, `cmd package query-activities`): hundreds of KiB on a busy phone.
    pub(crate) const LISTING: Cap = Cap {
        bytes: 8 * MIB,
        past: Past::Note,
        what: "a listing",
    };

    /// `logcat -d` (the main log, or the crash buffer): at most 10,000 lines are asked
    /// for, a whole log buffer is a few MiB; the entries that fit are still worth having.
    pub(crate) const LOG: Cap = Cap {
        bytes: 16 * MIB,
        past: Past::Note,
        what: "the device log",
    };

    /// A uiautomator dump: hundreds of KiB for a dense screen. A cut XML document does not
    /// parse, so past the cap is an error.
    pub(crate) const UI_DUMP: Cap = Cap {
        bytes: 16 * MIB,
        past: Past::Fail,
        what: "the screen's element dump",
    };

    /// `screencap -p`: a PNG of the largest screen at its worst compression is about 4
    /// bytes a pixel (a 4K screen is 33 MB); a cut image is no image.
    pub(crate) const PNG: Cap = Cap {
        bytes: 64 * MIB,
        past: Past::Fail,
        what: "a PNG screenshot",
    };

    /// Raw `screencap`: the largest frame the pipeline reads (16384x16384 RGBA and its
    /// header). The frame is scaled while it arrives, so this bounds the time, not memory;
    /// the sink itself refuses a frame longer than its header says.
    pub(crate) const RAW_FRAME: Cap = Cap {
        bytes: 16384 * 16384 * 4 + 16,
        past: Past::Fail,
        what: "a raw screenshot",
    };
}

/// How the output of a capped call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The command ended and all its output was taken.
    Whole,
    /// The output reached the cap; the call hung up.
    Cut,
}

/// The line a [`Past::Note`] call appends to what fits.
pub(crate) fn note(cap: Cap) -> String {
    format!(
        "\n{NOTE_START}{} was cut at {} (the limit for it); the device command was stopped]\n",
        cap.what,
        size(cap.bytes)
    )
}

/// How [`note`] lines start, so a parser can tell them from the device's output.
pub(crate) const NOTE_START: &str = "[mobile-mcp: ";

/// The error message of a [`Past::Fail`] call.
pub(crate) fn too_long(cap: Cap) -> String {
    format!(
        "the device sent more than {} for {} (the limit for it); the command was stopped",
        size(cap.bytes),
        cap.what
    )
}

/// `n` bytes in MiB when it is a whole number of them, else in bytes.
fn size(n: usize) -> String {
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}

/// Splits a [`note`] off the end of `text`: the text before it, and the note's words.
pub(crate) fn split_note(text: &str) -> (&str, Option<&str>) {
    match text.rfind(&format!("\n{NOTE_START}")) {
        Some(at) => (&text[..at], Some(text[at + 1..].trim())),
        None => (text, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_says_what_was_cut_and_splits_off_again() {
        let mut text = "line 1\nline 2".to_string();
        text.push_str(&note(Cap::LOG));
        let (before, said) = split_note(&text);
        assert_eq!(before, "line 1\nline 2");
        let said = said.unwrap();
        assert!(said.contains("the device log was cut at 16 MiB"), "{said}");
        assert!(said.contains("stopped"), "{said}");
        assert_eq!(split_note("no note\n"), ("no note\n", None));
        assert!(too_long(Cap::PNG).contains("more than 64 MiB for a PNG screenshot"));
    }
}
