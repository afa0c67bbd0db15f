//! The adb-server front end against the real adb server (Debian adb 29.0.6), differentially: the
//! same phone behind both, the same requests to both, and the same answer bytes (and the same
//! phone records) expected. Both list the phone as `phone.serial()`, and the real server's first
//! transport has id 1 like the front end's, so no serial needs rewriting; `transport_id:` values
//! and the 8-byte `tport` ids are still compared modulo their value.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use common::Rig;
use virtual_phone::adb_server::run_with_timeout;
use virtual_phone::{AdbFrontEnd, CommandRecord, fake_apk};

/// One thing a client does on a connection.
enum Step<'a> {
    /// A framed host request; its 4-byte status is read (plus the 8-byte id after a `tport:`
    /// OKAY). A FAIL ends the exchange.
    Host(&'a str),
    /// A framed device service request; its status is read. A FAIL ends the exchange.
    Service(&'a str),
    /// Raw bytes for the open service.
    Raw(Vec<u8>),
}
use Step::*;

fn framed(request: &str) -> Vec<u8> {
    let mut v = format!("{:04x}", request.len()).into_bytes();
    v.extend_from_slice(request.as_bytes());
    v
}

fn read_exact_or_eof(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match s.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) => panic!("read: {e}"),
        }
    }
    buf.truncate(got);
    buf
}

/// Runs the steps on a fresh connection to `addr` and returns every byte received until EOF.
fn talk(addr: SocketAddrV4, steps: &[Step]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut got = Vec::new();
    for step in steps {
        let (bytes, request) = match step {
            Host(r) | Service(r) => (framed(r), Some(*r)),
            Raw(b) => (b.clone(), None),
        };
        s.write_all(&bytes).unwrap();
        let Some(request) = request else { continue };
        let status = read_exact_or_eof(&mut s, 4);
        got.extend_from_slice(&status);
        if status != b"OKAY" {
            break;
        }
        if matches!(step, Host(_)) && request.starts_with("host:tport:") {
            got.extend_from_slice(&read_exact_or_eof(&mut s, 8));
        }
    }
    if let Err(e) = s.read_to_end(&mut got) {
        // Still open after the timeout (or broken): part of what is compared.
        got.extend_from_slice(format!("<{:?}>", e.kind()).as_bytes());
    }
    got
}

/// Rewrites transport ids (`transport_id:N` in a listing, the 8-byte `tport` id) to `#`.
fn without_ids(steps: &[Step], mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(Host(r)) = steps.first()
        && r.starts_with("host:tport:")
        && bytes.starts_with(b"OKAY")
        && bytes.len() >= 12
    {
        bytes.splice(4..12, *b"########");
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if !text.contains("transport_id:") {
        return bytes;
    }
    let mut out = String::new();
    for (i, part) in text.split("transport_id:").enumerate() {
        if i > 0 {
            out.push_str("transport_id:#");
            out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
        } else {
            out.push_str(part);
        }
    }
    // The length prefix may differ with the id's digits: compare the body only.
    out.replace_range(4..8.min(out.len()), "####");
    out.into_bytes()
}

/// What a record says, without its sequence number and time.
fn essence(records: Vec<CommandRecord>) -> Vec<CommandRecord> {
    records
        .into_iter()
        .map(|r| CommandRecord {
            seq: 0,
            timestamp_ms: 0,
            ..r
        })
        .collect()
}

struct Pair {
    rig: Rig,
    front: AdbFrontEnd,
}

impl Pair {
    fn new() -> Pair {
        let rig = Rig::new();
        let front = AdbFrontEnd::start(&rig.phone).unwrap();
        Pair { rig, front }
    }

    /// Runs the exchange through both servers; returns a description of any difference.
    fn differs(&self, steps: &[Step]) -> Option<String> {
        let phone = &self.rig.phone;
        phone.clear_log();
        let real = without_ids(steps, talk(self.rig.adb.socket_addr(), steps));
        let real_log = essence(phone.commands());
        phone.clear_log();
        let ours = without_ids(steps, talk(self.front.addr(), steps));
        let our_log = essence(phone.commands());
        let name = describe(steps);
        if real != ours {
            return Some(format!(
                "{name}: real {:?}\n  front end {:?}",
                preview(&real),
                preview(&ours)
            ));
        }
        if real_log != our_log {
            return Some(format!(
                "{name}: records differ\n  real {real_log:?}\n  front end {our_log:?}"
            ));
        }
        None
    }

    fn assert_same(&self, cases: &[Vec<Step>]) {
        let diffs: Vec<String> = cases.iter().filter_map(|c| self.differs(c)).collect();
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}

fn describe(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Host(r) | Service(r) => r.to_string(),
            Raw(b) => format!("<{} raw bytes>", b.len()),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn preview(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(160)];
    format!("{} ({} bytes)", String::from_utf8_lossy(head), bytes.len())
}

#[test]
fn host_services_answer_like_the_real_server() {
    let pair = Pair::new();
    let serial = pair.rig.phone.serial();
    let s = |fmt: &str| fmt.replace("SERIAL", &serial);
    let requests: Vec<String> = [
        "host:version",
        "host:devices",
        "host:devices-l",
        "host:features",
        "host-serial:SERIAL:features",
        "host-serial:SERIAL:get-state",
        "host-serial:SERIAL:get-serialno",
        "host-serial:SERIAL:get-devpath",
        "host-serial:tcp:SERIAL:get-state",
        "host-serial:model:Pixel_7:get-state",
        "host-serial:model:Pixel 7:get-state",
        "host-serial:device:panther:get-state",
        "host-serial:udp:SERIAL:get-state",
        "host:transport:tcp:SERIAL",
        "host:transport:127.0.0.1",
        "host:transport:localhost:1",
        "host-serial:product:panther:get-state",
        "host-serial:nope:get-state",
        "host-serial:nope:features",
        "host:get-state",
        "host:get-serialno",
        "host-local:get-state",
        "host-usb:get-state",
        "host-transport-id:1:get-state",
        "host-transport-id:7:get-state",
        "host:host-features",
        "host:frobnicate",
        "host:track-nothing",
        "host:transport:nope",
        "host:tport:serial:nope",
        "host:transport-id:99",
        "host:transport-id:x",
        "host:transport-usb",
        "host:tport:usb",
        "shell:echo hi",
        "sync:",
        "frob",
    ]
    .iter()
    .map(|r| s(r))
    .collect();
    // A switch that succeeds keeps the connection open: follow it with a request that closes it.
    let cases: Vec<Vec<Step>> = requests
        .iter()
        .map(|r| {
            if r.starts_with("host:transport") || r.starts_with("host:tport:") {
                vec![Host(r), Host("host:get-serialno")]
            } else {
                vec![Host(r)]
            }
        })
        .collect();
    pair.assert_same(&cases);
}

#[test]
fn device_services_after_every_transport_switch() {
    let pair = Pair::new();
    let serial = pair.rig.phone.serial();
    let switches = [
        format!("host:transport:{serial}"),
        "host:transport-any".to_string(),
        "host:transport-local".to_string(),
        format!("host:tport:serial:{serial}"),
        "host:tport:any".to_string(),
        "host:tport:local".to_string(),
        "host:transport-id:1".to_string(),
    ];
    let services = [
        "shell:echo hi",
        "exec:echo hi",
        "shell:getprop ro.product.model",
        "shell:echo hi; reboot",
        "shell:frobnicate",
        "shell,v2,raw:echo hi",
        "reboot:",
        "host:version",
        "host:features",
        "host:get-state",
    ];
    let mut cases = Vec::new();
    for switch in &switches {
        for service in services {
            let step = if service.starts_with("host:") {
                Host(service)
            } else {
                Service(service)
            };
            cases.push(vec![Host(switch), step]);
        }
    }
    pair.assert_same(&cases);
}

#[test]
fn exec_with_stdin_sync_and_framebuffer_match() {
    let pair = Pair::new();
    let phone = &pair.rig.phone;
    let serial = phone.serial();
    let transport = format!("host:transport:{serial}");
    phone.update_state(|s| {
        s.files.insert(
            "/sdcard/probe.txt".into(),
            virtual_phone::state::FileEntry {
                data: b"probe contents\n".to_vec(),
                mode: 0o100_644,
                mtime: 1_700_000_000,
            },
        );
    });
    let sync_req = |id: &[u8; 4], arg: &[u8]| {
        let mut v = id.to_vec();
        v.extend_from_slice(&(arg.len() as u32).to_le_bytes());
        v.extend_from_slice(arg);
        v
    };
    let mut send = sync_req(b"SEND", b"/sdcard/sent.txt,33188");
    send.extend(sync_req(b"DATA", b"sent bytes"));
    send.extend_from_slice(b"DONE");
    send.extend_from_slice(&1_700_000_100u32.to_le_bytes());
    let mut reads = Vec::new();
    for (id, arg) in [
        (b"STAT", "/sdcard/probe.txt"),
        (b"STAT", "/sdcard/missing"),
        (b"LIST", "/sdcard"),
        (b"RECV", "/sdcard/probe.txt"),
    ] {
        reads.extend(sync_req(id, arg.as_bytes()));
    }
    let quit = sync_req(b"QUIT", b"");
    let apk = fake_apk("com.example.front", "Front");
    let install = format!("exec:cmd package 'install' -S {}", apk.len());
    let cases = vec![
        vec![
            Host(&transport),
            Service("sync:"),
            Raw(reads.clone()),
            Raw(quit.clone()),
        ],
        vec![
            Host(&transport),
            Service("sync:"),
            Raw(send),
            Raw(reads),
            Raw(quit),
        ],
        vec![
            Host(&transport),
            Service("sync:"),
            Raw(sync_req(b"RECV", b"/sdcard/missing")),
            Raw(sync_req(b"QUIT", b"")),
        ],
        vec![Host(&transport), Service(&install), Raw(apk.clone())],
        vec![Host(&transport), Service("framebuffer:")],
        vec![Host(&transport), Service("exec:screencap -p")],
    ];
    pair.assert_same(&cases);
    assert_eq!(
        phone.file("/sdcard/sent.txt").as_deref(),
        Some(&b"sent bytes"[..])
    );
}

/// Waits until `f` holds (10 s at most).
fn eventually(what: &str, f: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_client_closing_its_socket_stops_the_running_service() {
    let pair = Pair::new();
    let phone = &pair.rig.phone;
    let transport = format!("host:transport:{}", phone.serial());
    for (name, addr) in [
        ("real server", pair.rig.adb.socket_addr()),
        ("front end", pair.front.addr()),
    ] {
        let path = format!("/sdcard/{}.mp4", name.replace(' ', "_"));
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(&framed(&transport)).unwrap();
        assert_eq!(read_exact_or_eof(&mut s, 4), b"OKAY", "{name}");
        s.write_all(&framed(&format!(
            "shell:screenrecord --time-limit 60 {path}"
        )))
        .unwrap();
        assert_eq!(read_exact_or_eof(&mut s, 4), b"OKAY", "{name}");
        eventually("screenrecord to start", || {
            !phone.shell("pidof screenrecord").trim().is_empty()
        });
        drop(s);
        eventually("screenrecord to stop", || {
            phone.shell("pidof screenrecord").trim().is_empty()
        });
        eventually("the recording to be written", || {
            phone.file(&path).is_some()
        });
    }
}

#[test]
fn kill_stops_accepting() {
    let pair = Pair::new();
    let addr = pair.front.addr();
    assert_eq!(talk(addr, &[Host("host:kill")]), b"OKAY");
    eventually("the listener to close", || {
        TcpStream::connect(addr).is_err()
    });
}

#[test]
fn the_adb_client_binary_works_through_the_front_end() {
    let pair = Pair::new();
    let serial = pair.rig.phone.serial();
    let home = tempfile::tempdir().unwrap();
    let adb = |args: &[&str]| {
        let mut cmd = Command::new(std::env::var_os("ADB").unwrap_or_else(|| "adb".into()));
        cmd.arg("-P")
            .arg(pair.front.addr().port().to_string())
            .args(args)
            .env("HOME", home.path())
            .env_remove("ANDROID_SERIAL")
            .env_remove("ADB_SERVER_SOCKET");
        let out = run_with_timeout(cmd, Duration::from_secs(20)).unwrap();
        assert!(out.status.success(), "adb {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let listing = adb(&["devices", "-l"]);
    assert!(
        listing.contains(&serial) && listing.contains("model:Pixel_7"),
        "{listing}"
    );
    assert_eq!(adb(&["-s", &serial, "shell", "echo", "hi"]), "hi\n");
    let local = home.path().join("up.txt");
    std::fs::write(&local, b"pushed through the front end").unwrap();
    adb(&[
        "-s",
        &serial,
        "push",
        local.to_str().unwrap(),
        "/sdcard/up.txt",
    ]);
    assert_eq!(
        pair.rig.phone.file("/sdcard/up.txt").as_deref(),
        Some(&b"pushed through the front end"[..])
    );
    let back = home.path().join("down.txt");
    adb(&[
        "-s",
        &serial,
        "pull",
        "/sdcard/up.txt",
        back.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read(&back).unwrap(),
        b"pushed through the front end"
    );
    assert!(pair.rig.phone.injections().is_empty());
}
