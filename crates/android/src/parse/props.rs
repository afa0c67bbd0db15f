//! `getprop` (no arguments): every system property as `[key]: [value]`, one per line.
//! One call gives model, version and emulator flags, so listing a device costs one
//! round trip.

use std::collections::HashMap;

use mobile_device::DeviceKind;

/// Parses `getprop` output. Values may be empty; multi-line values keep only their
/// first line (no property this crate reads spans lines).
pub fn parse_getprop(text: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for line in super::lines(text) {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((key, value)) = rest.split_once("]: [") else {
            continue;
        };
        let value = value.strip_suffix(']').unwrap_or(value);
        map.insert(key.to_string(), value.to_string());
    }
    map
}

/// What a device listing needs from its properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropInfo {
    /// `ro.product.model`, if set.
    pub model: Option<String>,
    /// The Android version (`ro.build.version.release`), if set.
    pub version: Option<String>,
    /// Emulator or real device.
    pub kind: DeviceKind,
}

fn non_empty(v: Option<&String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Model, Android version and kind. An `emulator-*` serial or a `qemu` property makes
/// an emulator; anything else, including a `host:port` network device, is real.
pub fn prop_info(serial: &str, props: &HashMap<String, String>) -> PropInfo {
    let qemu = ["ro.kernel.qemu", "ro.boot.qemu"]
        .iter()
        .any(|k| props.get(*k).is_some_and(|v| v.trim() == "1"));
    let kind = if serial.starts_with("emulator-") || qemu {
        DeviceKind::Emulator
    } else {
        DeviceKind::Real
    };
    PropInfo {
        model: non_empty(props.get("ro.product.model")),
        version: non_empty(props.get("ro.build.version.release")),
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../../fixtures/android/parser-getprop.txt");

    #[test]
    fn parses_the_capture() {
        let p = parse_getprop(FIXTURE);
        assert_eq!(
            p.get("ro.product.model").map(String::as_str),
            Some("sdk_gphone64_x86_64")
        );
        assert_eq!(
            p.get("ro.build.version.release").map(String::as_str),
            Some("14")
        );
        assert_eq!(p.get("ro.boot.qemu").map(String::as_str), Some("1"));
        assert_eq!(p.get("persist.sys.empty").map(String::as_str), Some(""));
        let info = prop_info("192.168.1.5:5555", &p);
        assert_eq!(info.kind, DeviceKind::Emulator);
        assert_eq!(info.version.as_deref(), Some("14"));
    }

    #[test]
    fn kinds() {
        let none = HashMap::new();
        assert_eq!(prop_info("emulator-5554", &none).kind, DeviceKind::Emulator);
        assert_eq!(prop_info("10.0.0.2:5555", &none).kind, DeviceKind::Real);
        assert_eq!(prop_info("R58M12345", &none).kind, DeviceKind::Real);
        let p = parse_getprop("[ro.kernel.qemu]: [1]\r\n");
        assert_eq!(prop_info("R58M12345", &p).kind, DeviceKind::Emulator);
        assert_eq!(prop_info("x", &none).model, None);
    }

    #[test]
    fn real_android_3_tablet_with_crlf() {
        let text = include_str!("../../../../fixtures/android/parser-getprop-real-tf201.txt");
        assert!(
            text.contains("\r\n"),
            "the capture keeps its CRLF line endings"
        );
        let p = parse_getprop(text);
        assert_eq!(p.len(), 170);
        assert_eq!(p.get("ro.product.model").map(String::as_str), Some("TF201"));
        assert_eq!(
            p.get("ro.build.version.sdk").map(String::as_str),
            Some("13")
        );
        assert_eq!(
            p.get("ro.serialno").map(String::as_str),
            Some("C1OKAS051559")
        );
        assert_eq!(p.get("gsm.operator.alpha").map(String::as_str), Some(""));
        let info = prop_info("C1OKAS051559", &p);
        assert_eq!(info.kind, DeviceKind::Real);
        assert_eq!(info.model.as_deref(), Some("TF201"));
        assert_eq!(info.version.as_deref(), Some("3.2.1"));
    }

    #[test]
    fn real_android_13_phone_with_multi_line_value() {
        let p = parse_getprop(include_str!(
            "../../../../fixtures/android/parser-getprop-real-moto-edge20.txt"
        ));
        assert_eq!(
            p.get("persist.sys.boot.reason.history").map(String::as_str),
            Some("reboot,hardware_reset,1728776411"),
            "a value spanning lines keeps its first line"
        );
        assert!(!p.keys().any(|k| k.starts_with("reboot")));
        assert_eq!(
            p.get("ro.build.version.sdk").map(String::as_str),
            Some("33")
        );
        // `ro.kernel.qemu.gles` is not the emulator flag.
        let info = prop_info("0074732151", &p);
        assert_eq!(info.kind, DeviceKind::Real);
        assert_eq!(info.model.as_deref(), Some("motorola edge 20"));
        assert_eq!(info.version.as_deref(), Some("13"));
    }
}
