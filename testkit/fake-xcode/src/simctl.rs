//! `fake-xcrun simctl …`: the subcommands mobile-mcp uses, with simctl's output
//! formats, stderr sentences and exit codes (see the iOS reference notes, §1–§3).

use std::path::Path;

use super::Reply;
use super::json::{J, simctl as simctl_json};
use super::openstep::{P, description};
use super::state::{FakeApp, IosState, Simulator};

pub(crate) const ENCOUNTERED: &str = "An error was encountered processing the command";

fn not_booted() -> Reply {
    Reply::err(
        149,
        format!(
            "{ENCOUNTERED} (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to lookup in current state: Shutdown\n"
        ),
    )
}

/// Resolves a device argument (a UDID or `booted`) to an index.
fn resolve(state: &IosState, arg: &str) -> Result<usize, Reply> {
    if arg == "booted" {
        return state
            .simulators
            .iter()
            .position(|s| s.state == "Booted")
            .ok_or_else(|| Reply::err(148, "No devices are booted.\n"));
    }
    state
        .simulators
        .iter()
        .position(|s| s.udid.eq_ignore_ascii_case(arg))
        .ok_or_else(|| Reply::err(148, format!("Invalid device: {arg}\n")))
}

fn booted(state: &IosState, arg: Option<&String>) -> Result<usize, Reply> {
    let Some(arg) = arg else {
        return Err(Reply::err(1, "Missing device argument.\n"));
    };
    let i = resolve(state, arg)?;
    if state.simulators[i].state != "Booted" {
        return Err(not_booted());
    }
    Ok(i)
}

fn device_json(home: &str, s: &Simulator) -> J {
    let mut p: Vec<(&str, J)> = Vec::new();
    if let Some(e) = &s.availability_error {
        p.push(("availabilityError", J::s(e)));
    }
    if let Some(t) = &s.last_booted_at {
        p.push(("lastBootedAt", J::s(t)));
    }
    p.push((
        "dataPath",
        J::s(format!(
            "{home}/Library/Developer/CoreSimulator/Devices/{}/data",
            s.udid
        )),
    ));
    if let Some(n) = s.data_path_size {
        p.push(("dataPathSize", J::Int(n as i64)));
    }
    p.push((
        "logPath",
        J::s(format!("{home}/Library/Logs/CoreSimulator/{}", s.udid)),
    ));
    p.push(("udid", J::s(&s.udid)));
    p.push(("isAvailable", J::Bool(s.available)));
    if let Some(n) = s.log_path_size {
        p.push(("logPathSize", J::Int(n as i64)));
    }
    p.push(("deviceTypeIdentifier", J::s(&s.device_type)));
    p.push(("state", J::s(&s.state)));
    p.push(("name", J::s(&s.name)));
    J::obj(p)
}

/// `list [devices] [available|booted|<term>] -j`.
fn list(state: &IosState, args: &[String]) -> Reply {
    let json = args.iter().any(|a| a == "-j" || a == "--json");
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let section = words.first().copied();
    if let Some(s) =
        section.filter(|s| !["devices", "devicetypes", "runtimes", "pairs"].contains(s))
    {
        return Reply::err(1, format!("Invalid section: {s}\n"));
    }
    let filter = words.get(1).copied();
    let keep = |s: &Simulator| match filter {
        None => true,
        Some("available") => s.available,
        Some("booted") => s.state == "Booted",
        Some(term) => s.name.contains(term) || s.udid == term,
    };
    let mut runtimes: Vec<(String, Vec<J>)> = Vec::new();
    for s in &state.simulators {
        let dev = device_json(&state.home, s);
        match runtimes.iter_mut().find(|(r, _)| *r == s.runtime) {
            Some((_, list)) => {
                if keep(s) {
                    list.push(dev)
                }
            }
            None => runtimes.push((s.runtime.clone(), if keep(s) { vec![dev] } else { vec![] })),
        }
    }
    for r in &state.empty_runtimes {
        if !runtimes.iter().any(|(k, _)| k == r) {
            runtimes.push((r.clone(), Vec::new()));
        }
    }
    let devices = J::Obj(runtimes.into_iter().map(|(k, v)| (k, J::Arr(v))).collect());
    if !json {
        let mut text = String::from("== Devices ==\n");
        for s in state.simulators.iter().filter(|s| keep(s)) {
            text.push_str(&format!("    {} ({}) ({})\n", s.name, s.udid, s.state));
        }
        return Reply::out(text);
    }
    let root = match section {
        Some("devices") => J::obj(vec![("devices", devices)]),
        Some(other) => J::obj(vec![(other, J::Arr(vec![]))]),
        None => J::obj(vec![
            ("devicetypes", J::Arr(vec![])),
            ("runtimes", J::Arr(vec![])),
            ("devices", devices),
            ("pairs", J::Obj(vec![])),
        ]),
    };
    Reply::out(simctl_json(&root))
}

fn app_plist(home: &str, udid: &str, a: &FakeApp) -> P {
    let s = |v: &str| P::Str(v.to_string());
    let mut d: Vec<(String, P)> = vec![
        ("ApplicationType".into(), s(&a.kind)),
        ("CFBundleExecutable".into(), s(&a.executable())),
        ("CFBundleIdentifier".into(), s(&a.bundle_id)),
        ("CFBundleName".into(), s(&a.name)),
        ("CFBundleVersion".into(), s(&a.version)),
        ("GroupContainers".into(), P::Dict(vec![])),
        ("SBAppTags".into(), P::Arr(vec![])),
    ];
    if let Some(n) = &a.display_name {
        d.push(("CFBundleDisplayName".into(), s(n)));
    }
    let dir = format!("{}.app", a.executable());
    let path = if a.kind == "User" {
        let c = a
            .container
            .clone()
            .unwrap_or_else(|| uuid_like(&a.bundle_id));
        let container = format!(
            "{home}/Library/Developer/CoreSimulator/Devices/{udid}/data/Containers/Bundle/Application/{c}/"
        );
        d.push(("BundleContainer".into(), s(&format!("file://{container}"))));
        format!("{container}{dir}")
    } else {
        format!(
            "/Library/Developer/CoreSimulator/Volumes/iOS_22F77/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 18.5.simruntime/Contents/Resources/RuntimeRoot/Applications/{dir}"
        )
    };
    d.push((
        "Bundle".into(),
        s(&format!("file://{}/", path.replace(' ', "%20"))),
    ));
    d.push(("Path".into(), s(&path)));
    d.push((
        "DataContainer".into(),
        s(&format!(
            "file://{home}/Library/Developer/CoreSimulator/Devices/{udid}/data/Containers/Data/Application/{}/",
            uuid_like(&format!("data-{}", a.bundle_id))
        )),
    ));
    P::Dict(d)
}

/// A stable UUID-shaped string derived from a name (FNV-1a), for container paths.
pub(crate) fn uuid_like(seed: &str) -> String {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in seed.bytes() {
        h ^= b as u128;
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    let x = format!("{h:032X}");
    format!(
        "{}-{}-{}-{}-{}",
        &x[..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..]
    )
}

/// Renders the current screen as a PNG of the simulator's pixel size.
fn render_png(sim: &Simulator) -> Vec<u8> {
    super::picture::png(sim)
}

/// A minimal MP4 (`ftyp` + empty `mdat`) for recordings.
pub(crate) fn fake_mp4(seconds: u32) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&24u32.to_be_bytes());
    v.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
    let body = vec![0u8; 1024 * (1 + seconds as usize)];
    v.extend_from_slice(&((body.len() + 8) as u32).to_be_bytes());
    v.extend_from_slice(b"mdat");
    v.extend_from_slice(&body);
    v
}

fn io(state: &mut IosState, i: usize, args: &[String]) -> Reply {
    let Some(op) = args.first() else {
        return Reply::err(1, "Missing io operation.\n");
    };
    match op.as_str() {
        "screenshot" => {
            let Some(file) = args.iter().skip(1).rfind(|a| !a.starts_with("--")) else {
                return Reply::err(1, "Missing file argument.\n");
            };
            let ty = args
                .iter()
                .find_map(|a| a.strip_prefix("--type="))
                .unwrap_or("png");
            if ty != "png" {
                return Reply::err(1, format!("Unsupported type in fake: {ty}\n"));
            }
            // Like Xcode 26, `-` is a file name, not stdout.
            if let Err(e) = std::fs::write(file, render_png(&state.simulators[i])) {
                return Reply::err(
                    2,
                    format!("{ENCOUNTERED} (domain=NSCocoaErrorDomain, code=4):\n{e}\n"),
                );
            }
            Reply {
                stdout: Vec::new(),
                stderr: format!(
                    "Detected file type from extension: PNG\nNote: No display specified. Defaulting to display: 0D1D9A3B-3A5C-4C5E-9F1B-5A6B7C8D9E0F (screenID: 1, name: LCD)\nWrote screenshot to: {file}\n"
                ),
                code: 0,
            }
        }
        "recordVideo" => {
            let Some(file) = args.iter().skip(1).rfind(|a| !a.starts_with("--")) else {
                return Reply::err(1, "Missing file argument.\n");
            };
            if Path::new(file).exists() && !args.iter().any(|a| a == "--force" || a == "-f") {
                return Reply::err(
                    1,
                    format!(
                        "{ENCOUNTERED} (domain=NSPOSIXErrorDomain, code=17):\nFile exists: {file}\n"
                    ),
                );
            }
            let seconds = super::wait_for_sigint();
            match std::fs::write(file, fake_mp4(seconds)) {
                Ok(()) => Reply {
                    stdout: Vec::new(),
                    stderr: "Recording started\nRecording completed\n".into(),
                    code: 0,
                },
                Err(e) => Reply::err(2, format!("{e}\n")),
            }
        }
        other => Reply::err(1, format!("Unknown io operation: {other}\n")),
    }
}

fn log_show(sim: &Simulator) -> Reply {
    let mut out = String::new();
    for (n, l) in sim.logs.iter().enumerate() {
        let line = J::obj(vec![
            ("traceID", J::Int(1234567890123 + n as i64)),
            ("eventMessage", J::s(&l.message)),
            ("eventType", J::s("logEvent")),
            ("source", J::Null),
            ("formatString", J::s(&l.message)),
            ("activityIdentifier", J::Int(0)),
            ("subsystem", J::s(&l.subsystem)),
            ("category", J::s(&l.category)),
            ("threadID", J::Int(4821 + n as i64)),
            ("senderImageUUID", J::s(uuid_like(&l.process_path))),
            ("backtrace", J::obj(vec![("frames", J::Arr(vec![]))])),
            ("bootUUID", J::s("")),
            ("processImagePath", J::s(&l.process_path)),
            ("senderImagePath", J::s(&l.process_path)),
            ("timestamp", J::s(&l.timestamp)),
            ("machTimestamp", J::Int(98765432101 + n as i64)),
            ("messageType", J::s(&l.level)),
            ("processImageUUID", J::s(uuid_like(&l.process_path))),
            ("processID", J::Int(l.pid as i64)),
            ("senderProgramCounter", J::Int(0)),
            ("parentActivityIdentifier", J::Int(0)),
            ("timezoneName", J::s("")),
        ]);
        // `log` prints compact JSON with `\/`, one event per line.
        out.push_str(&super::json::compact(&line).replace('/', "\\/"));
        out.push('\n');
    }
    out.push_str(&format!(
        "{{\"count\":{},\"finished\":1}}\n",
        sim.logs.len()
    ));
    Reply::out(out)
}

fn read_info_plist(app: &Path) -> Option<FakeApp> {
    let v = plist::Value::from_file(app.join("Info.plist")).ok()?;
    let d = v.as_dictionary()?;
    let s = |k: &str| d.get(k).and_then(|v| v.as_string()).map(str::to_string);
    let bundle_id = s("CFBundleIdentifier")?;
    let name = s("CFBundleName").unwrap_or_else(|| {
        app.file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    Some(FakeApp {
        bundle_id,
        name,
        display_name: s("CFBundleDisplayName"),
        kind: "User".into(),
        version: s("CFBundleVersion").unwrap_or_else(|| "1".into()),
        url_schemes: d
            .get("CFBundleURLTypes")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_dictionary()?.get("CFBundleURLSchemes")?.as_array())
            .flatten()
            .filter_map(|v| v.as_string().map(str::to_string))
            .collect(),
        executable: s("CFBundleExecutable"),
        container: None,
    })
}

/// Runs `simctl <args>` against the state; `stdin` feeds `pbcopy`.
pub(crate) fn run(state: &mut IosState, args: &[String], stdin: &[u8]) -> Reply {
    let Some(sub) = args.first() else {
        return Reply::err(
            1,
            "usage: simctl [--set <path>] [--profiles <path>] <subcommand> ...\n",
        );
    };
    let rest = &args[1..];
    macro_rules! booted {
        () => {
            match booted(state, rest.first()) {
                Ok(i) => i,
                Err(r) => return r,
            }
        };
    }
    match sub.as_str() {
        "list" => list(state, rest),
        "boot" => {
            let i = match rest.first().map(|a| resolve(state, a)) {
                Some(Ok(i)) => i,
                Some(Err(r)) => return r,
                None => return Reply::err(1, "Missing device argument.\n"),
            };
            let s = &mut state.simulators[i];
            if !s.available {
                return Reply::err(
                    165,
                    format!(
                        "{ENCOUNTERED} (domain=com.apple.CoreSimulator.SimError, code=421):\nUnable to boot device because we cannot determine the runtime bundle.\n"
                    ),
                );
            }
            if s.state == "Booted" {
                return Reply::err(
                    149,
                    format!(
                        "{ENCOUNTERED} (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to boot device in current state: Booted\n"
                    ),
                );
            }
            s.state = "Booted".into();
            s.last_booted_at = Some("2026-09-05T08:00:00Z".into());
            Reply::ok()
        }
        "shutdown" => {
            let i = match rest.first().map(|a| resolve(state, a)) {
                Some(Ok(i)) => i,
                Some(Err(r)) => return r,
                None => return Reply::err(1, "Missing device argument.\n"),
            };
            let s = &mut state.simulators[i];
            if s.state != "Booted" {
                return Reply::err(
                    149,
                    format!(
                        "{ENCOUNTERED} (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to shutdown device in current state: Shutdown\n"
                    ),
                );
            }
            s.state = "Shutdown".into();
            s.running.clear();
            s.foreground = None;
            Reply::ok()
        }
        "listapps" => {
            let i = booted!();
            let s = &state.simulators[i];
            let dict = P::Dict(
                s.apps
                    .iter()
                    .map(|a| (a.bundle_id.clone(), app_plist(&state.home, &s.udid, a)))
                    .collect(),
            );
            Reply::out(description(&dict))
        }
        "launch" => {
            let flags: Vec<&String> = rest.iter().take_while(|a| a.starts_with("--")).collect();
            let rest = &rest[flags.len()..];
            let i = match booted(state, rest.first()) {
                Ok(i) => i,
                Err(r) => return r,
            };
            let Some(bid) = rest.get(1) else {
                return Reply::err(1, "Missing bundle identifier.\n");
            };
            let s = &mut state.simulators[i];
            if !s.apps.iter().any(|a| &a.bundle_id == bid) {
                return Reply::err(
                    4,
                    format!(
                        "{ENCOUNTERED} (domain=FBSOpenApplicationServiceErrorDomain, code=4):\nSimulator device failed to launch {bid}.\nUnderlying error (domain=FBSOpenApplicationServiceErrorDomain, code=4):\n\tThe request to open \"{bid}\" failed.\n"
                    ),
                );
            }
            if flags.iter().any(|f| *f == "--terminate-running-process") {
                s.running.remove(bid);
            }
            // A running app is only brought to the front: it keeps the arguments it
            // was started with, which is why callers that pass `-AppleLanguages`
            // add `--terminate-running-process` (`simctl help launch`; see
            // fixtures/SOURCES.md).
            let pid = match s.running.get(bid).copied() {
                Some(pid) => {
                    s.foreground = Some(bid.clone());
                    pid
                }
                None => s.launch(bid, rest[2..].to_vec()),
            };
            Reply::out(format!("{bid}: {pid}\n"))
        }
        "terminate" => {
            let i = booted!();
            let Some(bid) = rest.get(1) else {
                return Reply::err(1, "Missing bundle identifier.\n");
            };
            let s = &mut state.simulators[i];
            if s.running.remove(bid).is_none() {
                return Reply::err(
                    3,
                    format!(
                        "{ENCOUNTERED} (domain=NSPOSIXErrorDomain, code=3):\nSimulator device failed to terminate {bid}.\nfound nothing to terminate\n"
                    ),
                );
            }
            if s.foreground.as_ref() == Some(bid) {
                s.foreground = None;
            }
            Reply::ok()
        }
        "install" => {
            let i = booted!();
            let Some(path) = rest.get(1) else {
                return Reply::err(1, "Missing application path.\n");
            };
            let p = Path::new(path);
            if !p.exists() {
                return Reply::err(
                    2,
                    format!(
                        "{ENCOUNTERED} (domain=NSPOSIXErrorDomain, code=2):\nSimulator device failed to install the application.\nlstat of {path} failed: No such file or directory\n"
                    ),
                );
            }
            let Some(app) = p.is_dir().then(|| read_info_plist(p)).flatten() else {
                return Reply::err(
                    22,
                    format!(
                        "{ENCOUNTERED} (domain=IXErrorDomain, code=13):\nSimulator device failed to install the application.\nMissing bundle ID.\n"
                    ),
                );
            };
            let s = &mut state.simulators[i];
            s.running.remove(&app.bundle_id);
            s.apps.retain(|a| a.bundle_id != app.bundle_id);
            s.apps.push(app);
            Reply::ok()
        }
        "uninstall" => {
            let i = booted!();
            let Some(bid) = rest.get(1) else {
                return Reply::err(1, "Missing bundle identifier.\n");
            };
            let s = &mut state.simulators[i];
            // Not verified on a Mac: an absent app is treated as success here.
            s.apps.retain(|a| &a.bundle_id != bid);
            s.running.remove(bid);
            crate::app_state::forget(s, bid);
            if s.foreground.as_ref() == Some(bid) {
                s.foreground = None;
            }
            Reply::ok()
        }
        "openurl" => {
            let i = booted!();
            let Some(url) = rest.get(1) else {
                return Reply::err(1, "Missing URL.\n");
            };
            let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
            let s = &mut state.simulators[i];
            let handler = match scheme.as_deref() {
                Some("http") | Some("https") => Some("com.apple.mobilesafari".to_string()),
                Some(sc) => s
                    .apps
                    .iter()
                    .find(|a| a.url_schemes.iter().any(|u| u.eq_ignore_ascii_case(sc)))
                    .map(|a| a.bundle_id.clone()),
                None => None,
            };
            let Some(handler) = handler else {
                return Reply::err(
                    115,
                    format!(
                        "{ENCOUNTERED} (domain=LSApplicationWorkspaceErrorDomain, code=115):\nSimulator device failed to open {url}.\n"
                    ),
                );
            };
            let sc = scheme.unwrap_or_default();
            if !matches!(sc.as_str(), "http" | "https") && !s.approved_schemes.contains(&sc) {
                // A custom scheme waits behind the system's "Open in “App”?"
                // confirmation; simctl has delivered the URL and exits 0
                // (expo/eas-cli#4274).
                let name = s
                    .apps
                    .iter()
                    .find(|a| a.bundle_id == handler)
                    .map(|a| a.shown_name().to_string())
                    .unwrap_or_default();
                s.alert = Some(super::state::FakeAlert {
                    title: format!("Open in “{name}”?"),
                    opens: handler,
                    url: url.clone(),
                });
                return Reply::ok();
            }
            s.opened_urls.push(url.clone());
            s.launch(&handler, Vec::new());
            Reply::ok()
        }
        "io" => {
            let i = booted!();
            io(state, i, &rest[1..])
        }
        "privacy" => {
            let i = booted!();
            crate::app_state::privacy(&mut state.simulators[i], rest)
        }
        "get_app_container" => {
            let i = booted!();
            crate::app_state::get_app_container(state, i, rest)
        }
        "spawn" => {
            let i = match rest.first().map(|a| resolve(state, a)) {
                Some(Ok(i)) => i,
                Some(Err(r)) => return r,
                None => return Reply::err(1, "Missing device argument.\n"),
            };
            if state.simulators[i].state != "Booted" {
                return Reply::err(
                    149,
                    format!(
                        "{ENCOUNTERED} (domain=com.apple.CoreSimulator.SimError, code=405):\nProcess spawn via launchd failed because device is not booted.\n"
                    ),
                );
            }
            match rest.get(1..3) {
                Some([a, b]) if a == "log" && b == "show" => log_show(&state.simulators[i]),
                _ => Reply::err(1, "fake-xcrun: only `spawn <udid> log show` is simulated\n"),
            }
        }
        "pbcopy" => {
            let i = booted!();
            state.simulators[i].clipboard = String::from_utf8_lossy(stdin).into_owned();
            Reply::ok()
        }
        "pbpaste" => {
            let i = booted!();
            Reply::out(state.simulators[i].clipboard.clone())
        }
        "location" => {
            let i = booted!();
            match rest.get(1).map(String::as_str) {
                Some("set") => {
                    let Some(v) = rest.get(2) else {
                        return Reply::err(1, "Missing location.\n");
                    };
                    let ok = v
                        .split_once(',')
                        .is_some_and(|(a, b)| a.parse::<f64>().is_ok() && b.parse::<f64>().is_ok());
                    if !ok {
                        return Reply::err(1, format!("Invalid location: {v}\n"));
                    }
                    state.simulators[i].location = Some(v.clone());
                    Reply::ok()
                }
                Some("clear") => {
                    state.simulators[i].location = None;
                    Reply::ok()
                }
                _ => Reply::err(
                    1,
                    "Usage: simctl location <device> [set|clear|list|run|start]\n",
                ),
            }
        }
        other => Reply::err(1, format!("Unrecognized subcommand: {other}\n")),
    }
}
