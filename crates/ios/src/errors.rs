//! Turning a failed `simctl`/`idb` call into a [`DeviceError`] a model can act on.
//!
//! simctl's exit code is the NSError code modulo 256 (405 → 149, 404 → 148, …), which
//! says little about the domain, so the stderr sentence decides; the code is a tiebreak.

use mobile_device::{DeviceError, NextStep, Platform};

use crate::process::Output;

/// What a simctl failure means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SimctlFailure {
    /// `Unable to lookup in current state: Shutdown` / spawn on a shut-down device.
    NotBooted,
    /// `Invalid device: <udid>`.
    InvalidDevice,
    /// `No devices are booted.` (the `booted` alias).
    NoneBooted,
    /// launch: FBSOpenApplicationServiceErrorDomain code 4.
    AppNotInstalled,
    /// terminate: `found nothing to terminate` (harmless).
    NotRunning,
    /// openurl: LSApplicationWorkspaceErrorDomain 115.
    NoUrlHandler,
    /// `Unable to boot device in current state: Booted` (harmless).
    AlreadyBooted,
    /// install: `lstat of … failed` or a missing file.
    NoSuchFile,
    /// Anything else.
    Other,
}

/// Classifies a simctl failure from its exit code and stderr.
pub(crate) fn classify_simctl(code: Option<i32>, stderr: &str) -> SimctlFailure {
    let has = |s: &str| stderr.contains(s);
    if has("Unable to lookup in current state: Shutdown")
        || has("device is not booted")
        || has("current state: Shutdown") && !has("Unable to shutdown")
    {
        SimctlFailure::NotBooted
    } else if has("Invalid device:") {
        SimctlFailure::InvalidDevice
    } else if has("No devices are booted") {
        SimctlFailure::NoneBooted
    } else if has("found nothing to terminate") {
        SimctlFailure::NotRunning
    } else if has("Unable to boot device in current state: Booted") {
        SimctlFailure::AlreadyBooted
    } else if has("FBSOpenApplicationServiceErrorDomain") && (code == Some(4) || has("code=4")) {
        SimctlFailure::AppNotInstalled
    } else if has("LSApplicationWorkspaceErrorDomain") && (code == Some(115) || has("code=115")) {
        SimctlFailure::NoUrlHandler
    } else if has("No such file or directory") {
        SimctlFailure::NoSuchFile
    } else {
        SimctlFailure::Other
    }
}

/// What the failing call was about, for the message.
pub(crate) struct Context<'a> {
    pub udid: &'a str,
    /// `launch`, `install`, …
    pub action: &'a str,
    /// The bundle id, URL or path the call was about.
    pub subject: Option<&'a str>,
}

pub(crate) fn boot_hint(udid: &str) -> String {
    format!("Boot it with `xcrun simctl boot {udid}` (or open it in Simulator.app), then try again")
}

/// Maps a failed simctl call to a clear error.
pub(crate) fn simctl_error(ctx: &Context<'_>, out: &Output) -> DeviceError {
    let subject = ctx.subject.unwrap_or("");
    match classify_simctl(out.code, &out.stderr) {
        SimctlFailure::NotBooted => DeviceError::backend_with_hint(
            format!("Simulator {} is not booted", ctx.udid),
            boot_hint(ctx.udid),
        ),
        SimctlFailure::InvalidDevice => DeviceError::not_found(
            format!("Simulator {}", ctx.udid),
            "It may have been deleted",
        )
        .then(NextStep::ListDevices),
        SimctlFailure::NoneBooted => DeviceError::backend_with_hint(
            "No simulator is booted",
            "Boot one with `xcrun simctl boot <udid>`",
        ),
        SimctlFailure::AppNotInstalled => DeviceError::not_found(
            format!("App {subject} on simulator {}", ctx.udid),
            "It is not installed (or could not be opened)",
        )
        .then(NextStep::ListApps),
        SimctlFailure::NoUrlHandler => DeviceError::backend_with_hint(
            format!("No app on simulator {} can open {subject}", ctx.udid),
            "Install an app that handles this URL scheme, or use an http(s) URL",
        ),
        SimctlFailure::NoSuchFile => DeviceError::not_found(
            subject.to_string(),
            format!("simctl {} said: {}", ctx.action, last_line(&out.stderr)),
        ),
        SimctlFailure::NotRunning | SimctlFailure::AlreadyBooted | SimctlFailure::Other => {
            generic("xcrun simctl", ctx.action, out)
        }
    }
}

fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("")
}

/// `<tool> <action> failed (exit N): <stderr>`.
pub(crate) fn generic(tool: &str, action: &str, out: &Output) -> DeviceError {
    let code = out
        .code
        .map(|c| format!("exit {c}"))
        .unwrap_or_else(|| "killed by a signal".to_string());
    // A Python traceback (idb's `logger.exception("Exception thrown in main")`) ends
    // with the exception, the one line the user needs; the frames before it are
    // noise that would push it past any length cap.
    if let Some(i) = out.stderr.find("Traceback (most recent call last):") {
        let exception = last_line(&out.stderr[i..]);
        return DeviceError::backend(format!(
            "{tool} {action} failed ({code}): {exception} (the last line of its Python traceback)"
        ));
    }
    let detail: String = out
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let detail = if detail.chars().count() > 600 {
        let cut: String = detail.chars().take(600).collect();
        format!("{cut}…")
    } else {
        detail
    };
    if detail.is_empty() {
        DeviceError::backend(format!("{tool} {action} failed ({code})"))
    } else {
        DeviceError::backend(format!("{tool} {action} failed ({code}): {detail}"))
    }
}

/// Maps a failed idb call: a companion that is not running gets its own hint.
pub(crate) fn idb_error(udid: &str, action: &str, out: &Output) -> DeviceError {
    if out.stderr.contains("Failed to connect to companion") {
        return DeviceError::backend_with_hint(
            format!("idb could not reach its companion for simulator {udid}"),
            format!(
                "Start it with `idb_companion --udid {udid}` (or `idb connect {udid}`), and check the simulator is booted"
            ),
        );
    }
    if out.stderr.contains("is not booted") || out.stderr.contains("Shutdown") {
        return DeviceError::backend_with_hint(
            format!("Simulator {udid} is not booted"),
            boot_hint(udid),
        );
    }
    generic("idb", action, out)
}

/// The error for a tool that needs idb when none was found.
pub(crate) fn idb_missing(what: &str) -> DeviceError {
    DeviceError::unsupported_with_hint(
        what,
        Platform::Ios,
        format!(
            "it needs idb, which was not found (looked at {} and PATH). Install it with `brew install facebook/fb/idb-companion` and `pip install fb-idb`, or point {} at the idb client",
            crate::config::IDB_ENV,
            crate::config::IDB_ENV
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The captures in `fixtures/ios/simctl-errors.txt`: (case, exit code, stderr).
    fn cases() -> Vec<(String, i32, String)> {
        let p = format!(
            "{}/../../fixtures/ios/simctl-errors.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(p).unwrap();
        let mut out: Vec<(String, i32, String)> = Vec::new();
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("=== ") {
                let (name, code) = h.split_once(" exit=").unwrap();
                out.push((name.to_string(), code.parse().unwrap(), String::new()));
            } else if let Some(last) = out.last_mut() {
                last.2.push_str(line);
                last.2.push('\n');
            }
        }
        out
    }

    #[test]
    fn captured_stderr_is_classified() {
        let expect = [
            ("not-booted", SimctlFailure::NotBooted),
            ("invalid-device", SimctlFailure::InvalidDevice),
            ("no-devices-booted", SimctlFailure::NoneBooted),
            ("launch-not-installed", SimctlFailure::AppNotInstalled),
            ("terminate-not-running", SimctlFailure::NotRunning),
            ("install-bad-path", SimctlFailure::NoSuchFile),
            ("openurl-no-handler", SimctlFailure::NoUrlHandler),
            ("spawn-not-booted", SimctlFailure::NotBooted),
            ("unknown-subcommand", SimctlFailure::Other),
        ];
        let cases = cases();
        assert_eq!(cases.len(), expect.len());
        for (name, want) in expect {
            let (_, code, stderr) = cases.iter().find(|c| c.0 == name).unwrap();
            assert_eq!(classify_simctl(Some(*code), stderr), want, "{name}");
        }
    }

    #[test]
    fn a_traceback_is_reported_by_its_last_line() {
        let mut stderr = String::from(
            "2026-09-05 10:00:00,123 [ERROR] - root - Exception thrown in main\nTraceback (most recent call last):\n",
        );
        for n in 0..12 {
            stderr.push_str(&format!(
                "  File \"/opt/homebrew/lib/python3.11/site-packages/idb/frame{n}.py\", line {n}, in run\n    await something_long(args=args)\n"
            ));
        }
        stderr.push_str("Exception: No keycode found for é\n");
        let out = Output {
            code: Some(1),
            stdout: vec![],
            stderr,
        };
        let e = idb_error("U1", "typing text", &out).to_string();
        assert!(
            e.contains("idb typing text failed (exit 1): Exception: No keycode found for é"),
            "{e}"
        );
        assert!(!e.contains("frame3.py"), "{e}");
    }

    #[test]
    fn messages_name_the_fix() {
        let out = Output {
            code: Some(149),
            stdout: vec![],
            stderr: "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to lookup in current state: Shutdown\n".into(),
        };
        let ctx = Context {
            udid: "U1",
            action: "launch",
            subject: Some("com.a.b"),
        };
        let e = simctl_error(&ctx, &out).to_string();
        assert!(e.contains("Simulator U1 is not booted"), "{e}");
        assert!(e.contains("xcrun simctl boot U1"), "{e}");
        let e = idb_missing("tapping").to_string();
        assert!(e.contains("brew install facebook/fb/idb-companion"), "{e}");
        assert!(e.contains("pip install fb-idb"), "{e}");
    }
}
