//! The flow tools: run a Maestro flow on a device (`mobile_run_flow`) and export what
//! this session did on a device as one (`mobile_export_flow`). Reading, matching,
//! running and exporting are `mobile_flow`'s; this file reads the files (under the
//! allowed folders), keeps the run under the server's deadline and words the results.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mobile_device::{OutputFormat, Screenshot, ScreenshotOptions};
use mobile_flow::{ReadOptions, RunOptions, export_flow, read_flow, run_flow};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, structured};
use crate::files::FileRoots;
use crate::params::{ExportFlowParams, RunFlowParams};

/// The largest flow file read.
const MAX_FLOW_BYTES: u64 = 1 << 20;

#[tool_router(router = flows_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_run_flow",
        description = "Run a Maestro flow (YAML: `appId: …`, `---`, then commands such as launchApp, tapOn, inputText, assertVisible, scrollUntilVisible) on the device, step by step, waiting for the screen to settle between steps. Give the flow's text as `flow` or a file as `path`. Reports each step: its line, what matched, what was done, whether its check held; a failing step is named with the nearest elements on screen. Unsupported commands or keys are errors naming their line.",
        annotations(
            title = "Run a Maestro flow",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn run_flow_tool(
        &self,
        Parameters(p): Parameters<RunFlowParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let roots = self.options.files.clone();
        let (text, path) = match (&p.flow, &p.path) {
            (Some(t), None) => (t.clone(), None),
            (None, Some(path)) => {
                let (text, real) = read_flow_file(&roots, Path::new(path))?;
                (text, Some(real))
            }
            _ => {
                return Err(
                    "Give either `flow` (the flow's text) or `path` (a flow file), not both".into(),
                );
            }
        };
        let loader = |p: &Path| read_flow_file(&roots, p).map(|(t, _)| t).map_err(|f| f.0);
        // takeScreenshot writes beside a flow file, else relative to the working folder.
        let shots_dir = path
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        let flow = read_flow(
            &text,
            &ReadOptions {
                path,
                env: p.env.clone().into_iter().collect(),
                loader: Some(&loader),
            },
        )
        .map_err(|e| Failure(format!("The flow cannot run: {e}. Nothing was done.")))?;
        let d = self.device(&ctx, &p.device).await?;
        let shots: Arc<Mutex<Vec<(String, Screenshot)>>> = Arc::default();
        let sink = {
            let shots = shots.clone();
            Arc::new(move |name: &str, shot: Screenshot| {
                shots
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((name.to_string(), shot));
                Ok(format!("{name}.png"))
            })
        };
        let options = RunOptions {
            lookup_timeout: p
                .lookup_timeout_ms
                .map_or(RunOptions::default().lookup_timeout, |ms| {
                    Duration::from_millis(ms.clamp(0.0, 120_000.0) as u64)
                }),
            screenshots: Some(sink),
            ..RunOptions::default()
        };
        let device = d.clone();
        let report = self
            .bounded(
                &ctx,
                "running the flow",
                self.options.install_timeout,
                async move { Ok(run_flow(device.as_ref(), &flow, &options).await) },
            )
            .await?;
        let taken: Vec<_> = std::mem::take(&mut *shots.lock().unwrap_or_else(|e| e.into_inner()));
        let mut notes = Vec::new();
        for (name, shot) in taken {
            let file = match &shots_dir {
                Some(dir) => dir.join(format!("{name}.png")).display().to_string(),
                None => format!("{name}.png"),
            };
            notes.push(match self.save_flow_screenshot(&file, shot).await {
                Ok(path) => format!("takeScreenshot saved {path}"),
                Err(e) => format!("takeScreenshot {name} was not saved: {e}"),
            });
        }
        let mut text = report.render();
        for n in notes {
            text.push('\n');
            text.push_str(&n);
        }
        if report.passed {
            structured(text, &report)
        } else {
            Err(Failure(text))
        }
    }

    #[tool(
        name = "mobile_export_flow",
        description = "Export what this session did on the device (launches, taps, typing, swipes, buttons, waits that succeeded) as a Maestro flow: each tap aimed by the most robust selector that picks exactly the element hit, an assertVisible of what each action revealed, waits as extendedWaitUntil, password text as ${PASSWORD}. Steps with no Maestro equivalent are listed as not exported. Optionally writes it to saveTo (.yaml).",
        annotations(
            title = "Export a Maestro flow",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn export_flow_tool(
        &self,
        Parameters(p): Parameters<ExportFlowParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let target = match &p.save_to {
            Some(path) => {
                self.local_writes_allowed("saveTo")?;
                Some(
                    self.options
                        .files
                        .check_write(path, &["yaml", "yml"], p.overwrite)?,
                )
            }
            None => None,
        };
        let d = self.device(&ctx, &p.device).await?;
        let (steps, dropped) = self.recorder.steps(d.id());
        let mut export = export_flow(
            &steps,
            p.app_id.as_ref().map(|a| a.as_str()),
            p.name.as_deref(),
        );
        if dropped > 0 {
            export.not_exported.insert(
                0,
                format!(
                    "the first {dropped} steps: only the last {} are kept",
                    crate::agent::MAX_RECORDED
                ),
            );
        }
        let mut text = format!(
            "Exported {} recorded steps as a Maestro flow:\n{}",
            steps.len(),
            export.yaml
        );
        if let Some(t) = target {
            let path = t.write(export.yaml.clone().into_bytes()).await?;
            text.push_str(&format!("\nSaved to {path}."));
        }
        if !export.not_exported.is_empty() {
            text.push_str("\nNot exported:");
            for n in &export.not_exported {
                text.push_str(&format!("\n- {n}"));
            }
        }
        structured(text, &export)
    }
}

impl MobileServer {
    /// Writes a flow's `takeScreenshot` to `file` (a .png) under the allowed folders.
    async fn save_flow_screenshot(&self, file: &str, shot: Screenshot) -> Result<String, String> {
        let target = self.options.files.check_write(file, &["png"], true)?;
        let opts = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: OutputFormat::Png,
        };
        let img = tokio::task::spawn_blocking(move || mobile_screenshot::process(&shot, &opts))
            .await
            .map_err(|e| format!("the screenshot worker failed: {e}"))?
            .map_err(|e| e.to_string())?;
        target.write(img.bytes).await
    }
}

/// Reads a flow file under the allowed folders (at most [`MAX_FLOW_BYTES`]).
fn read_flow_file(roots: &FileRoots, path: &Path) -> Result<(String, PathBuf), Failure> {
    let shown = path.display().to_string();
    let (file, real) = roots.open_read(&shown).map_err(Failure)?;
    let mut text = String::new();
    file.take(MAX_FLOW_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Failure(format!("could not read {shown}: {e}")))?;
    if text.len() as u64 > MAX_FLOW_BYTES {
        return Err(Failure(format!(
            "{shown} is larger than {MAX_FLOW_BYTES} bytes"
        )));
    }
    Ok((text, real))
}
