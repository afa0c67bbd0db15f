//! The one error type every backend returns; the server turns each variant into a clear
//! `isError` result, so messages here are written for the model that reads them.

use std::time::Duration;

use crate::types::Platform;

/// What went wrong with a device operation.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum DeviceError {
    /// The backend cannot do this on this platform (or this device).
    #[error("{what} is not supported on {platform}{}", hint_suffix(.hint))]
    Unsupported {
        what: String,
        platform: Platform,
        hint: Option<String>,
    },
    /// A device, app, element, file or crash that does not exist.
    #[error("{what} was not found{}", hint_suffix(.hint))]
    NotFound { what: String, hint: Option<String> },
    /// Input that passed the schema but that the device cannot accept.
    #[error("{0}")]
    InvalidInput(String),
    /// The device did not answer within the deadline.
    #[error("{what} timed out after {}", humanize(*.after))]
    Timeout { what: String, after: Duration },
    /// The call was cancelled by the client.
    #[error("{what} was cancelled")]
    Cancelled { what: String },
    /// The device, the adb server or a tool failed.
    #[error("{message}{}", hint_suffix(.hint))]
    Backend {
        message: String,
        hint: Option<String>,
    },
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
    pub fn unsupported(what: impl Into<String>, platform: Platform) -> Self {
        DeviceError::Unsupported {
            what: what.into(),
            platform,
            hint: None,
        }
    }

    pub fn unsupported_with_hint(
        what: impl Into<String>,
        platform: Platform,
        hint: impl Into<String>,
    ) -> Self {
        DeviceError::Unsupported {
            what: what.into(),
            platform,
            hint: Some(hint.into()),
        }
    }

    pub fn not_found(what: impl Into<String>, hint: impl Into<String>) -> Self {
        DeviceError::NotFound {
            what: what.into(),
            hint: Some(hint.into()),
        }
    }

    pub fn backend(message: impl Into<String>) -> Self {
        DeviceError::Backend {
            message: message.into(),
            hint: None,
        }
    }

    pub fn backend_with_hint(message: impl Into<String>, hint: impl Into<String>) -> Self {
        DeviceError::Backend {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        DeviceError::InvalidInput(message.into())
    }
}

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
        };
        assert_eq!(e.to_string(), "crash x was not found");
    }
}
