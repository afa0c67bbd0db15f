//! Pure parsers from what `simctl` and `idb` print to this crate's types. No I/O here:
//! each parser is tested against captures in `fixtures/ios/`.

pub mod describe_all;
pub mod devices;
pub mod listapps;
pub mod logs;

pub use crate::screen::png_dimensions;
pub use describe_all::{AxNode, parse_describe_all};
pub use devices::{SimDevice, parse_list_devices, runtime_version};
pub use listapps::{AppKind, InstalledApp, parse_listapps};
pub use logs::{parse_log_line, parse_log_ndjson};

/// Output that did not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not parse {what}: {detail}")]
pub struct ParseError {
    /// What was being parsed (`simctl list devices`, …).
    pub what: &'static str,
    /// What was wrong with it.
    pub detail: String,
}

impl ParseError {
    pub(crate) fn new(what: &'static str, detail: impl ToString) -> Self {
        ParseError {
            what,
            detail: detail.to_string(),
        }
    }
}

/// Parses simctl's `launch` answer, `com.apple.mobilesafari: 12345`, into the pid.
/// The bundle id may itself contain `: `, so the pid is taken after the last one.
pub fn parse_launch_pid(stdout: &str) -> Option<u32> {
    let line = stdout.lines().rev().find(|l| !l.trim().is_empty())?;
    let (_, pid) = line.trim_end().rsplit_once(": ")?;
    pid.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_pid_lines() {
        assert_eq!(parse_launch_pid("com.pivi.dictus: 84714\n"), Some(84714));
        assert_eq!(
            parse_launch_pid("com.kimlundqvist.mermaidcanvas: 12784"),
            Some(12784)
        );
        assert_eq!(parse_launch_pid(""), None);
        assert_eq!(parse_launch_pid("garbage\n"), None);
    }
}
