//! Protocol edges over stdio, on the raw wire: every line that cannot be read gets
//! exactly one reply, with its `id` when it has one and the code JSON-RPC 2.0 defines,
//! and the server keeps serving afterwards.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// A server child written to byte by byte.
struct Wire {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Wire {
    fn start(filter: &str) -> Wire {
        let mut child = Command::new(crate::SERVER)
            .args(["--adb-server", "127.0.0.1:1"])
            .env("RUST_LOG", "off")
            .env("PATH", "/nonexistent")
            .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
            .env("MCP_MODEL_PAYLOAD_FILTER", filter)
            .env_remove("ANDROID_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mobile-mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Wire {
            child,
            stdin,
            lines,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&self, limit: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(limit).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}")))
    }

    fn request(&mut self, msg: &Value) -> Value {
        self.write(msg.to_string().as_bytes());
        self.next(Duration::from_secs(30)).expect("a reply")
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bad_lines() -> Vec<(&'static str, Vec<u8>, Value, i64)> {
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":105,\"method\":\"ping\",\"params\":{{\"x\":{}1{}}}}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    vec![
        (
            "lone surrogate",
            br#"{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"mobile_type_keys","arguments":{"text":"\ud83d"}}}"#.to_vec(),
            json!(101),
            -32700,
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}".to_vec(),
            json!(102),
            -32700,
        ),
        (
            "NaN",
            br#"{"jsonrpc":"2.0","id":"n-103","method":"ping","params":{"x":NaN}}"#.to_vec(),
            json!("n-103"),
            -32700,
        ),
        ("deep nesting", deep.into_bytes(), json!(105), -32700),
        (
            "two messages on one line",
            br#"{"jsonrpc":"2.0","id":106,"method":"ping"}{"jsonrpc":"2.0","id":107,"method":"ping"}"#.to_vec(),
            json!(106),
            -32700,
        ),
        ("not JSON", b"hello".to_vec(), Value::Null, -32700),
        (
            "wrong jsonrpc version",
            br#"{"jsonrpc":"1.0","id":108,"method":"ping"}"#.to_vec(),
            json!(108),
            -32600,
        ),
        (
            "method not a string",
            br#"{"jsonrpc":"2.0","id":"m-109","method":5}"#.to_vec(),
            json!("m-109"),
            -32600,
        ),
        (
            "params not an object",
            br#"{"jsonrpc":"2.0","id":110,"method":"tools/call","params":"x"}"#.to_vec(),
            json!(110),
            -32602,
        ),
        (
            "unreadable params",
            br#"{"jsonrpc":"2.0","id":111,"method":"tools/call","params":{"name":7}}"#.to_vec(),
            json!(111),
            -32602,
        ),
        ("a JSON number", b"42".to_vec(), Value::Null, -32600),
    ]
}

#[test]
fn every_bad_line_gets_one_reply_with_its_id() {
    for filter in ["0", "1"] {
        let mut wire = Wire::start(filter);
        let init = wire.request(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}));
        assert_eq!(init["id"], 0, "{init}");
        wire.write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        for (name, line, id, code) in bad_lines() {
            let reply = wire
                .next_after(&line)
                .unwrap_or_else(|| panic!("filter={filter} {name}: no reply"));
            assert_eq!(reply["jsonrpc"], "2.0", "filter={filter} {name}: {reply}");
            assert_eq!(reply["id"], id, "filter={filter} {name}: {reply}");
            assert_eq!(
                reply["error"]["code"], code,
                "filter={filter} {name}: {reply}"
            );
            // Exactly one reply, and still serving: the next line answered is a ping's.
            let pong = wire.request(&json!({"jsonrpc":"2.0","id":900,"method":"ping"}));
            assert_eq!(pong["id"], 900, "filter={filter} after {name}: {pong}");
            assert!(
                pong.get("result").is_some(),
                "filter={filter} after {name}: {pong}"
            );
        }
        let list = wire.request(&json!({"jsonrpc":"2.0","id":901,"method":"tools/list"}));
        assert!(
            list["result"]["tools"]
                .as_array()
                .is_some_and(|t| t.len() >= 20),
            "{list}"
        );
    }
}

impl Wire {
    fn next_after(&mut self, line: &[u8]) -> Option<Value> {
        self.write(line);
        self.next(Duration::from_secs(10))
    }
}
