//! The MCP client driver: spawns a server over stdio, times `tools/call`s, and stops it.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use base64::Engine;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use serde_json::Value;

use crate::footprint::{alive, kill_tree};

/// Which server (and mode) a measurement is of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) enum Kind {
    Ours,
    OursFilter,
    /// `--baseline`: another build of ours, called like ours.
    Baseline,
    PeerDefault,
    PeerLegacy,
}

impl Kind {
    pub(crate) fn key(self) -> &'static str {
        match self {
            Kind::Ours => "ours",
            Kind::OursFilter => "ours_filter",
            Kind::Baseline => "baseline",
            Kind::PeerDefault => "peer_default",
            Kind::PeerLegacy => "peer_legacy",
        }
    }
}

/// How to spawn one server.
#[derive(Clone)]
pub(crate) struct Spawn {
    pub(crate) kind: Kind,
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) stderr_log: PathBuf,
}

/// A started server and the client connected to it.
pub(crate) struct Running {
    pub(crate) spawn: Spawn,
    pub(crate) client: RunningService<rmcp::RoleClient, ()>,
    pub(crate) pid: u32,
}

/// Spawns `s` and completes the MCP handshake; also returns the time from spawn to the
/// `initialize` response (its cold start).
pub(crate) async fn start(s: &Spawn) -> Result<(Running, Duration)> {
    let mut cmd = tokio::process::Command::new(&s.program);
    cmd.args(&s.args);
    for k in [
        "MCP_MODEL_PAYLOAD_FILTER",
        "MOBILEMCP_LEGACY_ROBOT",
        "RUST_LOG",
        "ADB_SERVER_SOCKET",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in &s.env {
        cmd.env(k, v);
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&s.stderr_log)?;
    let t0 = Instant::now();
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(Stdio::from(log))
        .spawn()
        .with_context(|| format!("spawn {}", s.program.display()))?;
    let pid = transport.id().unwrap_or(0);
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .context("initialize did not answer within 60 s")?
        .context("initialize")?;
    let cold = t0.elapsed();
    Ok((
        Running {
            spawn: s.clone(),
            client,
            pid,
        },
        cold,
    ))
}

/// Ends the session, then makes sure the server and its children are gone.
pub(crate) async fn stop(r: Running) {
    let pid = r.pid;
    let _ = tokio::time::timeout(Duration::from_secs(10), r.client.cancel()).await;
    // The transport's own shutdown waits and then kills; make sure nothing is left.
    for _ in 0..100 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    kill_tree(pid);
}

/// Outcome of one call.
pub(crate) struct Outcome {
    pub(crate) elapsed: Duration,
    pub(crate) ok: bool,
    pub(crate) text: String,
    pub(crate) bytes: usize,
    pub(crate) image: Option<ImageInfo>,
}

/// Decoded size, MIME type and dimensions of a result's image.
pub(crate) type ImageInfo = (usize, String, Option<(u32, u32)>);

/// Calls one tool and times it; a timeout or protocol error is an outcome too, not an error.
pub(crate) async fn call(r: &Running, name: &str, args: &Value, timeout: Duration) -> Outcome {
    let req = CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    let t0 = Instant::now();
    let res = tokio::time::timeout(timeout, r.client.call_tool(req)).await;
    let elapsed = t0.elapsed();
    match res {
        Err(_) => Outcome {
            elapsed,
            ok: false,
            text: format!("timed out after {timeout:?}"),
            bytes: 0,
            image: None,
        },
        Ok(Err(e)) => Outcome {
            elapsed,
            ok: false,
            text: format!("protocol error: {e}"),
            bytes: 0,
            image: None,
        },
        Ok(Ok(result)) => outcome(elapsed, &result),
    }
}

/// Size, text and image of a result.
pub(crate) fn outcome(elapsed: Duration, result: &CallToolResult) -> Outcome {
    let bytes = serde_json::to_vec(result).map(|v| v.len()).unwrap_or(0);
    let text = result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let image = result.content.iter().find_map(|c| match c {
        ContentBlock::Image(i) => {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(&i.data)
                .unwrap_or_default();
            let dims = image::ImageReader::new(std::io::Cursor::new(&raw))
                .with_guessed_format()
                .ok()
                .and_then(|r| r.into_dimensions().ok());
            Some((raw.len(), i.mime_type.clone(), dims))
        }
        _ => None,
    });
    // An error result is a failure; a result without the expected image is not checked here.
    let ok = result.is_error != Some(true);
    Outcome {
        elapsed,
        ok,
        text,
        bytes,
        image,
    }
}

/// `s` on one line, cut to 160 characters (an error message in the table).
pub(crate) fn short(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() > 160 {
        s.chars().take(160).collect::<String>() + "…"
    } else {
        s
    }
}
