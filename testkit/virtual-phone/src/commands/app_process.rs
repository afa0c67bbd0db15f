//! `env` (toybox) and `app_process`: the shell starting a Java class from a dex file, and the
//! one class this phone can run, mobile-mcp's helper (`mobile.mcp.Helper`, source in
//! `crates/android/helper/src`), acting on the clipboard service as AOSP's
//! `ClipboardService` would for the shell user.
//!
//! `app_process` follows AOSP `frameworks/base/cmds/app_process/app_main.cpp`: arguments
//! starting with `-` before the parent directory go to the VM (`-cp`/`-classpath` take the
//! next argument, the "spaced commands"), then the parent directory, then `--` options
//! (`--nice-name=`, `--application`), then the class name; the rest go to its `main`. The
//! class path comes from `-cp` or the `CLASSPATH` variable (AndroidRuntime). A class that is
//! not in the class path ends the VM with `ClassNotFoundException: Didn't find class … on
//! path: DexPathList[…]` (as captured on Android 8.0 in rayworks/DroidCast issue #1). A
//! class path file is a dex when it starts with the `dex\n` magic and its adler32 checksum
//! (header offset 8, over the bytes from 12) holds; the helper's class is found when the
//! dex's strings hold its descriptor `Lmobile/mcp/Helper;`.
//!
//! The helper's verbs are parsed the way its smali `main` parses them. The clipboard rules
//! for the shell (uid 2000, package `com.android.shell`), from AOSP
//! `services/core/java/com/android/server/clipboard/ClipboardService.java`:
//! - every call first passes the app op: `READ_CLIPBOARD` for `getPrimaryClip`,
//!   `WRITE_CLIPBOARD` for `setPrimaryClip`/`clearPrimaryClip`; a mode other than
//!   `allow`/default makes a read return null and a write do nothing, silently
//!   (`clipboardAccessAllowed`);
//! - from Android 10 a read needs the focus, the default IME or
//!   `READ_CLIPBOARD_IN_BACKGROUND` ("Shell can access the clipboard for testing
//!   purposes"), which the shell holds, so the shell reads in the background;
//! - `clearPrimaryClip` exists from Android 9 (API 28); the helper sets an empty clip before;
//! - Android 13+: SystemUI's `ClipboardListener` shows the clipboard overlay for a new clip
//!   unless its source is `com.android.shell` (or the emulator) and its description's extras
//!   hold `com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY`, which the helper sets.
//!
//! - Android 12+: a read by a package other than the clip's source shows the toast "Shell
//!   pasted from your clipboard" once per clip (`showAccessNotificationLocked`; recorded in
//!   `ClipService::toasts`, see `state::clipboard::note_read`); so does the focused app's
//!   read when `KEYCODE_PASTE` pastes the shell's clip (`commands/input.rs`).
//!
//! Not modelled: the locked device's null reads.

use base64::Engine as _;

use super::*;

/// The helper's class, as `app_process` is given it.
pub(crate) const HELPER_CLASS: &str = "mobile.mcp.Helper";
const HELPER_DESCRIPTOR: &[u8] = b"Lmobile/mcp/Helper;";
const SHELL_PACKAGE: &str = "com.android.shell";

/// toybox `env [NAME=VALUE...] [COMMAND [ARG...]]`: runs the command with the variables set.
pub(super) fn env(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut env = ctx.env.clone();
    let mut rest = args;
    while let Some((k, v)) = rest.first().and_then(|a| a.split_once('=')) {
        env.insert(k.to_string(), v.to_string());
        rest = &rest[1..];
    }
    if rest
        .first()
        .is_some_and(|p| p.rsplit('/').next() == Some("app_process"))
        && ctx.with_state(|s| s.profile.no_app_process)
    {
        // toybox `env` execs the program itself: `xexec` reports the failed exec.
        ctx.eprint("env: app_process: No such file or directory\n")?;
        return Ok(127);
    }
    if rest.is_empty() {
        let listing: String = env.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        ctx.print(&listing)?;
        return Ok(0);
    }
    let mut inner = Ctx {
        phone: ctx.phone,
        io: &mut *ctx.io,
        env: &mut env,
        drop_stdout: ctx.drop_stdout,
        drop_stderr: ctx.drop_stderr,
    };
    run(&mut inner, rest)
}

pub(super) fn app_process(ctx: &mut Ctx, args: &[String]) -> Res {
    if ctx.with_state(|s| s.profile.no_app_process) {
        ctx.eprint("/system/bin/sh: app_process: inaccessible or not found\n")?;
        return Ok(127);
    }
    let mut class_path = ctx.env.get("CLASSPATH").cloned();
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.starts_with('-')) {
        if a == "-cp" || a == "-classpath" {
            class_path = args.get(i + 1).cloned();
            i += 1;
        }
        i += 1;
    }
    // The parent directory (unused), then `--` options, then the class.
    i += 1;
    while args.get(i).is_some_and(|a| a.starts_with("--")) {
        i += 1;
    }
    let Some(class) = args.get(i) else {
        ctx.eprint("Error: no class name or --zygote supplied.\nUsage: app_process [java-options] cmd-dir start-class-name [options]\n")?;
        return Ok(1);
    };
    let main_args = &args[i + 1..];
    let path = class_path.unwrap_or_default();
    let found = class == HELPER_CLASS
        && !path.is_empty()
        && ctx.with_state(|s| {
            s.files
                .get(&normalize(&path))
                .is_some_and(|f| holds_helper(&f.data))
        });
    if !found {
        let listed = if path.is_empty() {
            "directory \".\"".to_string()
        } else {
            format!("dex file \"{path}\"")
        };
        ctx.eprint(&format!(
            "java.lang.ClassNotFoundException: Didn't find class \"{class}\" on path: DexPathList[[{listed}],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]\nAborted \n"
        ))?;
        return Ok(134);
    }
    let (line, status) = ctx.with_state(|s| helper_main(s, main_args));
    ctx.print(&format!("{line}\n"))?;
    Ok(status)
}

/// A dex (magic and adler32 checksum) whose strings hold the helper's descriptor.
fn holds_helper(data: &[u8]) -> bool {
    if data.len() < 0x70 || !data.starts_with(b"dex\n") {
        return false;
    }
    let stored = u32::from_le_bytes([data[8], data[9], data[10], data[11]]);
    adler32(&data[12..]) == stored
        && data
            .windows(HELPER_DESCRIPTOR.len())
            .any(|w| w == HELPER_DESCRIPTOR)
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// The helper's `main`: its one output line and exit status.
fn helper_main(s: &mut PhoneState, args: &[String]) -> (String, i32) {
    let fail = |e: String| (format!("error: {e}"), 1);
    let Some(verb) = args.first() else {
        return fail("java.lang.IllegalArgumentException: usage: mobile.mcp.Helper version|clip-get|clip-set BASE64|clip-clear".into());
    };
    match (verb.as_str(), args.len()) {
        ("version", _) => ("mobile-mcp-helper 1".into(), 0),
        ("clip-get", _) => (clip_get(s), 0),
        ("clip-clear", _) => {
            clip_clear(s);
            ("ok".into(), 0)
        }
        ("clip-set", 2) => {
            // android.util.Base64.decode(…, NO_WRAP): `IllegalArgumentException: bad base-64`.
            let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(&args[1]) else {
                return fail("java.lang.IllegalArgumentException: bad base-64".into());
            };
            // new String(bytes, "UTF-8") replaces malformed input.
            clip_set(s, &String::from_utf8_lossy(&bytes), true);
            ("ok".into(), 0)
        }
        _ => fail(format!(
            "java.lang.IllegalArgumentException: unknown verb or wrong arguments: {verb}"
        )),
    }
}

/// The app op's mode for the shell allows the call (`clipboardAccessAllowed`).
fn op_allowed(s: &PhoneState, op: &str) -> bool {
    s.location
        .app_ops
        .get(SHELL_PACKAGE)
        .and_then(|ops| ops.get(op))
        .is_none_or(|mode| mode == "allow" || mode == "default")
}

fn clip_get(s: &mut PhoneState) -> String {
    s.clip.calls.push("getPrimaryClip".into());
    // Android 10+: the shell holds READ_CLIPBOARD_IN_BACKGROUND, so no focus is needed.
    let present = s.clip.has_clip || !s.clipboard.is_empty();
    if !op_allowed(s, "READ_CLIPBOARD") || !present {
        return "clip-none".into();
    }
    let ime = s
        .setting("secure", "default_input_method")
        .map(str::to_string);
    crate::state::clipboard::note_read(
        &mut s.clip,
        s.profile.sdk,
        SHELL_PACKAGE,
        "Shell",
        ime.as_deref(),
    );
    format!(
        "clip:{}",
        base64::engine::general_purpose::STANDARD.encode(s.clipboard.as_bytes())
    )
}

fn clip_set(s: &mut PhoneState, text: &str, suppress_overlay: bool) {
    s.clip.calls.push("setPrimaryClip".into());
    if !op_allowed(s, "WRITE_CLIPBOARD") {
        return;
    }
    s.clipboard = text.to_string();
    s.clip.set_by(SHELL_PACKAGE);
    s.clip.suppress_overlay = suppress_overlay;
    if s.profile.sdk >= 33 && !suppress_overlay {
        s.clip.overlays.push(SHELL_PACKAGE.into());
    }
}

fn clip_clear(s: &mut PhoneState) {
    if s.profile.sdk < 28 {
        // No clearPrimaryClip before Android 9: the helper sets an empty clip.
        clip_set(s, "", true);
        return;
    }
    s.clip.calls.push("clearPrimaryClip".into());
    if !op_allowed(s, "WRITE_CLIPBOARD") {
        return;
    }
    s.clipboard.clear();
    s.clip.has_clip = false;
    s.clip.source = None;
    s.clip.suppress_overlay = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler32_matches_the_known_value() {
        // RFC 1950's example value for "Wikipedia".
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn a_damaged_or_foreign_dex_does_not_hold_the_helper() {
        let mut dex = vec![0u8; 0x80];
        dex[..4].copy_from_slice(b"dex\n");
        dex[0x40..0x40 + HELPER_DESCRIPTOR.len()].copy_from_slice(HELPER_DESCRIPTOR);
        let sum = adler32(&dex[12..]).to_le_bytes();
        dex[8..12].copy_from_slice(&sum);
        assert!(holds_helper(&dex));
        let mut damaged = dex.clone();
        damaged[0x50] ^= 1;
        assert!(!holds_helper(&damaged));
        assert!(!holds_helper(&dex[..0x60]));
    }
}
