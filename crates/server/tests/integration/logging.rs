//! Logs: tool arguments reach the log file with sensitive keys redacted and long strings
//! cut, and nothing but MCP messages reaches stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn logged_arguments_are_redacted_and_cut() {
    let dir = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let log = dir.path().join("server.log");
    let bin = std::path::PathBuf::from(crate::SERVER);
    let mut child = Command::new(bin)
        .args(["--adb-server", "127.0.0.1:1", "--log-file"])
        .arg(&log)
        .env("RUST_LOG", "info")
        .env("PATH", "/nonexistent")
        .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let long = "z".repeat(1000);
    let msgs = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"mobile_type_keys","arguments":{{"device":"d","text":"{long}","password":"hunter2","nested":{{"deeper":[{{"apiKey":"k-123","Authorization":"Bearer abc","access_token":"t1","SECRET":"s1","api_key":"k2","token":"t2"}}]}}}}}}}}"#
        ),
    ];
    for m in &msgs {
        writeln!(stdin, "{m}").unwrap();
    }
    stdin.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l);
    }
    drop(stdin);
    let _ = child.wait();
    for l in &lines {
        serde_json::from_str::<serde_json::Value>(l).expect("stdout carries only MCP messages");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let call = text
        .lines()
        .find(|l| l.contains("tool call") && l.contains("mobile_type_keys"))
        .unwrap_or_else(|| panic!("no tool call line in {text}"));
    for secret in ["hunter2", "k-123", "Bearer abc", "t1", "s1", "k2", "t2\""] {
        assert!(!call.contains(secret), "{secret} leaked: {call}");
    }
    assert!(call.matches("[redacted]").count() >= 7, "{call}");
    assert!(call.contains("…700 more"), "{call}");
    assert!(!call.contains(&long));
}
