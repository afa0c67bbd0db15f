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
}

impl Rule {
    /// Whether the command whose output is `out` failed.
    pub(crate) fn failed(self, out: &str) -> bool {
        match self {
            Rule::FailsOn(markers) => markers.iter().any(|m| out.contains(m)),
            Rule::SucceedsWith(word) => !out.contains(word),
            Rule::StartsWith(word) => !out.trim_start().starts_with(word),
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
pub(crate) const INPUT: Rule = Rule::FailsOn(&[
    "Error",
    "Exception",
    "not found",
    "Usage:",
    "inaccessible or not found",
]);

/// `am start` (an activity, or a URL's `VIEW` intent).
pub(crate) const AM_START: Rule = Rule::FailsOn(&["Error"]);

/// `am force-stop PKG`.
pub(crate) const AM_FORCE_STOP: Rule = Rule::FailsOn(&["Error", "Exception"]);

/// `am broadcast` (text to the ADBKeyboard IME).
pub(crate) const AM_BROADCAST: Rule = Rule::FailsOn(&["Error", "Exception"]);

/// `settings put`.
pub(crate) const SETTINGS_PUT: Rule = Rule::FailsOn(&["Exception", "Error"]);

/// `cmd package query-activities`: fails only where the command does not exist.
pub(crate) const CMD_PACKAGE_QUERY: Rule =
    Rule::FailsOn(&["Unknown command", "Can't find service"]);

/// `cmd locale set-app-locales`.
pub(crate) const CMD_LOCALE: Rule = Rule::FailsOn(&["Unknown command", "Exception", "Error"]);

/// `monkey -p PKG -c LAUNCHER 1`.
pub(crate) const MONKEY_LAUNCH: Rule = Rule::FailsOn(&["No activities found", "aborted", "Error"]);

/// `pm uninstall PKG`.
pub(crate) const PM_UNINSTALL: Rule = Rule::SucceedsWith("Success");

/// Why a failed `pm uninstall` failed: the package is not installed, or is a system app
/// (`failed` is true for those).
pub(crate) const PM_UNINSTALL_NOT_THERE: Rule =
    Rule::FailsOn(&["DELETE_FAILED_INTERNAL_ERROR", "Unknown package"]);

/// `cmd package install -S SIZE` (the streamed install's reply).
pub(crate) const PM_INSTALL: Rule = Rule::StartsWith("Success");

/// `pm path PKG`: prints `package:PATH` for an installed package.
pub(crate) const PM_PATH: Rule = Rule::SucceedsWith("package:");

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
        assert_eq!(
            AM_START.check("Error: Activity not started\na\nb\nc"),
            Err("Error: Activity not started / a / b".to_string())
        );
    }
}
