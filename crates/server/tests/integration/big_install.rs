//! A long install to cancel: the virtual phone behind a private adb server, a server on raw
//! stdio, and a 400 MiB package whose upload has begun (its first progress notification
//! arrived) when [`started`] returns.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::RawStdio;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

/// The request id of the install.
pub(crate) const INSTALL_ID: i64 = 9;
/// The package the install would add.
pub(crate) const PACKAGE: &str = "com.example.big";

/// Everything a cancelled-install test holds while it runs.
pub(crate) struct BigInstall {
    pub(crate) phone: PhoneHandle,
    pub(crate) wire: RawStdio,
    _adb: PrivateAdbServer,
    _dir: tempfile::TempDir,
}

/// Starts the install (with the payload filter variable `filter`) and waits until its
/// upload has begun.
pub(crate) fn started(filter: Option<&str>) -> BigInstall {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let adb = PrivateAdbServer::start().unwrap();
    adb.connect(&phone).unwrap();
    let server = format!("127.0.0.1:{}", adb.port());
    let mut w = RawStdio::start_with_env(
        crate::SERVER,
        &["--adb-server", &server],
        filter,
        &adb.env(),
    );
    w.initialize();
    let dir = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let apk = dir.path().join("big.apk");
    let mut bytes = virtual_phone::fake_apk(PACKAGE, "Big");
    bytes.resize(400 << 20, 0);
    std::fs::write(&apk, &bytes).unwrap();
    drop(bytes);
    w.send(
        &json!({"jsonrpc":"2.0","id":INSTALL_ID,"method":"tools/call","params":{
        "_meta": {"progressToken": 1},
        "name": "mobile_install_app",
        "arguments": {"device": phone.serial(), "path": apk.display().to_string()}}}),
    );
    let begun = Instant::now();
    loop {
        let line = w
            .next_line(Duration::from_secs(60))
            .expect("a progress notification");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(
            v["id"], INSTALL_ID,
            "the install finished before it could be cancelled: {v}"
        );
        if v["method"] == "notifications/progress" {
            break;
        }
        assert!(begun.elapsed() < Duration::from_secs(60));
    }
    BigInstall {
        phone,
        wire: w,
        _adb: adb,
        _dir: dir,
    }
}
