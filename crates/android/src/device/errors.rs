//! How an adb failure is worded for one device.

use mobile_device::{DeviceError, NextStep};

use crate::adb::Link;

/// Gives an adb_client failure a message about this device.
pub(crate) fn adb_error(
    id: &str,
    link: &Link,
    what: &str,
    e: adb_client::RustADBError,
) -> DeviceError {
    let text = e.to_string();
    let where_ = format!("the adb server at {}", link.addr);
    let lower = text.to_ascii_lowercase();
    if lower.contains("not found") && lower.contains("device") {
        return DeviceError::NotFound {
            what: format!("Device \"{id}\""),
            hint: Some(format!("It is no longer connected to {where_}")),
            next: Some(NextStep::ListDevices),
        };
    }
    if lower.contains("offline") {
        return DeviceError::backend_with_hint(
            format!("Device \"{id}\" went offline during {what}"),
            "Reconnect it (or run `adb reconnect offline`)",
        )
        .then(NextStep::ListDevices);
    }
    if lower.contains("unauthorized") {
        return DeviceError::backend_with_hint(
            format!("Device \"{id}\" is unauthorized"),
            "Accept the \"Allow USB debugging\" prompt on the phone",
        );
    }
    if let adb_client::RustADBError::IOError(io) = &e {
        use std::io::ErrorKind::*;
        if matches!(
            io.kind(),
            ConnectionRefused
                | ConnectionReset
                | ConnectionAborted
                | BrokenPipe
                | UnexpectedEof
                | NotConnected
        ) {
            return DeviceError::backend_with_hint(
                format!("lost the connection to {where_} during {what} on \"{id}\": {io}"),
                "The device or the adb server went away",
            )
            .then(NextStep::ListDevices);
        }
    }
    DeviceError::backend(format!("{what} on \"{id}\" failed: {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_device_points_to_the_device_list() {
        let link = Link {
            addr: "127.0.0.1:5037".parse().unwrap(),
            serial: "s".into(),
        };
        let gone = adb_client::RustADBError::IOError(std::io::ErrorKind::ConnectionReset.into());
        let e = adb_error("s", &link, "tapping", gone);
        assert!(
            matches!(
                &e,
                DeviceError::Backend {
                    next: Some(NextStep::ListDevices),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("the adb server at 127.0.0.1:5037"),
            "{e}"
        );
        let offline = adb_client::RustADBError::ADBRequestFailed("device offline".into());
        let e = adb_error("s", &link, "tapping", offline);
        assert!(
            matches!(
                &e,
                DeviceError::Backend {
                    next: Some(NextStep::ListDevices),
                    ..
                }
            ),
            "{e:?}"
        );
    }
}
