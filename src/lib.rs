//! Support code for the end-to-end tests in `tests/`: finding the workspace's built
//! binaries (the `mobile-mcp` server, the virtual phone, the fake `xcrun`/`idb`).
//! Test code only; not published.

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

static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Path of binary `bin` of workspace package `package`, built (once per test process)
/// with `cargo build` so a test never runs a stale binary.
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    let key = format!("{package}/{bin}");
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !built.contains(&key) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--bin", bin]);
        if target_dir().ends_with("release") {
            cmd.arg("--release");
        }
        let status = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "cargo build -p {package} --bin {bin} failed"
        );
        built.push(key);
    }
    target_dir().join(bin)
}

/// A running `mobile-mcp` child driven by rmcp's client over stdio.
pub struct McpChild {
    pub client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
}

impl McpChild {
    /// Spawns the built binary with `args` and extra environment, and initializes.
    pub async fn spawn(args: &[&str], envs: &[(String, String)]) -> McpChild {
        use rmcp::ServiceExt;
        let bin = cargo_bin("mobile-mcp", "mobile-mcp");
        let mut cmd = tokio::process::Command::new(bin);
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
