//! End to end on iOS: the built binary driven by rmcp's client over stdio, with the same
//! tool calls in two modes.
//!
//! - Fake (default): `MOBILE_MCP_XCRUN`/`MOBILE_MCP_IDB` point at the fake toolchain
//!   (`fake-xcrun`, `fake-idb`), beside the virtual Android phone behind a private adb
//!   server. Also checks the exact argv the fakes received and their state afterwards.
//! - Real (`MOBILE_MCP_TEST_IOS=1`; macOS with Xcode, idb and a booted simulator): the
//!   user's `xcrun`/`idb` (their `MOBILE_MCP_XCRUN`/`MOBILE_MCP_IDB` if set, else `PATH`).
//!   Effects are checked through what the simulator itself offers: `simctl spawn UDID
//!   launchctl list` for running apps, `simctl listapps` for installs, the screenshot's
//!   decoded size. Never run from here (no Mac); see docs/verification.md.
//!
//! What a mode may expect of its device is one [`Expect`] value, and how it looks at an
//! effect is one method of [`Mac`]; the test bodies are the same for both modes.
//!
//! The helpers and both modes' setup are here; the test bodies are in `suite`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use fake_xcode::{
    BOOTED_UDID, LoggedCommand, NOTES_BUNDLE, NOTES_NAME, SHUTDOWN_UDID, read_command_log,
    read_state, write_default_state,
};
use mobile_device::{Element, Orientation, ScreenSize};
use rmcp::model::ContentBlock;
use serde_json::{Value, json};
use test_support::{McpChild, run_with_deadline, text_of};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

mod launch;
mod profiles;
mod settle;
mod suite;

/// `1` runs the suite against a Mac's real simulators.
const REAL_ENV: &str = "MOBILE_MCP_TEST_IOS";
/// Real mode: the booted simulator to use (default: the first booted iOS simulator).
const UDID_ENV: &str = "MOBILE_MCP_TEST_IOS_UDID";
/// Real mode: an installed app to launch and terminate (default: Settings).
const APP_ENV: &str = "MOBILE_MCP_TEST_IOS_APP";
/// Real mode: a simulator build (an `.app` folder) to install and uninstall (default: none,
/// and that step is skipped; a real simulator installs only a real build).
const INSTALL_ENV: &str = "MOBILE_MCP_TEST_IOS_INSTALL_APP";
/// Real mode: bound on each of the suite's own `xcrun`/`plutil` calls.
const TOOL_DEADLINE: Duration = Duration::from_secs(60);
/// Real mode: how long a launch or terminate may take to show in `launchctl list`.
const SETTLE: Duration = Duration::from_secs(15);
/// On every simulator, and what an `https` URL opens.
const SAFARI: &str = "com.apple.mobilesafari";

/// What the suite may expect of the simulator it drives: one value per mode.
struct Expect {
    /// The booted simulator every call goes to.
    udid: String,
    /// A simulator known to be shut down, for the boot hint.
    shutdown_udid: Option<String>,
    /// An installed app to list, launch and terminate.
    app: String,
    /// Its name in `mobile_list_apps`, when known.
    app_name: Option<String>,
    /// The screen in points and its scale, when known in advance.
    screen: Option<(u32, u32, f64)>,
    /// A simulator `.app` folder to install and uninstall, and its bundle id.
    install: Option<(PathBuf, String)>,
    /// An installed app whose id the payload filter hides (so it is listed as a token);
    /// the filter test uses `app` when there is none.
    filtered_app: Option<String>,
    /// The virtual Android phone is listed beside the simulators.
    android_neighbour: bool,
    /// Bound on one whole test.
    deadline: Duration,
}

/// Where the simulators come from, and how the suite looks at what a tool call did.
enum Mac {
    /// The fake toolchain; its state file and command log live in `dir`.
    Fake {
        dir: tempfile::TempDir,
        expect: Expect,
    },
    /// The real toolchain: what the server is told to run (a path or a name on `PATH`).
    Real {
        xcrun: String,
        idb: String,
        expect: Expect,
    },
}

impl Mac {
    /// Real with `MOBILE_MCP_TEST_IOS=1`, else fake. Panics at once, saying what is
    /// missing, when the real toolchain or a booted simulator is not there.
    async fn from_env() -> Mac {
        if std::env::var(REAL_ENV).is_ok_and(|v| v == "1") {
            Mac::real().await
        } else {
            Mac::fake()
        }
    }

    fn fake() -> Mac {
        let dir = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        write_default_state(&dir.path().join("state.json")).unwrap();
        let app = dir.path().join("Hello.app");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(app.join("Info.plist"), br#"<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.hello</string><key>CFBundleName</key><string>Hello</string></dict></plist>"#).unwrap();
        let expect = Expect {
            udid: BOOTED_UDID.into(),
            shutdown_udid: Some(SHUTDOWN_UDID.into()),
            // A name with spaces, quotes and CJK.
            app: NOTES_BUNDLE.into(),
            app_name: Some(NOTES_NAME.into()),
            screen: Some((402, 874, 3.0)),
            install: Some((app, "com.example.hello".into())),
            filtered_app: Some("com.alibaba.qwen".into()),
            android_neighbour: true,
            deadline: Duration::from_secs(240),
        };
        Mac::Fake { dir, expect }
    }

    /// The fake toolchain with its state file changed by `edit` (given the state and the
    /// fake's folder) before the server starts; `None` when the suite runs against a real
    /// Mac, where the state cannot be set.
    fn fake_with(edit: impl FnOnce(&mut fake_xcode::IosState, &Path)) -> Option<Mac> {
        if std::env::var(REAL_ENV).is_ok_and(|v| v == "1") {
            return None;
        }
        let mac = Mac::fake();
        let Mac::Fake { dir, .. } = &mac else {
            unreachable!()
        };
        let state_path = dir.path().join("state.json");
        let mut state = read_state(&state_path).unwrap();
        edit(&mut state, dir.path());
        state.save(&state_path).unwrap();
        Some(mac)
    }

    async fn real() -> Mac {
        let xcrun = std::env::var("MOBILE_MCP_XCRUN").unwrap_or_else(|_| "xcrun".into());
        let idb = std::env::var("MOBILE_MCP_IDB").unwrap_or_else(|_| "idb".into());
        let list = run_real(&xcrun, &["simctl", "list", "devices", "-j"]).await;
        let sims = ios_simulators(&list);
        let booted = |s: &&SimEntry| s.state == "Booted";
        let udid = match std::env::var(UDID_ENV) {
            Ok(udid) => {
                assert!(
                    sims.iter().filter(booted).any(|s| s.udid == udid),
                    "{UDID_ENV}={udid} is not a booted iOS simulator; boot it with `xcrun simctl boot {udid}`"
                );
                udid
            }
            Err(_) => sims.iter().find(booted).map(|s| s.udid.clone()).unwrap_or_else(|| {
                panic!("{REAL_ENV}=1: no booted iOS simulator; boot one with `xcrun simctl boot <udid>` (udids from `xcrun simctl list devices`), or open Simulator.app")
            }),
        };
        assert!(
            is_runnable(&idb),
            "{REAL_ENV}=1: idb ({idb}) was not found; install it (`brew install facebook/fb/idb-companion` and `pip install fb-idb`) or set MOBILE_MCP_IDB"
        );
        let shutdown_udid = sims
            .iter()
            .find(|s| s.state == "Shutdown" && s.available)
            .map(|s| s.udid.clone());
        let (app, app_name) = match std::env::var(APP_ENV) {
            Ok(app) => (app, None),
            Err(_) => ("com.apple.Preferences".into(), Some("Settings".into())),
        };
        let install = match std::env::var_os(INSTALL_ENV) {
            Some(path) => {
                let path = PathBuf::from(path);
                let plist = path.join("Info.plist");
                let plist = plist.to_string_lossy();
                let id = run_real(
                    "plutil",
                    &["-extract", "CFBundleIdentifier", "raw", "-o", "-", &plist],
                )
                .await;
                Some((path, String::from_utf8_lossy(&id).trim().to_string()))
            }
            None => None,
        };
        let expect = Expect {
            udid,
            shutdown_udid,
            app,
            app_name,
            screen: None,
            install,
            filtered_app: None,
            android_neighbour: false,
            deadline: Duration::from_secs(600),
        };
        Mac::Real { xcrun, idb, expect }
    }

    fn expect(&self) -> &Expect {
        match self {
            Mac::Fake { expect, .. } | Mac::Real { expect, .. } => expect,
        }
    }

    /// Environment for the server: the `xcrun`/`idb` it runs (and the fake's files).
    fn env(&self) -> Vec<(String, String)> {
        match self {
            Mac::Fake { dir, .. } => vec![
                (
                    "MOBILE_MCP_XCRUN".into(),
                    test_support::cargo_bin("fake-xcode", "fake-xcrun")
                        .display()
                        .to_string(),
                ),
                (
                    "MOBILE_MCP_IDB".into(),
                    test_support::cargo_bin("fake-xcode", "fake-idb")
                        .display()
                        .to_string(),
                ),
                (
                    "FAKE_IOS_STATE".into(),
                    dir.path().join("state.json").display().to_string(),
                ),
                (
                    "FAKE_IOS_LOG".into(),
                    dir.path().join("log.jsonl").display().to_string(),
                ),
            ],
            Mac::Real { xcrun, idb, .. } => vec![
                ("MOBILE_MCP_XCRUN".into(), xcrun.clone()),
                ("MOBILE_MCP_IDB".into(), idb.clone()),
            ],
        }
    }

    /// Server arguments and environment for the simulators alone (no Android phone).
    /// The fake mode names an adb server where nothing answers and hides `adb`, so the
    /// server does not start one there (as root it could, on port 1, and it outlived the
    /// test); the real mode leaves adb to the user's setup.
    fn without_android(&self) -> (Vec<String>, Vec<(String, String)>) {
        match self {
            Mac::Fake { .. } => (
                vec!["--adb-server".into(), "127.0.0.1:1".into()],
                vec![
                    ("PATH".into(), "/nonexistent".into()),
                    ("ANDROID_HOME".into(), "/nonexistent".into()),
                ],
            ),
            Mac::Real { .. } => (Vec::new(), Vec::new()),
        }
    }

    /// The server on the simulators alone ([`Self::without_android`]), with `extra`
    /// arguments.
    async fn ios_server(&self, extra: &[&str]) -> McpChild {
        let (mut args, no_adb) = self.without_android();
        args.extend(extra.iter().map(|a| a.to_string()));
        let mut env = self.env();
        env.extend(no_adb);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        McpChild::spawn(crate::SERVER, &args, &env).await
    }

    /// Hands the commands the fakes received since the last look to `check`, and clears
    /// the log. The real tools keep no such log: `check` is not called.
    fn check_log(&self, check: impl FnOnce(&[LoggedCommand])) {
        if let Mac::Fake { dir, .. } = self {
            let path = dir.path().join("log.jsonl");
            let log = read_command_log(&path).unwrap();
            let _ = std::fs::remove_file(&path);
            check(&log);
        }
    }

    fn clear_log(&self) {
        self.check_log(|_| {});
    }

    /// `bundle` was launched: the fake's foreground app, or a running launchd job of the
    /// real simulator.
    async fn assert_launched(&self, bundle: &str) {
        match self {
            Mac::Fake { .. } => assert_eq!(self.fake_sim().foreground.as_deref(), Some(bundle)),
            Mac::Real { .. } => self.wait_for_launchd(bundle, true).await,
        }
    }

    /// `bundle` no longer runs.
    async fn assert_terminated(&self, bundle: &str) {
        match self {
            Mac::Fake { .. } => assert!(
                !self.fake_sim().running.contains_key(bundle),
                "{bundle} still runs"
            ),
            Mac::Real { .. } => self.wait_for_launchd(bundle, false).await,
        }
    }

    /// `bundle` is installed (or not): the fake's state, or `simctl listapps`.
    async fn assert_installed(&self, bundle: &str, installed: bool) {
        let listed = match self {
            Mac::Fake { .. } => self.fake_sim().apps.iter().any(|a| a.bundle_id == bundle),
            Mac::Real { xcrun, expect, .. } => {
                let apps = run_real(xcrun, &["simctl", "listapps", &expect.udid]).await;
                // Bundle ids are the top-level keys, quoted: `"com.example.app" =`.
                String::from_utf8_lossy(&apps).contains(&format!("\"{bundle}\" ="))
            }
        };
        assert_eq!(listed, installed, "{bundle} installed");
    }

    fn fake_sim(&self) -> fake_xcode::Simulator {
        let Mac::Fake { dir, expect } = self else {
            unreachable!("the fake's state is read in fake mode only")
        };
        read_state(&dir.path().join("state.json"))
            .unwrap()
            .simulator(&expect.udid)
            .unwrap()
            .clone()
    }

    /// Polls the real simulator's `launchctl list` until `bundle` runs (or does not).
    async fn wait_for_launchd(&self, bundle: &str, running: bool) {
        let Mac::Real { xcrun, expect, .. } = self else {
            unreachable!("launchctl is asked in real mode only")
        };
        let started = std::time::Instant::now();
        loop {
            let list = run_real(
                xcrun,
                &["simctl", "spawn", &expect.udid, "launchctl", "list"],
            )
            .await;
            let list = String::from_utf8_lossy(&list);
            if launchd_runs(&list, bundle) == running {
                return;
            }
            assert!(
                started.elapsed() < SETTLE,
                "after {SETTLE:?}, `launchctl list` still says {bundle} {}:\n{}",
                if running { "is not running" } else { "runs" },
                list.lines()
                    .filter(|l| l.contains("UIKitApplication:"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// One simulator of an iOS runtime in `simctl list devices -j`.
struct SimEntry {
    udid: String,
    state: String,
    available: bool,
}

/// The simulators of iOS runtimes (keys `com.apple.CoreSimulator.SimRuntime.iOS-18-5`, or
/// `iOS 12.1` before Xcode 10.1), in listing order.
fn ios_simulators(list: &[u8]) -> Vec<SimEntry> {
    let v: Value = serde_json::from_slice(list).unwrap_or_else(|e| {
        panic!(
            "`simctl list devices -j` is not JSON ({e}): {}",
            String::from_utf8_lossy(list)
        )
    });
    let Some(runtimes) = v["devices"].as_object() else {
        panic!("`simctl list devices -j` has no devices object: {v}")
    };
    runtimes
        .iter()
        .filter(|(runtime, _)| runtime.contains("iOS"))
        .filter_map(|(_, sims)| sims.as_array())
        .flatten()
        .filter_map(|s| {
            Some(SimEntry {
                udid: s["udid"].as_str()?.to_string(),
                state: s["state"].as_str()?.to_string(),
                available: s["isAvailable"].as_bool().unwrap_or(true),
            })
        })
        .collect()
}

/// Whether `launchctl list` (tab-separated PID, status, label; PID `-` for an app that
/// exited) shows `bundle` running as an app (`UIKitApplication:<bundle>[…]`).
fn launchd_runs(list: &str, bundle: &str) -> bool {
    let job = format!("UIKitApplication:{bundle}[");
    list.lines().any(|line| {
        let mut fields = line.split('\t');
        let pid = fields.next().unwrap_or_default();
        let label = fields.nth(1).unwrap_or_default();
        pid.trim().parse::<u32>().is_ok() && label.starts_with(&job)
    })
}

/// Runs one of the real toolchain's commands; panics with its output if it fails, and
/// says the mode needs a Mac if it cannot be started at all.
async fn run_real(program: &str, args: &[&str]) -> Vec<u8> {
    let out = run_with_deadline(program, args, TOOL_DEADLINE)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{REAL_ENV}=1 runs the suite against real simulators and needs macOS with Xcode, idb and a booted simulator (this is {}): {e}",
                std::env::consts::OS
            )
        });
    assert!(
        out.status.success(),
        "`{program} {}` failed ({}): {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A path to an executable file, or a name found on `PATH` (as the server resolves it).
fn is_runnable(tool: &str) -> bool {
    if tool.contains('/') {
        return Path::new(tool).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(tool).is_file()))
}

/// The virtual Android phone behind a private adb server, listed beside the simulators.
struct AndroidNeighbour {
    phone: PhoneHandle,
    adb: PrivateAdbServer,
}

impl AndroidNeighbour {
    fn start() -> AndroidNeighbour {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        AndroidNeighbour { phone, adb }
    }
}

fn has_argv(log: &[LoggedCommand], tool: &str, argv: &[&str]) -> bool {
    log.iter()
        .any(|c| c.tool == tool && c.argv.iter().map(String::as_str).eq(argv.iter().copied()))
}

#[test]
fn launchd_list_shows_running_apps_only() {
    // The shape of `xcrun simctl spawn UDID launchctl list`, as in public tests of tools
    // that read it (PID `-` once an app exited).
    let list = "PID\tStatus\tLabel\n\
        81046\t0\tUIKitApplication:com.apple.mobilesafari[e334][rb-legacy]\n\
        -\t0\tUIKitApplication:com.apple.Preferences[90ff][rb-legacy]\n\
        90210\t0\tUIKitApplication:com.apple.PreferencesExtra[77aa][rb-legacy]\n\
        392\t0\tcom.apple.backboardd\n";
    assert!(launchd_runs(list, "com.apple.mobilesafari"));
    assert!(!launchd_runs(list, "com.apple.Preferences"));
    assert!(!launchd_runs(list, "com.apple.backboardd"));
    assert!(!launchd_runs(list, "com.example.missing"));
}
