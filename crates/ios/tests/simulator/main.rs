//! `IosBackend` end to end against the fake toolchain (`fake-xcrun`, `fake-idb` from
//! the `fake-xcode` test crate): every tool call is checked on what the device answered,
//! on the exact argv the fake received, and on the fake's state afterwards.
//!
//! With `MOBILE_MCP_TEST_IOS=1` (macOS with Xcode, a booted simulator, idb installed)
//! the tests marked `real-capable` run against the real `xcrun`/`idb` found by
//! `IosConfig::from_env()` instead, skipping the fake-only checks (argv log, state).

mod apps;
mod discovery;
mod forwarding;
mod media;
mod profiles;
mod screen;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fake_xcode::{self as fake, BOOTED_UDID, LoggedCommand};
use mobile_device::{AppId, Device, DeviceBackend, DeviceState};
use mobile_ios::{IosBackend, IosConfig};

/// Every test body is bounded.
const TEST_DEADLINE: Duration = Duration::from_secs(120);

fn real() -> bool {
    std::env::var("MOBILE_MCP_TEST_IOS").is_ok_and(|v| v == "1")
}

/// Runs a test body under [`TEST_DEADLINE`]. Building the fakes (once per process,
/// possibly slow on a busy machine) happens before the clock starts.
fn run<F: Future<Output = ()>>(f: F) {
    if !real() {
        fake_bins();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::time::timeout(TEST_DEADLINE, f)
            .await
            .expect("test exceeded its deadline");
    });
}

/// The fake toolchain's binaries (built once per process when stale).
fn fake_bins() -> (PathBuf, PathBuf) {
    (
        test_support::cargo_bin("fake-xcode", "fake-xcrun"),
        test_support::cargo_bin("fake-xcode", "fake-idb"),
    )
}

/// A fresh fake Mac (or the real one) and a backend on it.
struct Harness {
    _dir: tempfile::TempDir,
    state: PathBuf,
    log: PathBuf,
    backend: IosBackend,
}

impl Harness {
    fn new() -> Harness {
        Self::with_idb(true)
    }

    fn with_idb(idb: bool) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        let log = dir.path().join("commands.jsonl");
        let config = if real() {
            IosConfig::from_env()
        } else {
            fake::write_default_state(&state).unwrap();
            let (xcrun, fake_idb) = fake_bins();
            IosConfig::with_tools(xcrun, idb.then_some(fake_idb))
                .timeout(Duration::from_secs(20))
                .env(fake::STATE_ENV, &state)
                .env(fake::LOG_ENV, &log)
        };
        Harness {
            _dir: dir,
            state,
            log,
            backend: IosBackend::new(config),
        }
    }

    /// The booted simulator: the fake's iPhone, or the first booted real one.
    async fn device(&self) -> Arc<dyn Device> {
        let found = self.backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.state == DeviceState::Online && (real() || d.id == BOOTED_UDID))
            .unwrap_or_else(|| panic!("no booted simulator: {found:?}"))
            .clone();
        self.backend.open(&info).await.unwrap()
    }

    fn commands(&self) -> Vec<LoggedCommand> {
        fake::read_command_log(&self.log).unwrap()
    }

    fn clear_log(&self) {
        let _ = std::fs::remove_file(&self.log);
    }

    /// Asserts the fake received exactly these calls since the last `clear_log`.
    fn assert_calls(&self, want: &[(&str, &[&str])]) {
        if real() {
            return;
        }
        let got: Vec<(String, Vec<String>)> = self
            .commands()
            .into_iter()
            .map(|c| (c.tool, c.argv))
            .collect();
        let want: Vec<(String, Vec<String>)> = want
            .iter()
            .map(|(t, a)| (t.to_string(), a.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(got, want);
        self.clear_log();
    }

    /// Changes the fake's state file (a profile, a scenario) before the test drives it.
    fn edit(&self, f: impl FnOnce(&mut fake::IosState)) {
        let mut state = fake::read_state(&self.state).unwrap();
        f(&mut state);
        state.save(&self.state).unwrap();
    }

    fn sim(&self) -> fake::Simulator {
        fake::read_state(&self.state)
            .unwrap()
            .simulator(BOOTED_UDID)
            .unwrap()
            .clone()
    }
}

fn app(id: &str) -> AppId {
    AppId::parse(id).unwrap()
}

const U: &str = BOOTED_UDID;
