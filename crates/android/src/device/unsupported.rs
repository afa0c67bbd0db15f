//! What Android has no shell command for: the clipboard.

use mobile_device::{DeviceError, NextStep, Platform, Result};

use super::AndroidDevice;

impl AndroidDevice {
    pub(super) async fn clipboard(&self) -> Result<String> {
        Err(DeviceError::unsupported_with_hint(
            "reading the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard (`cmd clipboard` answers `No shell command implementation.`: AOSP's ClipboardService implements none, and from Android 10 only the app in front or the keyboard may read it); paste the text into a field to read it",
        )
        .then(NextStep::ListElements))
    }

    pub(super) async fn set_clipboard(&self, _text: &str) -> Result<()> {
        Err(DeviceError::unsupported_with_hint(
            "setting the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard (`cmd clipboard` answers `No shell command implementation.`: AOSP's ClipboardService implements none)",
        )
        .then(NextStep::TypeText))
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::adb::Link;

    #[tokio::test]
    async fn clipboard_errors_name_a_next_step_not_a_tool() {
        let link = Link {
            addr: "127.0.0.1:9".parse().unwrap(),
            serial: "s".into(),
        };
        let d = AndroidDevice::new("s".into(), link);
        let e = d.clipboard().await.unwrap_err();
        assert!(
            matches!(
                e,
                DeviceError::Unsupported {
                    next: Some(NextStep::ListElements),
                    ..
                }
            ),
            "{e:?}"
        );
        let e = d.set_clipboard("x").await.unwrap_err();
        assert!(
            matches!(
                e,
                DeviceError::Unsupported {
                    next: Some(NextStep::TypeText),
                    ..
                }
            ),
            "{e:?}"
        );
    }
}
