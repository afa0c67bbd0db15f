//! A mock location through the location service's test providers (Android 12 and later).
//!
//! `cmd location providers …` (AOSP `LocationShellCommand`) exists from Android 12. Each
//! of its provider commands first notes the `MOCK_LOCATION` app op for the caller, the
//! shell, and returns without a word when the op is not allowed
//! (`LocationManagerService.addTestProvider` / `setTestProviderLocation`): the op is
//! therefore allowed first, or the commands would "succeed" and change nothing. Before
//! Android 12 the shell has no way to a test provider (Android 11's `cmd location` knows
//! only `set-location-enabled`; before that the service has no shell command at all), so
//! the call says what to use instead without touching the device.

use mobile_device::{DeviceError, Location, Platform, Result};

use super::AndroidDevice;
use crate::adb::output;
use crate::quote::{ShellLine, command};

/// The provider that is mocked: what apps asking `LocationManager` for GPS fixes read.
const PROVIDER: &str = "gps";
/// The first SDK level with `cmd location providers` (Android 12).
const FIRST_SDK: u32 = 31;

/// The device commands that set (or, with `None`, clear) the mock location, in order.
pub(crate) fn location_commands(location: Option<Location>) -> Result<Vec<ShellLine>> {
    let mut cmds = vec![command(&[
        "appops",
        "set",
        "com.android.shell",
        "android:mock_location",
        "allow",
    ])?];
    let providers = |args: &[&str]| {
        let mut argv = vec!["cmd", "location", "providers"];
        argv.extend_from_slice(args);
        command(&argv)
    };
    match location {
        Some(l) => {
            let at = format!("{},{}", l.latitude.get(), l.longitude.get());
            cmds.push(providers(&["add-test-provider", PROVIDER])?);
            cmds.push(providers(&["set-test-provider-enabled", PROVIDER, "true"])?);
            cmds.push(providers(&[
                "set-test-provider-location",
                PROVIDER,
                "--location",
                &at,
            ])?);
        }
        None => cmds.push(providers(&["remove-test-provider", PROVIDER])?),
    }
    Ok(cmds)
}

impl AndroidDevice {
    /// Android 12 and later: 4 round trips to set (`appops set com.android.shell
    /// android:mock_location allow`, then `cmd location providers add-test-provider gps`,
    /// `set-test-provider-enabled gps true`, `set-test-provider-location gps --location
    /// LAT,LNG`), 2 to clear (the app op, `remove-test-provider gps`); plus
    /// `getprop ro.build.version.sdk` the first time. Older releases: only that `getprop`.
    pub(super) async fn set_location(&self, location: Option<Location>) -> Result<()> {
        let sdk = self.sdk().await?;
        if sdk != 0 && sdk < FIRST_SDK {
            return Err(DeviceError::unsupported_with_hint(
                "setting the location",
                Platform::Android,
                format!(
                    "a mock location from the shell needs Android 12 or later (`cmd location providers`); this device runs SDK {sdk}. On an emulator use its console (`adb emu geo fix LONGITUDE LATITUDE`); on a phone select a mock-location app in Developer options"
                ),
            ));
        }
        for c in location_commands(location)? {
            let out = self.sh("setting the location", c.clone()).await?;
            if let Err(said) = output::CMD_LOCATION.check(&out) {
                return Err(DeviceError::backend(format!(
                    "the device refused `{c}`: {said}"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_allow_the_op_before_the_provider() {
        let c = location_commands(Some(Location {
            latitude: mobile_device::Latitude::parse(48.8584).unwrap(),
            longitude: mobile_device::Longitude::parse(2.2945).unwrap(),
        }))
        .unwrap();
        assert_eq!(c.len(), 4);
        assert!(
            c[0].as_str().starts_with("appops set com.android.shell"),
            "{c:?}"
        );
        assert!(
            c[3].as_str().ends_with("--location 48.8584,2.2945"),
            "{c:?}"
        );
        let c = location_commands(None).unwrap();
        assert_eq!(c.len(), 2);
        assert!(c[1].as_str().contains("remove-test-provider gps"), "{c:?}");
    }
}
