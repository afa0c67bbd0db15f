//! `host:devices-l` (what `adb devices -l` prints): one device per line,
//! `SERIAL  STATE  key:value…`. States the adb client library does not know (such as
//! `no permissions (…)`) are kept, so an unusable phone is listed with a hint instead of
//! failing the whole listing.

use mobile_device::DeviceState;

/// One line of the adb server's device list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    /// The device's adb serial (`emulator-5554`, `HOST:PORT`, a USB serial).
    pub serial: String,
    /// The state, as the listing shows it.
    pub state: DeviceState,
    /// The state word as adb printed it (`device`, `unauthorized`, `no permissions`…).
    pub raw_state: String,
    /// `model:` of the `-l` listing, if printed.
    pub model: Option<String>,
    /// `product:` of the `-l` listing, if printed.
    pub product: Option<String>,
    /// The adb server's number for this connection of the device (`transport_id:N`, adb
    /// 1.0.40 and later). A reconnect or reboot gets a new one, so it identifies one boot
    /// of one device on one server.
    pub transport_id: Option<u64>,
}

/// Parses the body of a `host:devices-l` reply.
pub fn parse_devices_l(text: &str) -> Vec<ListedDevice> {
    let mut out = Vec::new();
    for line in super::lines(text) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('*') || line.starts_with("List of devices") {
            continue;
        }
        let mut it = line.splitn(2, char::is_whitespace);
        let serial = it.next().unwrap_or_default().to_string();
        let rest = it.next().unwrap_or_default().trim_start();
        let (raw_state, tail) = if let Some(after) = rest.strip_prefix("no permissions") {
            // "no permissions (…); see [url] usb:… transport_id:…"
            let tail = after.find(" usb:").map(|i| &after[i..]).unwrap_or("");
            ("no permissions".to_string(), tail)
        } else {
            let mut p = rest.splitn(2, char::is_whitespace);
            (
                p.next().unwrap_or_default().to_string(),
                p.next().unwrap_or_default(),
            )
        };
        let mut model = None;
        let mut product = None;
        let mut transport_id = None;
        for kv in tail.split_whitespace() {
            if let Some(v) = kv.strip_prefix("model:") {
                model = Some(v.replace('_', " "));
            } else if let Some(v) = kv.strip_prefix("product:") {
                product = Some(v.to_string());
            } else if let Some(v) = kv.strip_prefix("transport_id:") {
                transport_id = v.parse().ok();
            }
        }
        let state = match raw_state.as_str() {
            "device" => DeviceState::Online,
            "offline" => DeviceState::Offline,
            "unauthorized" => DeviceState::Unauthorized,
            other => DeviceState::Other(other.to_string()),
        };
        if serial.is_empty() {
            continue;
        }
        out.push(ListedDevice {
            serial,
            state,
            raw_state,
            model,
            product,
            transport_id,
        });
    }
    out
}

/// What to do about a device that cannot take commands.
pub fn state_hint(raw_state: &str) -> Option<String> {
    let hint = match raw_state {
        "device" => return None,
        "unauthorized" => {
            "Unlock the phone and accept the \"Allow USB debugging\" prompt, then list devices again"
        }
        "authorizing" | "connecting" => {
            "The device is still connecting; list devices again in a few seconds"
        }
        "offline" => {
            "The device does not answer: reconnect its cable (or run `adb reconnect offline`); a network device may need `adb connect HOST:PORT` again"
        }
        "no permissions" => {
            "The adb server may not open this USB device: add a udev rule for it (see the Android docs on running apps on a hardware device) and replug it"
        }
        "bootloader" | "recovery" | "sideload" | "rescue" | "fastboot" => {
            "The device is not running Android; reboot it into the system"
        }
        _ => "The device is not ready; list devices again in a few seconds",
    };
    Some(hint.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../../fixtures/android/parser-devices-l.txt");

    #[test]
    fn parses_every_state() {
        let d = parse_devices_l(FIXTURE);
        assert_eq!(d.len(), 5);
        assert_eq!(d[0].serial, "emulator-5554");
        assert_eq!(d[0].state, DeviceState::Online);
        assert_eq!(d[0].model.as_deref(), Some("sdk gphone64 x86 64"));
        assert_eq!(d[1].state, DeviceState::Unauthorized);
        assert!(
            state_hint(&d[1].raw_state)
                .unwrap()
                .contains("Allow USB debugging")
        );
        assert_eq!(d[2].serial, "192.168.1.20:5555");
        assert_eq!(d[2].state, DeviceState::Offline);
        assert_eq!(d[3].state, DeviceState::Other("no permissions".into()));
        assert!(state_hint("no permissions").unwrap().contains("udev"));
        assert_eq!(d[4].model.as_deref(), Some("VirtualDevice"));
        assert!(state_hint("device").is_none());
        // Also read after the `no permissions (…)` explanation.
        let ids: Vec<_> = d.iter().map(|l| l.transport_id).collect();
        assert_eq!(ids, [Some(1), Some(3), Some(4), Some(5), Some(6)]);
    }

    #[test]
    fn empty_and_noise() {
        assert!(parse_devices_l("").is_empty());
        assert!(
            parse_devices_l("* daemon started successfully\nList of devices attached\n\n")
                .is_empty()
        );
    }

    #[test]
    fn real_usb_phone_with_mac_usb_path() {
        let d = parse_devices_l(include_str!(
            "../../../../fixtures/android/parser-devices-l-real-huawei.txt"
        ));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].serial, "UYT5T18414003349");
        assert_eq!(d[0].state, DeviceState::Online);
        assert_eq!(d[0].model.as_deref(), Some("ALP AL00"));
        assert_eq!(d[0].product.as_deref(), Some("ALP-AL00"));
    }

    #[test]
    fn real_old_adb_header_with_trailing_space() {
        let d = parse_devices_l(include_str!(
            "../../../../fixtures/android/parser-devices-l-real-nexus7.txt"
        ));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].serial, "0a388e93");
        assert_eq!(d[0].model.as_deref(), Some("Nexus 7"));
        assert_eq!(d[0].product.as_deref(), Some("razor"));
        // adb before 1.0.40 printed no transport id.
        assert_eq!(d[0].transport_id, None);
    }

    #[test]
    fn real_usb_and_network_device_without_properties() {
        let d = parse_devices_l(include_str!(
            "../../../../fixtures/android/parser-devices-l-real-galaxy-s23.txt"
        ));
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].serial, "RQCWB06ZY2X");
        assert_eq!(d[0].model.as_deref(), Some("SM S918B"));
        assert_eq!(d[1].serial, "127.0.0.1:34381");
        assert_eq!(d[1].state, DeviceState::Online);
        assert_eq!((d[0].transport_id, d[1].transport_id), (Some(27), Some(33)));
        assert_eq!(
            (d[1].model.as_deref(), d[1].product.as_deref()),
            (None, None)
        );
    }
}
