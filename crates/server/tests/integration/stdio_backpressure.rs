//! Backpressure on stdio: a client that sends bad lines but does not read stdout stalls
//! the server's reading of stdin; the replies it owes do not pile up in memory. Once the
//! client reads again, every reply arrives and the server still serves.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How much bad input the client tries to send (the issue's 27 MB, rounded up).
const FLOOD: usize = 32 << 20;

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn a_client_that_does_not_read_stalls_its_input_not_the_servers_memory() {
    let mut child = Command::new(crate::SERVER)
        .args(["--adb-server", "127.0.0.1:1"])
        .env("RUST_LOG", "off")
        .env("PATH", "/nonexistent")
        .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
        .env_remove("MCP_MODEL_PAYLOAD_FILTER")
        .env_remove("ANDROID_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mobile-mcp");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin
        .write_all(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#,
        )
        .unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"id\":0"), "{first}");
    let before = rss_kib(pid);

    // Each line is an invalid request (no method) with a 1000-character id, so each
    // owes a reply about as long as the line.
    let id = "x".repeat(1000);
    let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\"}}\n");
    let lines = FLOOD.div_ceil(line.len());
    let written = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (written, done) = (written.clone(), done.clone());
        std::thread::spawn(move || {
            let mut sent = 0;
            while sent < FLOOD {
                if stdin.write_all(line.as_bytes()).is_err() {
                    break;
                }
                sent += line.len();
                written.store(sent, Ordering::Relaxed);
            }
            done.store(true, Ordering::Relaxed);
            stdin
        })
    };
    // Wait until the writer is done or has made no progress for a second (bounded).
    let started = Instant::now();
    let mut last = (0, Instant::now());
    while !done.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
        let now = written.load(Ordering::Relaxed);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(1) {
            break;
        }
    }
    let stalled_at = written.load(Ordering::Relaxed);
    let during = rss_kib(pid);
    eprintln!(
        "flood: {stalled_at} of {FLOOD} bytes accepted; server RSS {before} KiB before, {during} KiB while stalled"
    );
    let sent_everything = done.load(Ordering::Relaxed);

    // Read everything the server owes; the writer then finishes and a ping is answered.
    let reader = std::thread::spawn(move || {
        let mut replies = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            match stdout.read_line(&mut line) {
                Ok(0) | Err(_) => return (replies, None),
                Ok(_) => {}
            }
            let v: Value = serde_json::from_str(&line).expect("a JSON reply");
            if v["id"] == "after" {
                return (replies, Some(v));
            }
            assert_eq!(v["error"]["code"], -32600, "{line}");
            replies += 1;
        }
    });
    let mut stdin = writer.join().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    let (replies, pong) = reader.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();

    assert!(
        !sent_everything && stalled_at < FLOOD / 4,
        "the server kept reading a client that does not read: {stalled_at} of {FLOOD} bytes taken"
    );
    assert!(
        during < before + 16 * 1024,
        "resident memory grew from {before} KiB to {during} KiB"
    );
    assert_eq!(replies, lines, "every bad line gets its reply");
    let pong = pong.expect("the ping after the flood is answered");
    assert!(pong.get("result").is_some(), "{pong}");
}
