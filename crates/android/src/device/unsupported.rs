//! What Android has no shell command for: the clipboard and a mock location.

use mobile_device::{DeviceError, Location, NextStep, Platform, Result};

use super::AndroidDevice;

impl AndroidDevice {
    pub(super) async fn clipboard(&self) -> Result<String> {
        Err(DeviceError::unsupported_with_hint(
            "reading the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard (apps read it only while in front); paste the text into a field to read it",
        )
        .then(NextStep::ListElements))
    }

    pub(super) async fn set_clipboard(&self, _text: &str) -> Result<()> {
        Err(DeviceError::unsupported_with_hint(
            "setting the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard",
        )
        .then(NextStep::TypeText))
    }

    pub(super) async fn set_location(&self, _location: Option<Location>) -> Result<()> {
        Err(DeviceError::unsupported_with_hint(
            "setting the location",
            Platform::Android,
            "Android has no shell command for a mock location: on an emulator use its console (`adb emu geo fix LONGITUDE LATITUDE`); on a phone select a mock-location app in Developer options",
        ))
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
