//! Test support (feature `conformance`): calls every [`Device`] method once through
//! `dyn Device`, so a backend's test can show that each method it implements is reached.
//! A backend implements a method as an inherent method and forwards the trait's to it; a
//! forwarder left out still compiles and answers the trait default's "not supported".
//! [`METHODS`] is checked against the trait's own text, so a method added to the trait
//! and not called here fails this crate's tests.
//!
//! Not for: the product (nothing but tests enables the feature).

use std::fs::File;
use std::time::Duration;

use crate::bounds::{Latitude, Longitude, RecordingLimit};
use crate::button::Button;
use crate::device::Device;
use crate::error::{DeviceError, Result};
use crate::input::{AppId, DevicePath, DeviceUrl};
use crate::package::AppPackage;
use crate::posture::Posture;
use crate::types::{Location, LogQuery, Orientation, Point, RecordingOptions};

/// Every method of [`Device`] that a backend may implement, in the order
/// [`call_every_method`] calls them.
pub const METHODS: &[&str] = &[
    "list_apps",
    "launch_app",
    "terminate_app",
    "install_app",
    "uninstall_app",
    "foreground_app",
    "screen_size",
    "screenshot",
    "list_elements",
    "ui_dump",
    "tap",
    "double_tap",
    "long_press",
    "swipe",
    "type_text",
    "press_button",
    "open_url",
    "orientation",
    "set_orientation",
    "logs",
    "crashes",
    "crash",
    "push_file",
    "pull_file",
    "start_recording",
    "stop_recording",
    "clipboard",
    "set_clipboard",
    "set_location",
    "drag",
    "fold",
    "screen_fingerprint",
];

/// What the calls need from the device under test: an app it has, a package it can
/// install, files to push and to pull into, and so on.
pub struct Probe {
    /// An installed app, launched and stopped.
    pub app: AppId,
    /// A package to install.
    pub package: AppPackage,
    /// The app `package` installs, then uninstalled.
    pub installed: AppId,
    /// A URL the device opens.
    pub url: DeviceUrl,
    /// A crash report id to read (one that may not exist: only "not supported" counts).
    pub crash: String,
    /// A local file to push.
    pub push: File,
    /// Where on the device to push it and pull it back from.
    pub remote: DevicePath,
    /// A new empty local file to pull into.
    pub pull_into: File,
    /// A new empty local file to record into.
    pub record_into: File,
}

/// Calls every method once, in [`METHODS`]' order; each result with its method's name
/// (values are dropped: only whether the method answered counts).
pub async fn call_every_method(d: &dyn Device, p: Probe) -> Vec<(&'static str, Result<()>)> {
    fn done<T>(r: Result<T>) -> Result<()> {
        r.map(|_| ())
    }
    let at = Point::new(10, 10);
    let to = Point::new(20, 40);
    let short = Duration::from_millis(100);
    let mut out: Vec<(&'static str, Result<()>)> = Vec::new();
    out.push(("list_apps", done(d.list_apps().await)));
    out.push((
        "launch_app",
        done(d.launch_app(&p.app, &Default::default()).await),
    ));
    out.push(("terminate_app", d.terminate_app(&p.app).await));
    out.push(("install_app", d.install_app(p.package, None).await));
    out.push(("uninstall_app", d.uninstall_app(&p.installed).await));
    out.push(("foreground_app", done(d.foreground_app().await)));
    out.push(("screen_size", done(d.screen_size().await)));
    out.push(("screenshot", done(d.screenshot(&Default::default()).await)));
    out.push(("list_elements", done(d.list_elements().await)));
    out.push(("ui_dump", done(d.ui_dump().await)));
    out.push(("tap", d.tap(at).await));
    out.push(("double_tap", d.double_tap(at).await));
    out.push(("long_press", d.long_press(at, short).await));
    out.push(("swipe", d.swipe(at, to, short).await));
    out.push(("type_text", d.type_text("a").await));
    out.push(("press_button", d.press_button(Button::Home).await));
    out.push(("open_url", d.open_url(&p.url).await));
    out.push(("orientation", done(d.orientation().await)));
    out.push((
        "set_orientation",
        d.set_orientation(Orientation::Portrait).await,
    ));
    out.push(("logs", done(d.logs(&LogQuery::default()).await)));
    out.push(("crashes", done(d.crashes().await)));
    out.push(("crash", done(d.crash(&p.crash).await)));
    out.push(("push_file", done(d.push_file(p.push, &p.remote).await)));
    out.push(("pull_file", done(d.pull_file(&p.remote, p.pull_into).await)));
    out.push((
        "start_recording",
        d.start_recording(&RecordingOptions {
            time_limit: RecordingLimit::parse(5.0).expect("5 s is a legal limit"),
        })
        .await,
    ));
    out.push((
        "stop_recording",
        done(d.stop_recording(p.record_into).await),
    ));
    out.push(("clipboard", done(d.clipboard().await)));
    out.push(("set_clipboard", d.set_clipboard("a").await));
    out.push((
        "set_location",
        d.set_location(Some(Location {
            latitude: Latitude::parse(48.85).expect("a legal latitude"),
            longitude: Longitude::parse(2.35).expect("a legal longitude"),
        }))
        .await,
    ));
    out.push(("drag", d.drag(at, to, short).await));
    out.push(("fold", done(d.fold(Posture::Open).await)));
    out.push(("screen_fingerprint", done(d.screen_fingerprint().await)));
    out
}

/// The methods that answered "not supported".
pub fn unsupported(results: &[(&'static str, Result<()>)]) -> Vec<&'static str> {
    results
        .iter()
        .filter(|(_, r)| matches!(r, Err(DeviceError::Unsupported { .. })))
        .map(|(m, _)| *m)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trait's methods, read from its source: every `async fn` in `device.rs`.
    fn trait_methods() -> Vec<String> {
        include_str!("device.rs")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("async fn "))
            .map(|rest| rest.split('(').next().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn every_trait_method_is_called() {
        let methods = trait_methods();
        assert!(methods.len() > 20, "{methods:?}");
        assert_eq!(
            methods, METHODS,
            "conformance::METHODS is the trait's methods"
        );
    }
}
