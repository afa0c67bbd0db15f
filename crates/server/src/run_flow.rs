//! `mobile-mcp run-flow FILE...`: runs Maestro flow files on a device with no agent and
//! no MCP client, prints each flow's report, optionally writes a JUnit XML report, and
//! exits 0 only when every flow passed (1 when one failed or could not be read).
//!
//! The device is the one `--device` names, else the only one connected (with `--demo`,
//! the built-in virtual phone). `runFlow` files are read relative to their flow;
//! `takeScreenshot` writes `NAME.png` relative to the working directory, as Maestro does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use mobile_device::{DeviceRegistry, OutputFormat, Screenshot, ScreenshotOptions};
use mobile_flow::{FlowReport, ReadOptions, RunOptions, junit, read_flow, run_flow};

/// `run-flow`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct RunFlowArgs {
    /// Flow files (Maestro YAML) to run, in order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The device to run on (default: the only one connected).
    #[arg(long, value_name = "ID")]
    device: Option<String>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,
    /// A value for a flow's ${NAME}; repeatable; wins over the flow's env.
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// How long assertVisible and element look-ups wait, in ms (Maestro's 17000 by default).
    #[arg(long, default_value_t = 17_000, value_name = "MS")]
    lookup_timeout_ms: u64,
}

/// Runs the flows; `Ok(true)` when every one passed.
pub(crate) async fn run(args: &RunFlowArgs, registry: &DeviceRegistry) -> anyhow::Result<bool> {
    let env: Vec<(String, String)> = args
        .env
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .with_context(|| format!("--env {kv}: expected NAME=VALUE"))
        })
        .collect::<anyhow::Result<_>>()?;
    let id = match &args.device {
        Some(id) => id.clone(),
        None => registry
            .sole_device()
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?,
    };
    let device = registry
        .resolve(&id)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let sink = Arc::new(|name: &str, shot: Screenshot| save_png(name, shot));
    let options = RunOptions {
        lookup_timeout: Duration::from_millis(args.lookup_timeout_ms),
        screenshots: Some(sink),
        ..RunOptions::default()
    };
    let mut out = std::io::stdout().lock();
    let mut reports = Vec::new();
    for file in &args.files {
        let report = match read_one(file, &env) {
            Ok(flow) => {
                let mut r = run_flow(device.as_ref(), &flow, &options).await;
                if r.name.is_empty() {
                    r.name = file.display().to_string();
                }
                r
            }
            Err(why) => FlowReport {
                name: file.display().to_string(),
                passed: false,
                failure: Some(why),
                steps: Vec::new(),
                duration: Duration::ZERO,
            },
        };
        writeln!(out, "{}: {}", file.display(), report.render())?;
        reports.push(report);
    }
    let passed = reports.iter().filter(|r| r.passed).count();
    writeln!(out, "{passed} passed, {} failed", reports.len() - passed)?;
    if let Some(path) = &args.junit {
        std::fs::write(path, junit(&reports))
            .with_context(|| format!("cannot write --junit {}", path.display()))?;
    }
    Ok(passed == reports.len())
}

fn read_one(file: &Path, env: &[(String, String)]) -> Result<mobile_flow::Flow, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let loader = |p: &Path| std::fs::read_to_string(p).map_err(|e| e.to_string());
    read_flow(
        &text,
        &ReadOptions {
            path: Some(file.to_path_buf()),
            env: env.to_vec(),
            loader: Some(&loader),
        },
    )
    .map_err(|e| e.to_string())
}

fn save_png(name: &str, shot: Screenshot) -> Result<String, String> {
    let opts = ScreenshotOptions {
        max_size: None,
        scale: None,
        format: OutputFormat::Png,
    };
    let img = mobile_screenshot::process(&shot, &opts).map_err(|e| e.to_string())?;
    let path = format!("{name}.png");
    std::fs::write(&path, &img.bytes).map_err(|e| format!("cannot write {path}: {e}"))?;
    Ok(path)
}
