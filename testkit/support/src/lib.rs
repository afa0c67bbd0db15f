//! `test-support`: what the workspace's tests share. Driving a `mobile-mcp` binary over
//! stdio with rmcp's client ([`McpChild`]) or line by line ([`RawStdio`]), and the one way to
//! find another package's built binary, such as the fake `xcrun`/`idb` ([`cargo_bin`]).
//!
//! Not for: the server's own binary, which a test target of `mobile-mcp` finds through
//! `env!("CARGO_BIN_EXE_mobile-mcp")` and passes in. Test code only; not published.
//!
//! ```no_run
//! # async fn demo() {
//! let server = std::path::Path::new("target/debug/mobile-mcp");
//! let mcp = test_support::McpChild::spawn(server, &["--demo"], &[]).await;
//! let text = mcp.ok("mobile_list_available_devices", serde_json::json!({})).await;
//! assert!(text.contains("Pixel 7"));
//! # }
//! ```
#![warn(missing_docs)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// The workspace's target directory for the current profile (`target/debug`), found
/// from the running test executable (`target/debug/deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test exe has a parent");
    let dir = if deps.ends_with("deps") {
        deps.parent().expect("deps has a parent")
    } else {
        deps
    };
    dir.to_path_buf()
}

/// The workspace's root folder (this crate is `testkit/support`).
fn workspace_root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The newest modification time of the workspace's sources (crate sources, manifests and
/// the lock file).
fn newest_source() -> Option<std::time::SystemTime> {
    fn walk(dir: &std::path::Path, newest: &mut Option<std::time::SystemTime>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    walk(&path, newest);
                }
            } else if let Ok(m) = meta.modified()
                && newest.is_none_or(|n| m > n)
            {
                *newest = Some(m);
            }
        }
    }
    let root = workspace_root();
    let mut newest = None;
    walk(&root.join("crates"), &mut newest);
    walk(&root.join("testkit"), &mut newest);
    for f in ["Cargo.toml", "Cargo.lock"] {
        if let Ok(m) = std::fs::metadata(root.join(f)).and_then(|m| m.modified())
            && newest.is_none_or(|n| m > n)
        {
            newest = Some(m);
        }
    }
    newest
}

/// Path of binary `bin` of workspace package `package`. A binary newer than every source
/// file is used as it is (the workspace test build made it, with the workspace's feature
/// set); otherwise it is built first, once per test process, so a test never runs a stale
/// binary after an edit.
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    let path = target_dir().join(bin);
    let key = format!("{package}/{bin}");
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.contains(&key) {
        return path;
    }
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .zip(newest_source())
        .is_some_and(|(b, s)| b >= s);
    if !fresh {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--bin", bin]);
        if target_dir().ends_with("release") {
            cmd.arg("--release");
        }
        let status = cmd
            .current_dir(workspace_root())
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "cargo build -p {package} --bin {bin} failed"
        );
    }
    built.push(key);
    path
}

/// A running `mobile-mcp` child driven by rmcp's client over stdio.
pub struct McpChild {
    /// rmcp's client, connected and initialized.
    pub client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
}

impl McpChild {
    /// Spawns the server binary `bin` with `args` and extra environment, and initializes.
    pub async fn spawn(
        bin: impl AsRef<std::path::Path>,
        args: &[&str],
        envs: &[(String, String)],
    ) -> McpChild {
        use rmcp::ServiceExt;
        let mut cmd = tokio::process::Command::new(bin.as_ref());
        cmd.args(args)
            .env("RUST_LOG", "warn")
            .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
            .env_remove(rmcp_filter_var());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let transport =
            rmcp::transport::TokioChildProcess::new(cmd).expect("spawn the mobile-mcp binary");
        let client = tokio::time::timeout(std::time::Duration::from_secs(60), ().serve(transport))
            .await
            .expect("initialize within 60 s")
            .expect("initialize");
        McpChild { client }
    }

    /// Calls a tool; panics on a protocol error (a tool error is an `isError` result).
    pub async fn call(&self, name: &str, args: serde_json::Value) -> rmcp::model::CallToolResult {
        let args = args.as_object().cloned().unwrap_or_default();
        let req = rmcp::model::CallToolRequestParams::new(name.to_string()).with_arguments(args);
        tokio::time::timeout(
            std::time::Duration::from_secs(60),
            self.client.call_tool(req),
        )
        .await
        .unwrap_or_else(|_| panic!("{name} did not answer within 60 s"))
        .unwrap_or_else(|e| panic!("{name}: protocol error {e}"))
    }

    /// Calls a tool that must succeed; returns its text.
    pub async fn ok(&self, name: &str, args: serde_json::Value) -> String {
        let r = self.call(name, args.clone()).await;
        let t = text_of(&r);
        assert_ne!(r.is_error, Some(true), "{name} {args} failed: {t}");
        t
    }
}

fn rmcp_filter_var() -> &'static str {
    "MCP_MODEL_PAYLOAD_FILTER"
}

/// The text blocks of a result, joined by newlines.
pub fn text_of(r: &rmcp::model::CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| match c {
            rmcp::model::ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `program args…` to completion within `limit` (killed if it overruns), for tests that
/// look at a device through its own tools (`xcrun simctl …`). The error names the command
/// and why it failed: it could not be started, or it overran.
pub async fn run_with_deadline(
    program: &str,
    args: &[&str],
    limit: std::time::Duration,
) -> Result<std::process::Output, String> {
    let shown = format!("`{program} {}`", args.join(" "));
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    match tokio::time::timeout(limit, cmd.output()).await {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(e)) => Err(format!("could not run {shown}: {e}")),
        Err(_) => Err(format!("{shown} did not finish within {limit:?}")),
    }
}

/// A `mobile-mcp` child spoken to line by line, for tests that look at the raw wire.
pub struct RawStdio {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    /// Every line the server wrote, in order.
    pub seen: Vec<String>,
}

impl RawStdio {
    /// Starts the binary with no device backend that could answer unasked (no adb on
    /// PATH, no xcrun) and the filter variable as given.
    pub fn start(
        bin: impl AsRef<std::path::Path>,
        args: &[&str],
        filter: Option<&str>,
    ) -> RawStdio {
        Self::start_with_env(bin, args, filter, &[])
    }

    /// Like [`RawStdio::start`], with extra environment variables.
    pub fn start_with_env(
        bin: impl AsRef<std::path::Path>,
        args: &[&str],
        filter: Option<&str>,
        envs: &[(String, String)],
    ) -> RawStdio {
        let mut cmd = std::process::Command::new(bin.as_ref());
        cmd.args(args)
            .env("RUST_LOG", "off")
            .env("PATH", "/nonexistent")
            .env_remove("ANDROID_HOME")
            .env_remove("ADB_SERVER_SOCKET")
            .env_remove("ANDROID_ADB_SERVER_PORT")
            .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        match filter {
            Some(v) => cmd.env("MCP_MODEL_PAYLOAD_FILTER", v),
            None => cmd.env_remove("MCP_MODEL_PAYLOAD_FILTER"),
        };
        let mut child = cmd.spawn().expect("spawn mobile-mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        RawStdio {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Writes one message as a line.
    pub fn send(&mut self, msg: &serde_json::Value) {
        std::io::Write::write_fmt(&mut self.stdin, format_args!("{msg}\n")).unwrap();
        std::io::Write::flush(&mut self.stdin).unwrap();
    }

    /// The next line the server writes, if one comes within `limit`.
    pub fn next_line(&mut self, limit: std::time::Duration) -> Option<String> {
        let line = self.lines.recv_timeout(limit).ok()?;
        self.seen.push(line.clone());
        Some(line)
    }

    /// Sends a request and returns every line up to and including its response.
    pub fn request(&mut self, msg: serde_json::Value) -> Vec<serde_json::Value> {
        let id = msg["id"].clone();
        self.send(&msg);
        let mut out = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no response to {msg}"));
            self.seen.push(line.clone());
            let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
            let done = v["id"] == id && v.get("method").is_none();
            out.push(v);
            if done {
                return out;
            }
        }
    }

    /// The MCP handshake: `initialize`, then `notifications/initialized`.
    pub fn initialize(&mut self) {
        self.request(serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}));
        self.send(&serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    }

    /// Calls a tool with request id `id`; every line up to and including its response.
    pub fn call(&mut self, id: i64, name: &str, args: serde_json::Value) -> Vec<serde_json::Value> {
        self.request(serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args}}))
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
