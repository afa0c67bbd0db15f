//! `fake-xcode`: the simulated Mac behind the `fake-xcrun` and `fake-idb` test programs.
//! A few iOS simulators are kept in a JSON state file, driven by the same argv the real
//! `xcrun simctl` and `idb` take, and answer in their formats, byte for byte where the
//! reference has captures (simctl's `"key" : value` JSON with `\/`, listapps' OpenStep
//! plist, `com.foo: 12345` launch lines, idb's one-line JSON and NDJSON), with their exit
//! codes and stderr sentences. Behaviour is modelled on fb-idb's source and public
//! captures, cited in `fixtures/SOURCES.md`, per profile (fb-idb 1.1.8 / 1.5.0).
//!
//! For: the tests of `mobile-ios` (`crates/ios/tests/simulator/`) and the server's iOS
//! end-to-end tests, which point `IosConfig` at the two programs (found with
//! `test_support::cargo_bin("fake-xcode", "fake-xcrun")`) and then read the state file
//! and the command log to check what the backend did.
//!
//! Screenshots are pictures of the state (`picture`): status bar, home screen icons or
//! the app's elements, the software keyboard under a focused field, alerts over a dimmed
//! screen, with real text drawn by `mobile_screenshot::text` so the labels idb lists can
//! be read off the image. That module is the one product crate it depends on, for text
//! drawing only.
//!
//! Not for: emulating a simulator beyond what those tests need (no runtimes, no real
//! apps, no UIKit layout: what idb lists is the state's element list), or for use
//! outside tests.
//!
//! ```
//! use fake_xcode::{BOOTED_UDID, default_state, run_xcrun};
//!
//! // In memory, no files: what `xcrun simctl list devices -j` would print.
//! let mut state = default_state();
//! let args: Vec<String> = ["simctl", "list", "devices", "-j"].map(String::from).to_vec();
//! let reply = run_xcrun(&mut state, &args, b"");
//! assert_eq!(reply.code, 0);
//! assert!(String::from_utf8_lossy(&reply.stdout).contains(BOOTED_UDID));
//! ```
//!
//! - `FAKE_IOS_STATE`: the state file ([`IosState`]); write one with [`write_default_state`].
//! - `FAKE_IOS_LOG`: optional; every call appends `{"tool":"xcrun"|"idb","argv":[…]}`
//!   as one JSON line. Read it with [`read_command_log`].
//!
//! Commands that change the device (boot, launch, terminate, install, uninstall,
//! openurl, taps that open apps or focus fields, typing, buttons, rotation, pbcopy,
//! location) rewrite the state file.

#![warn(missing_docs)]

mod app_state;
mod idb;
mod json;
mod keyboard;
mod openstep;
mod picture;
mod screen;
mod simctl;
mod state;
mod transition;

use std::io::{self, Read, Write};
use std::path::Path;

pub use idb::idb_can_type;
pub use screen::SPRINGBOARD;
pub use state::{
    BOOTED_UDID, FakeAlert, FakeApp, FakeLog, IDB_1_1, IDB_1_5, IosState, NOTES_BUNDLE, NOTES_NAME,
    SHUTDOWN_UDID, Simulator, UNAVAILABLE_UDID, UiElement, default_state,
};
pub use transition::Transition;

/// Environment variable naming the state file.
pub const STATE_ENV: &str = "FAKE_IOS_STATE";
/// Environment variable naming the command log (JSON lines).
pub const LOG_ENV: &str = "FAKE_IOS_LOG";

/// What one fake invocation prints and returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// What the tool prints on stdout.
    pub stdout: Vec<u8>,
    /// What the tool prints on stderr.
    pub stderr: String,
    /// The exit code.
    pub code: i32,
}

impl Reply {
    fn ok() -> Reply {
        Reply {
            stdout: Vec::new(),
            stderr: String::new(),
            code: 0,
        }
    }

    fn out(s: impl Into<String>) -> Reply {
        Reply {
            stdout: s.into().into_bytes(),
            stderr: String::new(),
            code: 0,
        }
    }

    fn err(code: i32, stderr: impl Into<String>) -> Reply {
        Reply {
            stdout: Vec::new(),
            stderr: stderr.into(),
            code,
        }
    }
}

/// One logged call of a fake tool.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoggedCommand {
    /// `xcrun` or `idb`.
    pub tool: String,
    /// The arguments after the program name.
    pub argv: Vec<String>,
}

/// Writes the default scenario ([`default_state`]) to `path`.
pub fn write_default_state(path: &Path) -> io::Result<()> {
    default_state().save(path)
}

/// Reads the state file.
pub fn read_state(path: &Path) -> io::Result<IosState> {
    IosState::load(path)
}

/// Reads the command log; a missing file is an empty log.
pub fn read_command_log(path: &Path) -> io::Result<Vec<LoggedCommand>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)))
        .collect()
}

fn log_command(tool: &str, argv: &[String]) {
    let Some(path) = std::env::var_os(LOG_ENV) else {
        return;
    };
    let entry = LoggedCommand {
        tool: tool.into(),
        argv: argv.to_vec(),
    };
    let Ok(mut line) = serde_json::to_string(&entry) else {
        return;
    };
    line.push('\n');
    // One write with O_APPEND keeps concurrent lines whole.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// Runs one fake command against the state file: loads it, runs, saves it if changed.
fn with_state(run: impl FnOnce(&mut IosState) -> Reply) -> Reply {
    let Some(path) = std::env::var_os(STATE_ENV) else {
        return Reply::err(
            70,
            format!(
                "fake iOS toolchain: set {STATE_ENV} to a state file (see fake_xcode::write_default_state)\n"
            ),
        );
    };
    let path = Path::new(&path);
    let mut state = match IosState::load(path) {
        Ok(s) => s,
        Err(e) => {
            return Reply::err(
                70,
                format!("fake iOS toolchain: cannot read {}: {e}\n", path.display()),
            );
        }
    };
    let before = state.clone();
    let reply = run(&mut state);
    if state != before
        && let Err(e) = state.save(path)
    {
        return Reply::err(
            70,
            format!("fake iOS toolchain: cannot write {}: {e}\n", path.display()),
        );
    }
    reply
}

/// Runs `xcrun <args>` against a state in memory (no files, no log).
pub fn run_xcrun(state: &mut IosState, args: &[String], stdin: &[u8]) -> Reply {
    match args.first().map(String::as_str) {
        Some("simctl") => simctl::run(state, &args[1..], stdin),
        Some(tool) => Reply::err(
            72,
            format!(
                "xcrun: error: unable to find utility \"{tool}\", not a developer tool or in PATH\n"
            ),
        ),
        None => Reply::err(64, "Usage: xcrun [options] <tool name> ... arguments ...\n"),
    }
}

/// Runs `idb <args>` against a state in memory (no files, no log).
pub fn run_idb(state: &mut IosState, args: &[String]) -> Reply {
    idb::run(state, args)
}

fn emit(reply: Reply) -> i32 {
    let _ = io::stdout().write_all(&reply.stdout);
    let _ = io::stdout().flush();
    let _ = io::stderr().write_all(reply.stderr.as_bytes());
    reply.code
}

/// `main` of `fake-xcrun`: returns the exit code.
pub fn xcrun_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    log_command("xcrun", &args);
    let mut stdin = Vec::new();
    if args.get(1).is_some_and(|s| s == "pbcopy") {
        let _ = io::stdin().read_to_end(&mut stdin);
    }
    emit(with_state(|s| run_xcrun(s, &args, &stdin)))
}

/// `main` of `fake-idb`: returns the exit code.
pub fn idb_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    log_command("idb", &args);
    emit(with_state(|s| run_idb(s, &args)))
}

static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Blocks until SIGINT or SIGTERM (as `simctl io recordVideo` does, up to ten minutes);
/// returns the seconds waited.
pub(crate) fn wait_for_sigint() -> u32 {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let start = std::time::Instant::now();
    while !STOP.load(std::sync::atomic::Ordering::SeqCst) && start.elapsed().as_secs() < 600 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    start.elapsed().as_secs() as u32
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_app_state;
#[cfg(test)]
mod tests_profiles;
