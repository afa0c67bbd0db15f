//! The on-device helper's dex is what its smali source assembles to: rebuilding it with
//! `scripts/build-helper.sh` (Debian's `smali`) gives the committed bytes, and Debian's
//! `dexdump` reads the class and every method the protocol needs. Needs `smali` and
//! `dexdump` (`scripts/test.sh` installs them); fails, never skips, without them.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const COMMITTED: &str = "crates/android/helper/mobile-mcp-helper.dex";

#[test]
fn rebuilding_the_helper_gives_the_committed_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("helper.dex");
    let run = Command::new(root().join("scripts/build-helper.sh"))
        .arg(&out)
        .output()
        .expect("run scripts/build-helper.sh");
    assert!(
        run.status.success(),
        "build-helper failed (are the Debian packages smali and dexdump installed?): {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let rebuilt = std::fs::read(&out).unwrap();
    let committed = std::fs::read(root().join(COMMITTED)).unwrap();
    assert!(
        rebuilt == committed,
        "the committed helper is not what its source assembles to: run scripts/build-helper.sh and commit the .dex ({} bytes rebuilt, {} committed)",
        rebuilt.len(),
        committed.len()
    );
}

#[test]
fn dexdump_reads_the_helper_class_and_its_methods() {
    let run = Command::new("dexdump")
        .arg(root().join(COMMITTED))
        .output()
        .expect("run dexdump (Debian package dexdump)");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let dump = String::from_utf8_lossy(&run.stdout);
    assert!(
        dump.contains("Class descriptor  : 'Lmobile/mcp/Helper;'"),
        "{dump}"
    );
    for method in [
        "main",
        "run",
        "decode",
        "service",
        "method",
        "call",
        "clipGet",
        "clipSet",
        "clipClear",
    ] {
        assert!(
            dump.contains(&format!("name          : '{method}'")),
            "no method {method} in {dump}"
        );
    }
    assert!(dump.contains("'([Ljava/lang/String;)V'"), "main(String[])");
}
