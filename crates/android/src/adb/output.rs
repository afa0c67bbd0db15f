//! The one place that reads an Android command's output for failure.
//!
//! `am`, `pm`, `cmd`, `monkey`, `input` and `settings` exit through a v1 shell whose exit
//! status is never seen (see [`super::shell`]), so whether they worked is read from what
//! they print. Each command has its [`Rule`] here, named after it; a call site picks the
//! rule and words the error itself. The rules are exactly what each call site accepted
//! before they were gathered here: some commands print nothing on success and fail on a
//! marker word, others must print a success word.

/// How to tell from a command's output (stdout and stderr together) whether it worked.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rule {
    /// It worked unless the output contains one of these.
    FailsOn(&'static [&'static str]),
    /// It worked only if the output contains this.
    SucceedsWith(&'static str),
    /// It worked only if the output, leading whitespace aside, starts with this.
    StartsWith(&'static str),
    /// It worked unless the output contains one of these or one of [`FAILURE_TEXTS`]: the
    /// rule of every `am`, `cmd`, `pm`, `monkey`, `input` and `settings` call.
    Shell(&'static [&'static str]),
}

/// What Android's shell commands print when they fail, each with where it comes from
/// (AOSP paths; `testkit/virtual-phone/fixtures/SOURCES.md` has the details). Exit
/// statuses are not seen through a v1 shell, so these texts are the only sign; none of
/// them appears in a successful command's output.
pub(crate) const FAILURE_TEXTS: &[(&str, &str)] = &[
    // frameworks/base/services/core/java/com/android/server/am/ActivityManagerShellCommand.java
    (
        "Error: Activity not started",
        "ActivityManagerShellCommand.runStartActivity",
    ),
    (
        "Error type ",
        "ActivityManagerShellCommand.runStartActivity (START_CLASS_NOT_FOUND…)",
    ),
    (
        "does not exist.",
        "ActivityManagerShellCommand: Activity class {…} does not exist.",
    ),
    (
        "Security exception:",
        "ActivityManagerShellCommand: SecurityException caught",
    ),
    (
        "Error: Not allowed to start background user activity",
        "ActivityManagerShellCommand",
    ),
    (
        "Error: Unknown option:",
        "ShellCommand option parsing (am, pm, cmd …)",
    ),
    // frameworks/base/core/java/android/os/BasicShellCommandHandler.java (ShellCommand before 11)
    (
        "Exception occurred while executing",
        "BasicShellCommandHandler.exec",
    ),
    ("java.lang.", "an uncaught exception's stack trace"),
    // frameworks/native/cmds/cmd/cmd.cpp
    (
        "Can't find service:",
        "cmd.cpp: the service does not exist on this release",
    ),
    (
        "Failure calling service",
        "cmd.cpp: the service's shell command threw",
    ),
    (
        "No shell command implementation.",
        "Binder.onShellCommand default",
    ),
    // frameworks/base/services/core/java/com/android/server/pm/PackageManagerShellCommand.java
    (
        "Failure [",
        "PackageManagerShellCommand: install/uninstall status",
    ),
    (
        "Unknown package:",
        "PackageManagerShellCommand / am: the package is not installed",
    ),
    (
        "Error: package name not specified",
        "PackageManagerShellCommand",
    ),
    (
        "Error: Could not access the Package Manager",
        "pm before Android 7",
    ),
    // development/cmds/monkey/src/com/android/commands/monkey/Monkey.java
    (
        "** No activities found to run, monkey aborted.",
        "Monkey.run: no matching activity",
    ),
    (
        "** SYS_KEYS has no physical keys",
        "MonkeySourceRandom.validate: no hardware keys",
    ),
    ("** Error:", "Monkey argument and script errors"),
    ("** Monkey aborted", "Monkey.run"),
    // the device shell (mksh) for a missing program
    (
        "inaccessible or not found",
        "mksh: the program does not exist",
    ),
];

/// Whether `out` holds one of [`FAILURE_TEXTS`].
pub(crate) fn failure_text(out: &str) -> Option<&'static str> {
    FAILURE_TEXTS
        .iter()
        .find(|(t, _)| out.contains(t))
        .map(|(t, _)| *t)
}

impl Rule {
    /// Whether the command whose output is `out` failed.
    pub(crate) fn failed(self, out: &str) -> bool {
        match self {
            Rule::FailsOn(markers) => markers.iter().any(|m| out.contains(m)),
            Rule::SucceedsWith(word) => !out.contains(word),
            Rule::StartsWith(word) => !out.trim_start().starts_with(word),
            Rule::Shell(markers) => {
                markers.iter().any(|m| out.contains(m)) || failure_text(out).is_some()
            }
        }
    }

    /// `Err` with the first lines of `out` (for the error message) when the command failed.
    pub(crate) fn check(self, out: &str) -> Result<(), String> {
        if self.failed(out) {
            Err(first_lines(out))
        } else {
            Ok(())
        }
    }
}

/// `input tap|swipe|keyevent|text` prints nothing on success.
pub(crate) const INPUT: Rule = Rule::Shell(&[
    "Error",
    "Exception",
    "not found",
    "Usage:",
    "inaccessible or not found",
]);

/// `am start` (an activity, or a URL's `VIEW` intent).
pub(crate) const AM_START: Rule = Rule::Shell(&["Error"]);

/// `am force-stop PKG`.
pub(crate) const AM_FORCE_STOP: Rule = Rule::Shell(&["Error", "Exception"]);

/// `settings put`.
pub(crate) const SETTINGS_PUT: Rule = Rule::Shell(&["Exception", "Error"]);

/// `cmd package query-activities`: fails only where the command does not exist.
pub(crate) const CMD_PACKAGE_QUERY: Rule =
    Rule::FailsOn(&["Unknown command", "Can't find service"]);

/// `cmd locale set-app-locales`.
pub(crate) const CMD_LOCALE: Rule = Rule::Shell(&["Unknown command", "Exception", "Error"]);

/// `appops set com.android.shell android:mock_location allow` and the
/// `cmd location providers …` commands: all print nothing on success; the location
/// service's shell answers `Unknown command: providers` on Android 11
/// (`BasicShellCommandHandler.handleDefaultCommands`).
pub(crate) const CMD_LOCATION: Rule = Rule::Shell(&["Unknown command", "Exception", "Error"]);

/// `monkey -p PKG -c LAUNCHER 1`.
pub(crate) const MONKEY_LAUNCH: Rule = Rule::Shell(&["No activities found", "aborted", "Error"]);

/// `monkey -f SCRIPT 1`: prints `Events injected: N` when the script ran.
pub(crate) const MONKEY_SCRIPT: Rule = Rule::Shell(&["aborted"]);

/// `pm uninstall PKG`.
pub(crate) const PM_UNINSTALL: Rule = Rule::SucceedsWith("Success");

/// Why a failed `pm uninstall` failed: the package is not installed, or is a system app
/// (`failed` is true for those).
pub(crate) const PM_UNINSTALL_NOT_THERE: Rule =
    Rule::FailsOn(&["DELETE_FAILED_INTERNAL_ERROR", "Unknown package"]);

/// `cmd package install -S SIZE` (the streamed install's reply).
pub(crate) const PM_INSTALL: Rule = Rule::StartsWith("Success");

/// A failed pull (the sync `RECV`): the device file is missing when the error says so.
pub(crate) const PULL_NO_FILE: Rule = Rule::FailsOn(&["No such file", "does not exist", "FAIL"]);

/// The first three lines of a command's output, joined with ` / `, for an error message.
pub(crate) fn first_lines(t: &str) -> String {
    t.lines().take(3).collect::<Vec<_>>().join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_rule() {
        assert!(!INPUT.failed(""));
        assert!(INPUT.failed("Error: Unknown command: tapp"));
        assert!(!PM_UNINSTALL.failed("Success\n"));
        assert!(PM_UNINSTALL.failed("Failure [DELETE_FAILED_INTERNAL_ERROR]"));
        assert!(!PM_INSTALL.failed("  Success\n"));
        assert!(PM_INSTALL.failed("Failure [INSTALL_FAILED_INVALID_APK]"));
        // Failures that carry no "Error" word.
        assert!(CMD_LOCALE.failed("cmd: Can't find service: locale\n"));
        assert!(MONKEY_LAUNCH.failed("** SYS_KEYS has no physical keys but with factor 2.0%.\n"));
        assert!(AM_START.failed("Security exception: Permission Denial: starting Intent"));
        assert!(AM_FORCE_STOP.failed("Unknown package: com.x\n"));
        assert!(CMD_LOCATION.failed("Unknown command: providers\n"));
        assert!(CMD_LOCATION.failed("No shell command implementation.\n"));
        assert!(CMD_LOCATION.failed("Error: Unknown operation string: android:mock_location\n"));
        assert!(!CMD_LOCATION.failed(""));
        assert!(!AM_START.failed("Starting: Intent { cmp=com.a/.Main }\n"));
        assert!(!MONKEY_LAUNCH.failed("Events injected: 1\n"));
        assert_eq!(
            AM_START.check("Error: Activity not started\na\nb\nc"),
            Err("Error: Activity not started / a / b".to_string())
        );
    }
}
