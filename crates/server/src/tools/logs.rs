//! The diagnostic tools: device logs and crash reports.

use mobile_device::{LogFilter, LogQuery, excerpt};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, structured, text};
use crate::output::*;
use crate::params::*;

#[tool_router(router = logs_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_get_device_logs",
        description = "Read recent device log lines (logcat on Android, the unified log on iOS) as JSON lines, newest last, optionally filtered and saved to a file (an existing file is replaced only with overwrite: true).",
        annotations(title = "Device logs", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<LogList>()
    )]
    async fn device_logs(
        &self,
        Parameters(p): Parameters<DeviceLogsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let filters = p
            .filter
            .unwrap_or_default()
            .iter()
            .map(|f| LogFilter::parse(f))
            .collect::<Result<Vec<_>, _>>()?;
        let save = match &p.save_to {
            Some(s) => {
                self.local_writes_allowed("saveTo")?;
                Some(
                    self.options
                        .files
                        .check_write(s, &["log", "txt", "jsonl"], p.overwrite)?,
                )
            }
            None => None,
        };
        let d = self.device(&ctx, &p.device).await?;
        let query = LogQuery {
            limit: p.limit.unwrap_or_default(),
            filters,
        };
        let _admitted = self.admit(&ctx, &d).await?;
        let lines = self
            .run(&ctx, "reading device logs", d.logs(&query))
            .await?;
        let list = LogList { lines };
        let mut rendered = list.render();
        if let Some(target) = save {
            let path = target.write(format!("{rendered}\n").into_bytes()).await?;
            rendered = format!("Saved {} lines to {}\n{rendered}", list.lines.len(), path);
        }
        structured(rendered, &list)
    }

    #[tool(
        name = "mobile_list_crashes",
        description = "List crash reports on the device, newest last, with ids for mobile_get_crash.",
        annotations(title = "List crashes", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<CrashList>()
    )]
    async fn list_crashes(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let crashes = self.run(&ctx, "listing crashes", d.crashes()).await?;
        let list = CrashList { crashes };
        structured(list.render(), &list)
    }

    #[tool(
        name = "mobile_get_crash",
        description = "Read one crash report in full, by its id from mobile_list_crashes.",
        annotations(
            title = "Get crash",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_crash(
        &self,
        Parameters(p): Parameters<GetCrashParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        if p.id.is_empty() || p.id.len() > 200 || p.id.chars().any(char::is_control) {
            return Err(Failure(format!(
                "{} is not a crash id; take one from mobile_list_crashes",
                excerpt(&p.id)
            )));
        }
        let d = self.device(&ctx, &p.device).await?;
        let t = self.run(&ctx, "reading the crash", d.crash(&p.id)).await?;
        text(t)
    }
}
