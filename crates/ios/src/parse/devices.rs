//! `xcrun simctl list devices -j`: `{"devices": {<runtime>: [<device>…]}}`.
//!
//! Keys are `com.apple.CoreSimulator.SimRuntime.iOS-17-5` since Xcode 10.1 and
//! `iOS 12.1` before it; every device key but `udid`, `name` and `state` is optional,
//! and availability is a bool (`isAvailable`) or, on old Xcode, an `availability`
//! string such as `(unavailable, runtime profile not found)`.

use serde_json::Value;

use super::ParseError;

/// One simulator as `simctl list devices -j` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimDevice {
    /// The simulator's UDID.
    pub udid: String,
    /// Its name (`iPhone 16 Pro`, or whatever it was renamed to).
    pub name: String,
    /// The runtime key as printed (`com.apple.CoreSimulator.SimRuntime.iOS-18-5`).
    pub runtime: String,
    /// `iOS`, `tvOS`, `watchOS`, `xrOS`, when the runtime key could be read.
    pub os: Option<String>,
    /// `18.5`, when the runtime key could be read.
    pub version: Option<String>,
    /// `Booted`, `Shutdown`, `Booting`, `Shutting Down`, `Creating`.
    pub state: String,
    /// Whether it can run (`isAvailable`, or the old `availability` text).
    pub available: bool,
    /// `availabilityError`, when it is not available.
    pub availability_error: Option<String>,
    /// `com.apple.CoreSimulator.SimDeviceType.iPhone-16-Pro`, where printed.
    pub device_type: Option<String>,
}

impl SimDevice {
    /// Whether the simulator is booted.
    pub fn is_booted(&self) -> bool {
        self.state == "Booted"
    }

    /// The device type's short name (`iPhone 16 Pro`), from its identifier. Older
    /// identifiers stand in for parentheses with extra dashes
    /// (`iPhone-SE--2nd-generation-`), so runs of dashes collapse to one space.
    pub fn model(&self) -> Option<String> {
        let t = self.device_type.as_deref()?;
        let short = t.rsplit('.').next().unwrap_or(t);
        let words: Vec<&str> = short.split('-').filter(|w| !w.is_empty()).collect();
        (!words.is_empty()).then(|| words.join(" "))
    }
}

/// Reads the OS and version out of a runtime key: `com.apple.CoreSimulator.SimRuntime.iOS-17-5`
/// gives (`iOS`, `17.5`), and the pre-Xcode-10.1 form `iOS 12.1` gives (`iOS`, `12.1`).
pub fn runtime_version(key: &str) -> Option<(String, String)> {
    let short = key
        .strip_prefix("com.apple.CoreSimulator.SimRuntime.")
        .unwrap_or(key);
    let (os, ver) = if let Some((os, ver)) = short.split_once(' ') {
        (os, ver.to_string())
    } else {
        let (os, ver) = short.split_once('-')?;
        (os, ver.replace('-', "."))
    };
    let ok = !os.is_empty()
        && os.chars().all(|c| c.is_ascii_alphanumeric())
        && !ver.is_empty()
        && ver
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    ok.then(|| (os.to_string(), ver))
}

/// Parses `simctl list devices -j` (also `list -j`, `list devices available -j`, …).
/// Devices come out in runtime-key order, then in the order printed.
pub fn parse_list_devices(json: &str) -> Result<Vec<SimDevice>, ParseError> {
    const WHAT: &str = "simctl list devices -j";
    let root: Value = serde_json::from_str(json).map_err(|e| ParseError::new(WHAT, e))?;
    let devices = root
        .get("devices")
        .and_then(Value::as_object)
        .ok_or_else(|| ParseError::new(WHAT, "no \"devices\" object"))?;
    let mut out = Vec::new();
    for (runtime, list) in devices {
        let Some(list) = list.as_array() else {
            return Err(ParseError::new(
                WHAT,
                format!("runtime {runtime} does not hold an array"),
            ));
        };
        let rv = runtime_version(runtime);
        for d in list {
            let s = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(udid), Some(name)) = (s("udid"), s("name")) else {
                return Err(ParseError::new(
                    WHAT,
                    format!("a device under {runtime} has no udid or name"),
                ));
            };
            let legacy = s("availability");
            let available = match d.get("isAvailable") {
                Some(Value::Bool(b)) => *b,
                // Some Xcode 10 builds printed "YES"/"NO".
                Some(Value::String(v)) => v.eq_ignore_ascii_case("yes") || v == "true",
                _ => legacy
                    .as_deref()
                    .map(|a| a.trim() == "(available)")
                    .unwrap_or(true),
            };
            let availability_error =
                s("availabilityError")
                    .filter(|e| !e.is_empty())
                    .or_else(|| {
                        legacy.filter(|a| a.contains("unavailable")).map(|a| {
                            a.trim_matches(|c| c == '(' || c == ')')
                                .trim_start_matches("unavailable, ")
                                .to_string()
                        })
                    });
            out.push(SimDevice {
                udid,
                name,
                runtime: runtime.clone(),
                os: rv.as_ref().map(|r| r.0.clone()),
                version: rv.as_ref().map(|r| r.1.clone()),
                state: s("state").unwrap_or_else(|| "Unknown".to_string()),
                available,
                availability_error: if available { None } else { availability_error },
                device_type: s("deviceTypeIdentifier"),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let p = format!("{}/../../fixtures/ios/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn runtime_keys() {
        assert_eq!(
            runtime_version("com.apple.CoreSimulator.SimRuntime.iOS-17-5"),
            Some(("iOS".into(), "17.5".into()))
        );
        assert_eq!(
            runtime_version("com.apple.CoreSimulator.SimRuntime.xrOS-2-0"),
            Some(("xrOS".into(), "2.0".into()))
        );
        assert_eq!(
            runtime_version("iOS 12.1"),
            Some(("iOS".into(), "12.1".into()))
        );
        assert_eq!(
            runtime_version("com.apple.CoreSimulator.SimRuntime.iOS-26-4-1"),
            Some(("iOS".into(), "26.4.1".into()))
        );
        assert_eq!(runtime_version("nonsense"), None);
        assert_eq!(runtime_version("iOS-x"), None);
    }

    #[test]
    fn xcode16_shape_with_escaped_slashes_and_unavailable() {
        let d = parse_list_devices(&fixture("list-devices-xcode16-recon.json")).unwrap();
        assert_eq!(d.len(), 3);
        let booted = d.iter().find(|d| d.is_booted()).unwrap();
        assert_eq!(booted.name, "iPhone 16 Pro");
        assert_eq!(booted.udid, "C4AB4BE0-C0BC-436C-8C03-8F87330DFFA5");
        assert_eq!(booted.version.as_deref(), Some("18.5"));
        assert_eq!(booted.os.as_deref(), Some("iOS"));
        assert_eq!(booted.model().as_deref(), Some("iPhone 16 Pro"));
        let ipad = d.iter().find(|d| d.name.starts_with("iPad")).unwrap();
        assert_eq!(ipad.state, "Shutdown");
        assert!(ipad.available);
        let gone = d.iter().find(|d| !d.available).unwrap();
        assert_eq!(gone.version.as_deref(), Some("17.2"));
        assert_eq!(
            gone.availability_error.as_deref(),
            Some("runtime profile not found using \"System\" match policy")
        );
    }

    #[test]
    fn xcode26_capture() {
        let d = parse_list_devices(&fixture("list-devices-xcode26-mgcrea.json")).unwrap();
        assert_eq!(d.len(), 6);
        assert_eq!(d.iter().filter(|d| d.is_booted()).count(), 1);
        assert_eq!(d.iter().filter(|d| !d.available).count(), 3);
        assert!(d.iter().all(|d| d.os.as_deref() == Some("iOS")));
        let named = d.iter().find(|d| d.name == "appshot-iphone").unwrap();
        assert_eq!(named.version.as_deref(), Some("26.5"));
        assert_eq!(named.model().as_deref(), Some("iPhone 17 Pro Max"));
    }

    #[test]
    fn pre_xcode_10_1_keys_and_availability_strings() {
        let d = parse_list_devices(&fixture("list-devices-xcode10-node-simctl.json")).unwrap();
        assert_eq!(d.len(), 16);
        let ios: Vec<_> = d
            .iter()
            .filter(|d| d.os.as_deref() == Some("iOS"))
            .collect();
        assert_eq!(ios.len(), 7);
        assert!(ios.iter().all(|d| d.version.as_deref() == Some("12.1")));
        assert!(d.iter().all(|d| d.available && d.device_type.is_none()));
        let legacy = r#"{"devices":{"iOS 12.2":[{"availability":"(unavailable, runtime profile not found)","state":"Shutdown","name":"iPhone 6","udid":"X"}]}}"#;
        let d = parse_list_devices(legacy).unwrap();
        assert!(!d[0].available);
        assert_eq!(
            d[0].availability_error.as_deref(),
            Some("runtime profile not found")
        );
    }

    #[test]
    fn xcode12_capture_tvos_watchos_and_a_booted_unavailable_device() {
        let d = parse_list_devices(&fixture("list-devices-xcode12-device-finder.json")).unwrap();
        assert_eq!(d.len(), 5);
        let booted: Vec<_> = d.iter().filter(|d| d.is_booted()).collect();
        assert_eq!(booted.len(), 1);
        let max = booted[0];
        assert_eq!(max.udid, "84623E6D-95DE-4325-ACBE-4FEE27DC1186");
        assert_eq!(max.name, "iPhone 12 Pro Max");
        assert_eq!(
            (max.os.as_deref(), max.version.as_deref()),
            (Some("iOS"), Some("14.1"))
        );
        // As captured: booted while its runtime profile is gone. The flag is kept as
        // printed rather than inferred from the state.
        assert!(!max.available);
        assert_eq!(
            max.availability_error.as_deref(),
            Some("runtime profile not found")
        );
        assert_eq!(max.model().as_deref(), Some("iPhone 12 Pro Max"));
        let watch = d
            .iter()
            .find(|d| d.os.as_deref() == Some("watchOS"))
            .unwrap();
        assert_eq!(watch.version.as_deref(), Some("6.1"));
        assert_eq!(watch.name, "Apple Watch Series 4 - 40mm");
        let tv: Vec<_> = d
            .iter()
            .filter(|d| d.os.as_deref() == Some("tvOS"))
            .collect();
        assert_eq!(tv.len(), 2);
        let tv145 = tv
            .iter()
            .find(|d| d.version.as_deref() == Some("14.5"))
            .unwrap();
        assert!(tv145.available);
        assert_eq!(tv145.availability_error, None);
        assert_eq!(tv145.udid, "1C84DE30-2A41-4C49-A711-723F8D18F686");
    }

    #[test]
    fn xcode15_capture_sizes_and_old_device_type_spelling() {
        let d = parse_list_devices(&fixture("list-devices-xcode15-findsimulator.json")).unwrap();
        assert_eq!(d.len(), 5);
        assert!(
            d.iter()
                .all(|d| d.available && d.availability_error.is_none())
        );
        let booted = d.iter().find(|d| d.is_booted()).unwrap();
        assert_eq!(booted.udid, "D2E4C979-FFEA-4236-9F57-64C3209975A0");
        assert_eq!(booted.name, "iPhone 15 Pro");
        assert_eq!(booted.version.as_deref(), Some("17.5"));
        // Runtime order depends on serde_json's `preserve_order` feature; sort.
        let mut versions: Vec<_> = d.iter().filter_map(|d| d.version.as_deref()).collect();
        versions.sort_unstable();
        assert_eq!(versions, ["15.5", "17.4", "17.4", "17.5", "17.5"]);
        let ipod = d.iter().find(|d| d.name.starts_with("iPod")).unwrap();
        assert_eq!(
            ipod.device_type.as_deref(),
            Some("com.apple.CoreSimulator.SimDeviceType.iPod-touch--7th-generation-")
        );
        assert_eq!(ipod.model().as_deref(), Some("iPod touch 7th generation"));
        let ipad = d.iter().find(|d| d.name.starts_with("iPad")).unwrap();
        assert_eq!(ipad.model().as_deref(), Some("iPad Pro 13 inch M4 8GB"));
    }

    #[test]
    fn xcode26_capture_with_tabs_escaped_slashes_and_availability_error() {
        let d = parse_list_devices(&fixture("list-devices-xcode26-macios.json")).unwrap();
        assert_eq!(d.len(), 5);
        assert!(d.iter().all(|d| d.state == "Shutdown"));
        let tv = d.iter().find(|d| d.os.as_deref() == Some("tvOS")).unwrap();
        assert_eq!(tv.udid, "60ED31BD-80CE-420A-B0CB-756D2CD38201");
        assert_eq!(tv.name, "Apple TV - tvOS 26.1");
        assert_eq!(tv.version.as_deref(), Some("26.1"));
        let gone = d.iter().find(|d| !d.available).unwrap();
        assert_eq!(gone.udid, "D4D95709-144A-4CAA-8469-89566EC1C935");
        assert_eq!(gone.version.as_deref(), Some("26.0"));
        assert_eq!(
            gone.availability_error.as_deref(),
            Some("runtime profile not found using \"System\" match policy")
        );
        let ios261: Vec<_> = d
            .iter()
            .filter(|d| d.runtime == "com.apple.CoreSimulator.SimRuntime.iOS-26-1")
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(
            ios261,
            [
                "iPhone 11 - iOS 26.1",
                "iPad Pro 13-inch (M5)",
                "iPad Pro 11-inch (M5)"
            ]
        );
    }

    #[test]
    fn device_type_names_collapse_dash_runs() {
        let with = |t: &str| SimDevice {
            udid: "U".into(),
            name: "N".into(),
            runtime: String::new(),
            os: None,
            version: None,
            state: "Shutdown".into(),
            available: true,
            availability_error: None,
            device_type: Some(t.into()),
        };
        assert_eq!(
            with("com.apple.CoreSimulator.SimDeviceType.iPad-Pro--12-9-inch---4th-generation-")
                .model()
                .as_deref(),
            Some("iPad Pro 12 9 inch 4th generation")
        );
        assert_eq!(
            with("com.apple.CoreSimulator.SimDeviceType.---").model(),
            None
        );
    }

    #[test]
    fn minimal_keys_and_empty_runtimes() {
        // Xcode 16.4 prints booted devices with only these five keys.
        let j = r#"{"devices" : {"com.apple.CoreSimulator.SimRuntime.iOS-18-6" : [{"udid" : "A", "isAvailable" : true, "deviceTypeIdentifier" : "com.apple.CoreSimulator.SimDeviceType.iPhone-16", "state" : "Booted", "name" : "iPhone 16"}], "com.apple.CoreSimulator.SimRuntime.watchOS-11-5" : [

    ]}}"#;
        let d = parse_list_devices(j).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].version.as_deref(), Some("18.6"));
        assert!(parse_list_devices("An error was encountered").is_err());
        assert!(parse_list_devices("{}").is_err());
    }
}
