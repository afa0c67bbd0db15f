//! `adb_client` 3.2.3 against the virtual phone: through a private adb server, through the
//! adb-server front end, and by direct TCP.
//! Direct-TCP calls run on a worker thread with a deadline (the crate has no read timeout).

mod common;

use std::io::Cursor;
use std::net::SocketAddrV4;
use std::sync::mpsc;
use std::time::Duration;

use adb_client::ADBDeviceExt;
use common::Rig;
use virtual_phone::{AdbFrontEnd, PhoneConfig, VirtualPhone, fake_apk};

/// Runs `f` on a thread; panics if it takes longer than `secs`.
fn with_deadline<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("adb_client call hung")
}

fn exercise(device: &mut dyn ADBDeviceExt, tag: &str) -> Result<(), String> {
    let mut out = Vec::new();
    device
        .shell_command(&format!("echo {tag}"), Some(&mut out), None)
        .map_err(|e| e.to_string())?;
    if out != format!("{tag}\n").into_bytes() {
        return Err(format!("shell output {:?}", String::from_utf8_lossy(&out)));
    }
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    device
        .push(
            &mut Cursor::new(data.clone()),
            &format!("/sdcard/{tag}.bin"),
        )
        .map_err(|e| e.to_string())?;
    let mut back = Vec::new();
    device
        .pull(&format!("/sdcard/{tag}.bin"), &mut back)
        .map_err(|e| e.to_string())?;
    if back != data {
        return Err(format!("pull returned {} bytes", back.len()));
    }
    let png = device.framebuffer_bytes().map_err(|e| e.to_string())?;
    let img = image::load_from_memory(&png).map_err(|e| e.to_string())?;
    if (img.width(), img.height()) != (1080, 2400) {
        return Err(format!("framebuffer {}x{}", img.width(), img.height()));
    }
    Ok(())
}

#[test]
fn adb_client_through_the_private_server() {
    let rig = Rig::new();
    // adb_client runs `adb start-server` without -P for loopback servers: point it at ours.
    for (k, v) in rig.adb.env() {
        // SAFETY-free in Rust 2024 terms: set_var is unsafe because of concurrent readers; this
        // test binary's other tests only read the environment through child processes.
        unsafe { std::env::set_var(k, v) };
    }
    let addr: SocketAddrV4 = rig.adb.socket_addr();
    let serial = rig.phone.serial();
    let dir = tempfile::tempdir().unwrap();
    let apk = dir.path().join("clock.apk");
    std::fs::write(&apk, fake_apk("com.example.clock", "Clock")).unwrap();
    let result = with_deadline(60, move || -> Result<(), String> {
        let mut server = adb_client::server::ADBServer::new(addr);
        let devices = server.devices_long().map_err(|e| e.to_string())?;
        if !devices.iter().any(|d| d.identifier == serial) {
            return Err(format!("{devices:?}"));
        }
        let mut device = server
            .get_device_by_name(&serial)
            .map_err(|e| e.to_string())?;
        exercise(&mut device, "viaserver")?;
        device
            .install(&apk, None)
            .map_err(|e| format!("install: {e}"))?;
        let mut exec_out = Vec::new();
        device
            .shell_command(&"pm list packages -3", Some(&mut exec_out), None)
            .map_err(|e| e.to_string())?;
        if !String::from_utf8_lossy(&exec_out).contains("package:com.example.clock") {
            return Err(String::from_utf8_lossy(&exec_out).into_owned());
        }
        device
            .uninstall("com.example.clock", None)
            .map_err(|e| format!("uninstall: {e}"))?;
        Ok(())
    });
    result.unwrap();
    assert!(
        rig.phone
            .commands()
            .iter()
            .any(|r| r.service.starts_with("exec:cmd package 'install' -S "))
    );
    assert!(rig.phone.injections().is_empty());
}

#[test]
fn adb_client_through_the_front_end() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let front = AdbFrontEnd::start(&phone).unwrap();
    let home = tempfile::tempdir().unwrap();
    // adb_client runs `adb start-server` for loopback servers: that client then finds the front
    // end on this port (same version) and starts nothing.
    for (k, v) in [
        ("ANDROID_ADB_SERVER_PORT", front.addr().port().to_string()),
        ("HOME", home.path().display().to_string()),
    ] {
        // SAFETY: as above; set before any thread of this test reads the environment.
        unsafe { std::env::set_var(k, v) };
    }
    let addr = front.addr();
    let serial = phone.serial();
    let result = with_deadline(60, move || -> Result<(), String> {
        let mut server = adb_client::server::ADBServer::new(addr);
        let devices = server.devices_long().map_err(|e| e.to_string())?;
        if !devices.iter().any(|d| d.identifier == serial) {
            return Err(format!("{devices:?}"));
        }
        let mut device = server
            .get_device_by_name(&serial)
            .map_err(|e| e.to_string())?;
        exercise(&mut device, "viafront")
    });
    result.unwrap();
    let services: Vec<String> = phone.commands().into_iter().map(|r| r.service).collect();
    assert!(
        services.iter().any(|s| s == "shell:echo viafront"),
        "{services:?}"
    );
    assert!(services.iter().any(|s| s == "sync:"), "{services:?}");
    assert!(phone.injections().is_empty());
}

#[test]
fn adb_client_direct_tcp() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let addr = phone.addr();
    let home = tempfile::tempdir().unwrap();
    let key_dir = home.path().to_path_buf();
    let result = with_deadline(60, move || -> Result<(), String> {
        let key = key_dir.join("adbkey");
        let mut device = adb_client::tcp::ADBTcpDevice::new_with_custom_private_key(addr, key)
            .map_err(|e| e.to_string())?;
        exercise(&mut device, "direct")
    });
    result.unwrap();
    let services: Vec<String> = phone.commands().into_iter().map(|r| r.service).collect();
    assert!(
        services.iter().any(|s| s == "shell:echo direct"),
        "{services:?}"
    );
    assert!(services.iter().any(|s| s == "framebuffer:"), "{services:?}");
    phone.stop();
}
