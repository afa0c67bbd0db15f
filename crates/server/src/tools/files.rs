//! The file transfer tools: copying files to and from the device.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, text};
use crate::params::*;

#[tool_router(router = files_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_adb_push",
        description = "Copy a file from this machine to the device (to /sdcard unless force is set). Overwrites the destination.",
        annotations(
            title = "Push file",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn push(
        &self,
        Parameters(p): Parameters<PushParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        // Opened now, through the checked folder; the backend reads the open file.
        let (file, local) = self.options.files.open_read(&p.local_path)?;
        let remote = p.remote_path;
        if !p.force && !remote.is_under("/sdcard") {
            return Err(Failure(format!(
                "{remote} is outside /sdcard; pass force: true to write elsewhere on the device"
            )));
        }
        let d = self.device(&ctx, &p.device).await?;
        let n = self
            .bounded(
                &ctx,
                "pushing the file",
                self.options.install_timeout,
                d.push_file(file, &remote),
            )
            .await?;
        text(format!(
            "Pushed {} ({n} bytes) to {remote}",
            crate::files::shown_path(&local, &p.local_path)
        ))
    }

    #[tool(
        name = "mobile_adb_pull",
        description = "Copy a file from the device to this machine (under the working or temp directory). An existing local file is replaced only with overwrite: true.",
        annotations(
            title = "Pull file",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pull(
        &self,
        Parameters(p): Parameters<PullParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let remote = p.remote_path;
        let target = self
            .options
            .files
            .check_write(&p.local_path, &[], p.overwrite)?;
        let d = self.device(&ctx, &p.device).await?;
        // The device writes an open temporary file in the checked folder; the old file
        // stays until it is complete.
        let staged = target.stage()?;
        let _admitted = self.admit(&ctx, &d).await?;
        let n = self
            .bounded(
                &ctx,
                "pulling the file",
                self.options.install_timeout,
                d.pull_file(&remote, staged.file()?),
            )
            .await?;
        let local = staged.commit()?;
        text(format!("Pulled {remote} ({n} bytes) to {local}"))
    }
}
