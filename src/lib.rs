//! Support code for the end-to-end tests in `tests/`: finding the workspace's built
//! binaries (the `mobile-mcp` server, the virtual phone, the fake `xcrun`/`idb`).
//! Test code only; not published.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// The workspace's target directory for the current profile (`target/debug`), found
/// from the running test executable (`target/debug/deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test exe has a parent");
    let dir = if deps.ends_with("deps") {
        deps.parent().expect("deps has a parent")
    } else {
        deps
    };
    dir.to_path_buf()
}

static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Path of binary `bin` of workspace package `package`, built (once per test process)
/// with `cargo build` so a test never runs a stale binary.
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    let key = format!("{package}/{bin}");
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !built.contains(&key) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--bin", bin]);
        if target_dir().ends_with("release") {
            cmd.arg("--release");
        }
        let status = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "cargo build -p {package} --bin {bin} failed"
        );
        built.push(key);
    }
    target_dir().join(bin)
}
