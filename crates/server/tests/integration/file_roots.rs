//! Started in `/` (as some MCP hosts start servers), the server does not put every file in
//! scope: the working directory is replaced by a per-user folder, and the start-up log
//! says which folders are allowed.

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_in_slash_does_not_write_everywhere() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("server.log");
    let outside = std::path::PathBuf::from(format!(
        "/var/tmp/mobile-mcp-roots-test-{}.png",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&outside);
    let mut cmd = tokio::process::Command::new(crate::SERVER);
    cmd.args(["--demo", "--log-file"])
        .arg(&log)
        .current_dir("/")
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .env("RUST_LOG", "info")
        .env_remove("MCP_MODEL_PAYLOAD_FILTER")
        .stderr(Stdio::null());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .expect("initialize within 60 s")
        .expect("initialize");
    let call = |name: &str, args: serde_json::Value| {
        let req = rmcp::model::CallToolRequestParams::new(name.to_string())
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        client.call_tool(req)
    };
    let listed = call("mobile_list_available_devices", json!({}))
        .await
        .unwrap();
    let device = listed.structured_content.as_ref().unwrap()["devices"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = call(
        "mobile_save_screenshot",
        json!({"device": device, "saveTo": outside.display().to_string()}),
    )
    .await
    .unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    assert!(!outside.exists(), "{} was written", outside.display());
    // The per-user folder is allowed instead.
    let own = home.path().join(".local/share/mobile-mcp/shot.png");
    let r = call(
        "mobile_save_screenshot",
        json!({"device": device, "saveTo": own.display().to_string()}),
    )
    .await
    .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert!(own.exists());
    let _ = client.cancel().await;
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("local files are read and written only under"))
        .unwrap_or_else(|| panic!("no roots line in {text}"));
    assert!(line.contains(".local/share/mobile-mcp"), "{line}");
    assert!(!line.contains(": /,") && !line.contains(": / "), "{line}");
}
