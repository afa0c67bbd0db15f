//! The peer server (`@mobilenext/mobile-mcp`, run with node): how to spawn it in its two modes,
//! isolated from the user's HOME and adb, and where its detached helper daemon records its pid.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::client::{Kind, Spawn};

/// The peer in its default mode and in its legacy (`MOBILEMCP_LEGACY_ROBOT`) mode, with a
/// private HOME, an ANDROID_HOME whose `platform-tools/adb` is the system adb, and the
/// private adb server's port.
pub(crate) fn peer_spawns(peer_dir: &Path, work: &Path, adb_port: u16) -> Result<Vec<Spawn>> {
    let index = peer_dir.join("node_modules/@mobilenext/mobile-mcp/lib/index.js");
    anyhow::ensure!(index.is_file(), "{} not found", index.display());
    let home = work.join("peer-home");
    let android_home = work.join("android-home");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(android_home.join("platform-tools"))?;
    let link = android_home.join("platform-tools/adb");
    if !link.exists() {
        std::os::unix::fs::symlink("/usr/bin/adb", &link)?;
    }
    let base = vec![
        ("MOBILEMCP_DISABLE_TELEMETRY".to_string(), "1".to_string()),
        ("HOME".into(), home.display().to_string()),
        ("ANDROID_HOME".into(), android_home.display().to_string()),
        ("ANDROID_ADB_SERVER_PORT".into(), adb_port.to_string()),
        (
            "ADB_SERVER_SOCKET".into(),
            format!("tcp:127.0.0.1:{adb_port}"),
        ),
        ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
    ];
    let mut legacy = base.clone();
    legacy.push(("MOBILEMCP_LEGACY_ROBOT".into(), "1".into()));
    let mk = |kind, env| Spawn {
        kind,
        program: PathBuf::from("node"),
        args: vec![index.display().to_string()],
        env,
        stderr_log: work.join(format!("{}.stderr.log", Kind::key(kind))),
    };
    Ok(vec![
        mk(Kind::PeerDefault, base),
        mk(Kind::PeerLegacy, legacy),
    ])
}

/// The pid in the peer's `~/.mobilecli/daemon.pid` (a detached helper that outlives the server).
/// mobilecli 1.0.9 writes JSON there (`{"pid":N,"version":…}`); a bare number is accepted too.
pub(crate) fn peer_daemon_pid(work: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(work.join("peer-home/.mobilecli/daemon.pid")).ok()?;
    let text = text.trim();
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("pid").and_then(Value::as_u64))
        .and_then(|p| u32::try_from(p).ok())
        .or_else(|| text.parse().ok())
        .filter(|p| *p > 1)
}
