//! Faults: a phone that dies during a long call, an adb server that is killed and comes
//! back, garbage on stdin. Each call fails clearly within its deadline and the server
//! keeps serving.

use std::time::{Duration, Instant};

use serde_json::json;
use test_support::{McpChild, text_of};
use virtual_phone::adb_server::{PrivateAdbServer, free_port};
use virtual_phone::{PhoneConfig, VirtualPhone};

const DEADLINE: Duration = Duration::from_secs(240);

/// Calls `mobile_get_orientation` until it succeeds or `limit` passes.
async fn until_ok(mcp: &McpChild, dev: &serde_json::Value, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        let r = mcp
            .call("mobile_get_orientation", json!({"device": dev}))
            .await;
        if r.is_error != Some(true) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_that_dies_mid_call_fails_that_call_and_the_next_succeeds_once_it_returns() {
    tokio::time::timeout(DEADLINE, async {
        let port = free_port().unwrap();
        let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
        let phone = VirtualPhone::start(PhoneConfig { addr, ..Default::default() }).unwrap();
        let adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        let server = format!("127.0.0.1:{}", adb.port());
        let mcp = McpChild::spawn(
            crate::SERVER,
            &["--adb-server", &server, "--timeout", "15", "--install-timeout", "15"],
            &adb.env(),
        )
        .await;
        let dev = json!(phone.serial());
        assert!(until_ok(&mcp, &dev, Duration::from_secs(5)).await);

        let dir = tempfile::Builder::new().tempdir_in(std::env::temp_dir()).unwrap();
        let big = dir.path().join("big.bin");
        std::fs::write(&big, vec![7u8; 64 << 20]).unwrap();
        // Stop the phone as soon as the upload has begun.
        let call = mcp.call(
            "mobile_adb_push",
            json!({"device": dev, "local_path": big.display().to_string(), "remote_path": "/sdcard/big.bin"}),
        );
        let stopper = async move {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(20) {
                let sending = phone.commands().iter().any(|c| {
                    c.argv.iter().any(|a| a.first().map(String::as_str) == Some("SEND"))
                });
                if sending {
                    phone.stop();
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            false
        };
        let t0 = Instant::now();
        let (r, started) = tokio::join!(call, stopper);
        assert!(started, "the upload never began");
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(t0.elapsed() < Duration::from_secs(20), "failed within its deadline");
        let t = text_of(&r);
        assert!(!t.is_empty() && t.len() < 1600, "{t}");

        // The server keeps serving; the phone comes back on the same port.
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        assert_ne!(r.is_error, Some(true));
        let phone = VirtualPhone::start(PhoneConfig { addr, ..Default::default() }).unwrap();
        let _ = adb.connect(&phone);
        assert!(until_ok(&mcp, &dev, Duration::from_secs(40)).await, "calls work again after the phone returns");
    })
    .await
    .expect("within the deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_recovers_when_the_adb_server_restarts() {
    tokio::time::timeout(DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let mut adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        let server = format!("127.0.0.1:{}", adb.port());
        let mut env = adb.env();
        // The server must not start an adb server of its own here: no adb on its PATH.
        env.push(("PATH".into(), "/nonexistent".into()));
        let mcp = McpChild::spawn(
            crate::SERVER,
            &["--adb-server", &server, "--timeout", "10"],
            &env,
        )
        .await;
        let dev = json!(phone.serial());
        assert!(until_ok(&mcp, &dev, Duration::from_secs(5)).await);

        adb.kill();
        let t0 = Instant::now();
        let r = mcp
            .call("mobile_get_orientation", json!({"device": dev}))
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "failed within its deadline"
        );
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let t = text_of(&r);
        assert!(
            t.contains(&server),
            "the listing says which adb server did not answer: {t}"
        );

        let out = adb.adb(&["start-server"]).unwrap();
        assert!(out.status.success());
        adb.connect(&phone).unwrap();
        assert!(
            until_ok(&mcp, &dev, Duration::from_secs(30)).await,
            "calls work again after the restart"
        );
        let _ = adb.adb(&["kill-server"]);
    })
    .await
    .expect("within the deadline");
}

#[test]
fn garbage_on_stdin_gets_clear_errors_and_the_server_keeps_serving() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let bin = std::path::PathBuf::from(crate::SERVER);
    let mut child = Command::new(bin)
        .args(["--adb-server", "127.0.0.1:1"])
        .env("PATH", "/nonexistent")
        .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let huge = "x".repeat(2 << 20);
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        "this is not json".to_string(),
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"mobile_type_keys","arguments":{{"device":"d","text":"{huge}"}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#.to_string(),
    ];
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut by_id = std::collections::HashMap::new();
    while by_id.len() < 5 {
        let mut l = String::new();
        if out.read_line(&mut l).unwrap() == 0 {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        if let Some(id) = v["id"].as_i64() {
            by_id.insert(id, v);
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(by_id[&2]["error"]["code"], -32601);
    let r3 = &by_id[&3]["result"];
    assert_eq!(
        r3["isError"], true,
        "a huge argument gets a bounded, clear error"
    );
    assert!(r3["content"][0]["text"].as_str().unwrap().len() < 1600);
    assert!(
        by_id[&4]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not found")
    );
    assert!(
        by_id[&5]["result"]["tools"].as_array().unwrap().len() > 20,
        "still serving"
    );
}

/// A client that cancels an install stops the upload: the package never lands on the
/// phone, and the server answers the next call.
#[test]
fn a_cancelled_install_stops_pushing() {
    // Cancel once the upload has begun (its first progress notification).
    // Held whole, so the adb server and the package file live as long as the test.
    let mut install = crate::big_install::started(None);
    let (phone, w) = (&install.phone, &mut install.wire);
    w.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"changed my mind"}}));
    // The server still answers, and the package never appears.
    let r = w.call(
        10,
        "mobile_get_orientation",
        json!({"device": phone.serial()}),
    );
    assert_ne!(r.last().unwrap()["result"]["isError"], true, "{r:?}");
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(5) {
        assert!(
            !phone
                .state()
                .packages
                .contains_key(crate::big_install::PACKAGE),
            "the cancelled upload completed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
