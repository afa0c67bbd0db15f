//! An app's own state on a fake simulator: its privacy decisions (`simctl privacy`), its
//! data container (what a test put there), and its bundle on disk (`simctl
//! get_app_container`), which Maestro's clear-state route copies, uninstalls and
//! reinstalls (`fixtures/SOURCES.md`, "App state").

use std::path::Path;

use super::Reply;
use super::simctl::ENCOUNTERED;
use super::state::{FakeApp, IosState, Simulator};

/// The services `simctl privacy` takes (its help text, quoted in `fixtures/SOURCES.md`).
pub(crate) const PRIVACY_SERVICES: &[&str] = &[
    "all",
    "calendar",
    "contacts-limited",
    "contacts",
    "location",
    "location-always",
    "photos-add",
    "photos",
    "media-library",
    "microphone",
    "motion",
    "reminders",
    "siri",
];

const PRIVACY_USAGE: &str = "Grant, revoke, or reset privacy and permissions\nUsage: simctl privacy <device> <action> <service> [<bundle identifier>]\n";

/// `simctl privacy UDID grant|revoke|reset SERVICE [BUNDLE]`: `grant` and `revoke` need
/// the bundle id; `all` is every service. A revoke ends the app if it runs ("Some
/// permission changes will terminate the application if running"; which ones is not
/// said, revokes here).
pub(crate) fn privacy(sim: &mut Simulator, rest: &[String]) -> Reply {
    let (Some(action), Some(service)) = (rest.get(1), rest.get(2)) else {
        return Reply::err(64, PRIVACY_USAGE);
    };
    let bundle = rest.get(3);
    if !matches!(action.as_str(), "grant" | "revoke" | "reset")
        || !PRIVACY_SERVICES.contains(&service.as_str())
        || (action != "reset" && bundle.is_none())
    {
        return Reply::err(64, PRIVACY_USAGE);
    }
    let services: Vec<&str> = if service == "all" {
        PRIVACY_SERVICES[1..].to_vec()
    } else {
        vec![service.as_str()]
    };
    let bundles: Vec<String> = match bundle {
        Some(b) => vec![b.clone()],
        None => sim.privacy.keys().cloned().collect(),
    };
    for b in bundles {
        let entry = sim.privacy.entry(b.clone()).or_default();
        for s in &services {
            match action.as_str() {
                "grant" => {
                    entry.insert(s.to_string(), "granted".into());
                }
                "revoke" => {
                    entry.insert(s.to_string(), "revoked".into());
                }
                _ => {
                    entry.remove(*s);
                }
            }
        }
        if action == "revoke"
            && sim.running.remove(&b).is_some()
            && sim.foreground.as_ref() == Some(&b)
        {
            sim.foreground = None;
        }
    }
    Reply::ok()
}

/// `simctl get_app_container UDID BUNDLE [app|data]`: the `.app` folder (written to disk
/// under the fake's home on first ask, its `Info.plist` from the app) or the data folder.
pub(crate) fn get_app_container(state: &mut IosState, i: usize, rest: &[String]) -> Reply {
    let Some(bid) = rest.get(1) else {
        return Reply::err(
            64,
            "Usage: simctl get_app_container <device> <app bundle identifier> [<container>]\n",
        );
    };
    let home = state.home.clone();
    let sim = &state.simulators[i];
    let Some(app) = sim.apps.iter().find(|a| &a.bundle_id == bid) else {
        return Reply::err(
            2,
            format!(
                "{ENCOUNTERED} (domain=NSPOSIXErrorDomain, code=2):\nFailed to get the app container of {bid}.\nNo such file or directory\n"
            ),
        );
    };
    let base = format!(
        "{home}/Library/Developer/CoreSimulator/Devices/{}/data/Containers",
        sim.udid
    );
    match rest.get(2).map(String::as_str).unwrap_or("app") {
        "app" => {
            let dir = format!(
                "{base}/Bundle/Application/{}/{}.app",
                app.container
                    .clone()
                    .unwrap_or_else(|| super::simctl::uuid_like(&app.bundle_id)),
                app.executable()
            );
            if let Err(e) = write_bundle(Path::new(&dir), app) {
                return Reply::err(
                    1,
                    format!("{ENCOUNTERED} (domain=NSCocoaErrorDomain, code=4):\n{e}\n"),
                );
            }
            Reply::out(format!("{dir}\n"))
        }
        "data" => Reply::out(format!(
            "{base}/Data/Application/{}\n",
            super::simctl::uuid_like(&format!("data-{bid}"))
        )),
        other => Reply::err(
            1,
            format!(
                "{ENCOUNTERED} (domain=NSPOSIXErrorDomain, code=22):\nInvalid container type: {other}\n"
            ),
        ),
    }
}

/// Writes an app's bundle folder: an `Info.plist` with its identity and URL schemes.
fn write_bundle(dir: &Path, app: &FakeApp) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut d = plist::Dictionary::new();
    d.insert("CFBundleIdentifier".into(), app.bundle_id.clone().into());
    d.insert("CFBundleName".into(), app.name.clone().into());
    d.insert("CFBundleVersion".into(), app.version.clone().into());
    d.insert("CFBundleExecutable".into(), app.executable().into());
    if let Some(n) = &app.display_name {
        d.insert("CFBundleDisplayName".into(), n.clone().into());
    }
    if !app.url_schemes.is_empty() {
        let mut t = plist::Dictionary::new();
        t.insert(
            "CFBundleURLSchemes".into(),
            plist::Value::Array(app.url_schemes.iter().map(|s| s.clone().into()).collect()),
        );
        d.insert(
            "CFBundleURLTypes".into(),
            plist::Value::Array(vec![plist::Value::Dictionary(t)]),
        );
    }
    plist::Value::Dictionary(d)
        .to_file_xml(dir.join("Info.plist"))
        .map_err(std::io::Error::other)?;
    std::fs::write(dir.join(app.executable()), b"fake executable")
}

/// What uninstalling takes with the app: its data container and privacy decisions.
pub(crate) fn forget(sim: &mut Simulator, bid: &str) {
    sim.app_data.remove(bid);
    sim.privacy.remove(bid);
}
