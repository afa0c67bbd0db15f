//! The one error type every backend returns; the server turns each variant into a clear
//! `isError` result, so messages here are written for the model that reads them.

use std::time::Duration;

use crate::types::Platform;

/// What went wrong with a device operation.
///
/// Messages are written for the model that reads them, but never name an MCP tool: a
/// backend that wants the model to do something next says so with a [`NextStep`], which
/// the server words with its own tool names ([`DeviceError::message_with`]).
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum DeviceError {
    /// The backend cannot do this on this platform (or this device).
    #[error("{}", self.message_with(&NextStep::generic))]
    Unsupported {
        /// What was asked for.
        what: String,
        /// The platform that lacks it.
        platform: Platform,
        /// What to do instead, if anything.
        hint: Option<String>,
        /// The tool-neutral next step, worded by the server.
        next: Option<NextStep>,
    },
    /// A device, app, element, file or crash that does not exist.
    #[error("{}", self.message_with(&NextStep::generic))]
    NotFound {
        /// What was looked for, e.g. `App "com.x"`.
        what: String,
        /// Where to look, if anything.
        hint: Option<String>,
        /// The tool-neutral next step, worded by the server.
        next: Option<NextStep>,
    },
    /// Input that passed the schema but that the device cannot accept.
    #[error("{0}")]
    InvalidInput(String),
    /// The device did not answer within the deadline.
    #[error("{what} timed out after {}", humanize(*.after))]
    Timeout {
        /// What was being done.
        what: String,
        /// The deadline that passed.
        after: Duration,
    },
    /// The call was cancelled by the client.
    #[error("{what} was cancelled")]
    Cancelled {
        /// What was being done.
        what: String,
    },
    /// The device, the adb server or a tool failed.
    #[error("{}", self.message_with(&NextStep::generic))]
    Backend {
        /// What failed.
        message: String,
        /// What to do about it, if anything.
        hint: Option<String>,
        /// The tool-neutral next step, worded by the server.
        next: Option<NextStep>,
    },
}

/// What the model can do next to get what it needs, named by purpose; the server turns
/// it into a sentence with the tool to call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// List the devices (one went away, or the id is unknown).
    ListDevices,
    /// List the installed apps (an app id is unknown).
    ListApps,
    /// List the crash reports (a crash id is unknown).
    ListCrashes,
    /// Read the screen's elements.
    ListElements,
    /// Type the text into a field instead.
    TypeText,
}

impl NextStep {
    /// The step in words that name no tool (the `Display` of an error).
    pub fn generic(self) -> String {
        match self {
            NextStep::ListDevices => "list the devices to see which are connected",
            NextStep::ListApps => "list the apps to see which are installed",
            NextStep::ListCrashes => "list the crash reports to see their ids",
            NextStep::ListElements => "read the screen's elements",
            NextStep::TypeText => "type the text into a field instead",
        }
        .to_string()
    }
}

fn hint_suffix(hint: &Option<String>) -> String {
    match hint {
        Some(h) if !h.is_empty() => format!(". {h}"),
        _ => String::new(),
    }
}

fn humanize(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

impl DeviceError {
    /// The message, with `step` wording the next step if there is one (the server passes
    /// a wording that names its tools; `Display` uses [`NextStep::generic`]).
    pub fn message_with(&self, step: &dyn Fn(NextStep) -> String) -> String {
        let (head, hint, next) = match self {
            DeviceError::Unsupported {
                what,
                platform,
                hint,
                next,
            } => (format!("{what} is not supported on {platform}"), hint, next),
            DeviceError::NotFound { what, hint, next } => {
                (format!("{what} was not found"), hint, next)
            }
            DeviceError::Backend {
                message,
                hint,
                next,
            } => (message.clone(), hint, next),
            other => return other.to_string(),
        };
        let mut out = head + &hint_suffix(hint);
        if let Some(n) = next {
            let step = step(*n);
            if hint.as_deref().is_some_and(|h| !h.is_empty()) {
                out.push_str("; ");
                out.push_str(&step);
            } else {
                // A new sentence starts with a capital.
                out.push_str(". ");
                let mut chars = step.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            }
        }
        out
    }

    /// The same error with a next step for the model.
    pub fn then(mut self, step: NextStep) -> Self {
        match &mut self {
            DeviceError::Unsupported { next, .. }
            | DeviceError::NotFound { next, .. }
            | DeviceError::Backend { next, .. } => *next = Some(step),
            _ => {}
        }
        self
    }

    /// [`DeviceError::Unsupported`] without a hint.
    pub fn unsupported(what: impl Into<String>, platform: Platform) -> Self {
        DeviceError::Unsupported {
            what: what.into(),
            platform,
            hint: None,
            next: None,
        }
    }

    /// [`DeviceError::Unsupported`] with a hint.
    pub fn unsupported_with_hint(
        what: impl Into<String>,
        platform: Platform,
        hint: impl Into<String>,
    ) -> Self {
        DeviceError::Unsupported {
            what: what.into(),
            platform,
            hint: Some(hint.into()),
            next: None,
        }
    }

    /// [`DeviceError::NotFound`] with a hint.
    pub fn not_found(what: impl Into<String>, hint: impl Into<String>) -> Self {
        DeviceError::NotFound {
            what: what.into(),
            hint: Some(hint.into()),
            next: None,
        }
    }

    /// [`DeviceError::Backend`] without a hint.
    pub fn backend(message: impl Into<String>) -> Self {
        DeviceError::Backend {
            message: message.into(),
            hint: None,
            next: None,
        }
    }

    /// [`DeviceError::Backend`] with a hint.
    pub fn backend_with_hint(message: impl Into<String>, hint: impl Into<String>) -> Self {
        DeviceError::Backend {
            message: message.into(),
            hint: Some(hint.into()),
            next: None,
        }
    }

    /// [`DeviceError::InvalidInput`].
    pub fn invalid(message: impl Into<String>) -> Self {
        DeviceError::InvalidInput(message.into())
    }
}

/// A device operation's result.
pub type Result<T, E = DeviceError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_sentences() {
        let e = DeviceError::unsupported_with_hint(
            "set_location",
            Platform::Ios,
            "use the Simulator's Features menu",
        );
        assert_eq!(
            e.to_string(),
            "set_location is not supported on iOS. use the Simulator's Features menu"
        );
        let e = DeviceError::Timeout {
            what: "screenshot".into(),
            after: Duration::from_secs(30),
        };
        assert_eq!(e.to_string(), "screenshot timed out after 30.0 s");
        let e = DeviceError::NotFound {
            what: "crash x".into(),
            hint: None,
            next: None,
        };
        assert_eq!(e.to_string(), "crash x was not found");
        let e =
            DeviceError::not_found("app x", "It may have been removed").then(NextStep::ListApps);
        assert_eq!(
            e.to_string(),
            "app x was not found. It may have been removed; list the apps to see which are installed"
        );
        let named = e.message_with(&|_| "call list_apps".into());
        assert_eq!(
            named,
            "app x was not found. It may have been removed; call list_apps"
        );
    }
}
