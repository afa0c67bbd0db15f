//! The on-device helper and its protocol: what this crate runs on a phone beyond the shell's
//! own programs, for what the shell alone cannot do (the clipboard; typing any language).
//!
//! The helper is a dex written here in smali (`crates/android/helper/src`), assembled by
//! `scripts/build-helper.sh` with Debian's `smali` into `crates/android/helper/` and
//! embedded in this crate ([`DEX`]); a test rebuilds it and compares the bytes. It is never
//! installed as an app: it is pushed once per device to `/data/local/tmp` under a name that
//! holds its content hash ([`remote_path`]), so a new build is a new file and an old one is
//! never run by mistake; `device::unicode` pushes it when a run says it is missing.
//!
//! How it runs: one process per call, `env CLASSPATH=PATH app_process / mobile.mcp.Helper
//! VERB [ARG]` (AOSP `app_main.cpp`; the same start scrcpy's server uses), as the shell user
//! (uid 2000, package `com.android.shell`). It prints one line and exits; nothing stays
//! running, so there is nothing to stop. Text travels as base64 of its UTF-8 bytes, one
//! shell word (quoted by [`crate::quote`] like every argument). The verbs this crate uses
//! ([`Verb`]) and the replies ([`Reply`]) are the protocol; the smali file's header lists
//! them all (also `version`, which answers `mobile-mcp-helper 1`, for a person checking a
//! device by hand).
//!
//! Room to grow: a later verb can keep the process alive and speak over its stdin/stdout
//! (faster input injection through `InputManager`, a UI tree without `uiautomator dump`);
//! it would be started the same way and stopped by closing its shell (the hang-up every
//! shell here already has).
//!
//! Not for: deciding when to use the helper (`device::unicode`), shell quoting
//! ([`crate::quote`]).

use base64::Engine as _;
use mobile_device::{DeviceError, Result};

use crate::quote::{ShellLine, command};

/// The helper's dex, as built by `scripts/build-helper.sh`.
pub(crate) const DEX: &[u8] = include_bytes!("../../helper/mobile-mcp-helper.dex");

/// The class `app_process` starts.
pub(crate) const CLASS: &str = "mobile.mcp.Helper";

/// The most UTF-8 bytes one `clip-set` carries (its base64 is 4/3 of that): well under the
/// 64 KiB a host-protocol request can hold and adbd's 256 KiB packets (Android 7+).
pub(crate) const MAX_CLIP_BYTES: usize = 16 * 1024;

/// FNV-1a (64 bit) of the dex, computed at build time: the file name's content hash.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

const HASH: u64 = fnv1a(DEX);

/// Where the helper lives on a device: `/data/local/tmp/mobilemcp-helper-HASH.dex`. Not
/// `mobile-mcp-…`: that prefix marks this crate's transient files, which are always
/// removed; the helper stays for the next call.
pub(crate) fn remote_path() -> String {
    format!("/data/local/tmp/mobilemcp-helper-{HASH:016x}.dex")
}

/// One call of the helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb<'a> {
    /// `clip-get`: the primary clip's text, if any.
    Get,
    /// `clip-set BASE64`: a plain-text clip (no SystemUI overlay on Android 13+).
    Set(&'a str),
    /// `clip-clear`: no clip (`clearPrimaryClip`, or an empty clip before Android 9).
    Clear,
}

/// The shell command line of one call.
pub(crate) fn command_line(verb: Verb) -> Result<ShellLine> {
    let class_path = format!("CLASSPATH={}", remote_path());
    let mut argv = vec!["env", &class_path, "app_process", "/", CLASS];
    let b64;
    match verb {
        Verb::Get => argv.push("clip-get"),
        Verb::Clear => argv.push("clip-clear"),
        Verb::Set(text) => {
            if text.len() > MAX_CLIP_BYTES {
                return Err(DeviceError::invalid(format!(
                    "the clipboard text is {} bytes of UTF-8; at most {MAX_CLIP_BYTES} go in one clip",
                    text.len()
                )));
            }
            b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            argv.push("clip-set");
            argv.push(&b64);
        }
    }
    command(&argv)
}

/// What a call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// `ok`.
    Done,
    /// `clip:BASE64` (`Some`) or `clip-none`.
    Clip(Option<String>),
}

/// Why a call gave no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The shell has no `app_process`.
    NoAppProcess(String),
    /// The VM did not find the helper's class (not pushed yet, removed, or damaged).
    Missing(String),
    /// The helper ran and failed: its `error:` line.
    Helper(String),
    /// Anything else the shell printed.
    Other(String),
}

/// Reads a call's output: the helper's one line, or why there is none.
pub(crate) fn parse_reply(out: &str) -> std::result::Result<Reply, Failure> {
    let said = out.trim();
    for line in said.lines().map(str::trim) {
        if line == "ok" {
            return Ok(Reply::Done);
        }
        if line == "clip-none" {
            return Ok(Reply::Clip(None));
        }
        if let Some(b64) = line.strip_prefix("clip:") {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| Failure::Other(format!("a clip that is not base64 ({e})")))?;
            return Ok(Reply::Clip(Some(
                String::from_utf8_lossy(&bytes).into_owned(),
            )));
        }
        if let Some(e) = line.strip_prefix("error: ") {
            return Err(Failure::Helper(e.to_string()));
        }
    }
    let first = said.lines().next().unwrap_or("(no output)").to_string();
    if [
        "inaccessible or not found",
        "No such file or directory",
        "not found",
    ]
    .iter()
    .any(|why| said.contains(&format!("app_process: {why}")))
    {
        Err(Failure::NoAppProcess(first))
    } else if said.contains("ClassNotFoundException") || said.contains(CLASS) {
        Err(Failure::Missing(first))
    } else {
        Err(Failure::Other(first))
    }
}

/// Cuts `text` into pieces of at most `max` UTF-8 bytes, at character boundaries.
pub(crate) fn chunks(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(max);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quote::split_words;

    #[test]
    fn the_dex_is_the_built_helper_and_its_name_holds_its_hash() {
        assert!(DEX.starts_with(b"dex\n037\0"), "dex 037 (API 24)");
        let path = remote_path();
        assert!(path.starts_with("/data/local/tmp/mobilemcp-helper-"));
        assert_eq!(
            path.len(),
            "/data/local/tmp/mobilemcp-helper-".len() + 16 + 4
        );
        assert_ne!(fnv1a(DEX), fnv1a(&DEX[1..]));
    }

    #[test]
    fn a_call_is_one_quoted_argv_with_the_text_as_base64() {
        let line = command_line(Verb::Set("你好 'x' $(id)")).unwrap();
        let words = split_words(line.as_str()).unwrap();
        assert_eq!(
            words[..5],
            [
                "env",
                &format!("CLASSPATH={}", remote_path()),
                "app_process",
                "/",
                CLASS
            ]
        );
        assert_eq!(words[5], "clip-set");
        let back = base64::engine::general_purpose::STANDARD
            .decode(&words[6])
            .unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), "你好 'x' $(id)");
        let long = "字".repeat(MAX_CLIP_BYTES / 3 + 1);
        assert!(command_line(Verb::Set(&long)).is_err());
    }

    #[test]
    fn replies_and_failures_are_told_apart() {
        assert_eq!(parse_reply("ok\n"), Ok(Reply::Done));
        assert_eq!(parse_reply("clip-none\n"), Ok(Reply::Clip(None)));
        assert_eq!(
            parse_reply("clip:5L2g5aW9\n"),
            Ok(Reply::Clip(Some("你好".into())))
        );
        assert!(
            matches!(parse_reply("error: java.lang.SecurityException: no\n"), Err(Failure::Helper(e)) if e.contains("SecurityException"))
        );
        assert!(matches!(
            parse_reply(
                "java.lang.ClassNotFoundException: Didn't find class \"mobile.mcp.Helper\" on path\nAborted\n"
            ),
            Err(Failure::Missing(_))
        ));
        assert!(matches!(
            parse_reply("/system/bin/sh: app_process: inaccessible or not found\n"),
            Err(Failure::NoAppProcess(_))
        ));
        assert!(matches!(
            parse_reply("env: app_process: No such file or directory\n"),
            Err(Failure::NoAppProcess(_))
        ));
        assert!(matches!(parse_reply(""), Err(Failure::Other(_))));
    }

    #[test]
    fn chunks_cut_at_characters_and_join_to_the_text() {
        let text = "👋🏽 café 你好，世界 مرحبا".repeat(50);
        for max in [4, 7, 100, 6144] {
            let parts = chunks(&text, max);
            assert!(parts.iter().all(|p| p.len() <= max && !p.is_empty()));
            assert_eq!(parts.concat(), text);
        }
        assert!(chunks("", 10).is_empty());
    }
}
