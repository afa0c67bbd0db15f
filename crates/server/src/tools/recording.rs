//! The screen recording tools: starting and stopping a recording.

use mobile_device::RecordingOptions;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, text};
use crate::params::*;

#[tool_router(router = recording_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_start_screen_recording",
        description = "Start recording the screen to an .mp4 on this machine (default: a new file in the temp directory; an existing file is replaced only with overwrite: true). The file is written when you stop the recording with mobile_stop_screen_recording, not before.",
        annotations(
            title = "Start recording",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn start_recording(
        &self,
        Parameters(p): Parameters<StartRecordingParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let output = match &p.output {
            Some(o) => o.clone(),
            None => {
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or_default();
                std::env::temp_dir()
                    .join(format!("screen-recording-{ms}.mp4"))
                    .display()
                    .to_string()
            }
        };
        let target = self
            .options
            .files
            .check_write(&output, &["mp4"], p.overwrite)?;
        let path = target.shown_path();
        let d = self.device(&ctx, &p.device).await?;
        // The video goes to a temporary file beside the target, created now in the
        // checked folder; stopping writes it through its handle and moves it there.
        let staged = target.stage()?;
        let opts = RecordingOptions {
            time_limit: p.time_limit.unwrap_or_default(),
        };
        let limit = opts.time_limit.secs();
        self.run(&ctx, "starting the recording", d.start_recording(&opts))
            .await?;
        self.recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(d.id().to_string(), staged);
        text(format!(
            "Recording started (at most {limit} s). Nothing is written until you call mobile_stop_screen_recording: it then saves the video to {path}."
        ))
    }

    #[tool(
        name = "mobile_stop_screen_recording",
        description = "Stop the screen recording and save the video; reports its path, size and length.",
        annotations(
            title = "Stop recording",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn stop_recording(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let staged = self
            .recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(d.id())
            .ok_or_else(|| {
                Failure(format!(
                    "no screen recording was started on {} by this server; start one with mobile_start_screen_recording",
                    d.id()
                ))
            })?;
        let r = self
            .bounded(
                &ctx,
                "stopping the recording",
                self.options.install_timeout,
                d.stop_recording(staged.file()?),
            )
            .await?;
        // On failure the staged file is dropped (removed); the target was never touched.
        let path = staged.commit()?;
        text(format!(
            "Recording saved to {path} ({:.2} MB, about {} s)",
            r.bytes as f64 / 1_000_000.0,
            r.duration.as_secs()
        ))
    }
}
