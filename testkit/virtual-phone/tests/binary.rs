//! The `virtual-phone` binary: flags, the printed address, `--adb-connect`, `--log`, `--state`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use virtual_phone::adb_server::PrivateAdbServer;

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn binary_registers_with_a_private_adb_server() {
    let adb = PrivateAdbServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cmds.jsonl");
    let scenario = dir.path().join("s.json");
    std::fs::write(&scenario, r#"{"props": {"ro.product.model": "Scenario Phone", "ro.product.name": "scn", "ro.product.device": "scn"}}"#).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_virtual-phone"))
        .args([
            "--port",
            "0",
            "--log",
            log.to_str().unwrap(),
            "--state",
            scenario.to_str().unwrap(),
        ])
        .args(["--adb-connect", &adb.port().to_string()])
        .envs(adb.env())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let guard = Kill(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("binary prints its address");
    let addr = first.strip_prefix("listening on ").unwrap().to_string();
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        format!("serial {addr}")
    );
    let connected = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(
        connected.contains(&format!("connected to {addr}")),
        "{connected}"
    );
    let out = adb
        .adb(&["-s", &addr, "shell", "getprop", "ro.product.model"])
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Scenario Phone\n");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("\"service\":\"shell:getprop ro.product.model\""),
        "{logged}"
    );
    let _ = adb.adb(&["disconnect", &addr]);
    drop(guard);
}

#[test]
fn binary_refuses_emulator_ports() {
    let out = Command::new(env!("CARGO_BIN_EXE_virtual-phone"))
        .args(["--port", "5560"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("5555-5585"));
}
