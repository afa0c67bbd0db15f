//! The app tools: listing, launching, stopping, installing and removing apps, the foreground app, and opening URLs.

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{MobileServer, Outcome, structured, text};
use crate::output::*;
use crate::params::*;

#[tool_router(router = apps_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_list_apps",
        description = "List the apps installed on the device (launchable ones on Android; user and system apps on iOS), with their package names or bundle ids.",
        annotations(title = "List apps", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<AppList>()
    )]
    async fn list_apps(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let apps = self.run(&ctx, "listing apps", d.list_apps()).await?;
        let list = AppList { apps };
        structured(list.render(), &list)
    }

    #[tool(
        name = "mobile_get_foreground_app",
        description = "Tell which app (and Android activity) is in front, to check that the right app and screen are open.",
        annotations(title = "Foreground app", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<mobile_device::ForegroundApp>()
    )]
    async fn foreground_app(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let f = self
            .run(&ctx, "reading the foreground app", d.foreground_app())
            .await?;
        structured(render_foreground(&f), &f)
    }

    #[tool(
        name = "mobile_launch_app",
        description = "Open an app by its package name (Android) or bundle id (iOS), from mobile_list_apps. Brings it to the front if it is already running.",
        annotations(
            title = "Launch app",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn launch_app(
        &self,
        Parameters(p): Parameters<LaunchAppParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        self.run(
            &ctx,
            "launching the app",
            d.launch_app(&p.package_name, p.locale.as_ref()),
        )
        .await?;
        drop(turn);
        self.after_action(&ctx, &d, format!("Launched {}", p.package_name), &p.after)
            .await
    }

    #[tool(
        name = "mobile_terminate_app",
        description = "Stop a running app (force-stop on Android). Unsaved state in the app is lost. Not an error if it was not running.",
        annotations(
            title = "Terminate app",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn terminate_app(
        &self,
        Parameters(p): Parameters<AppParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        self.run(
            &ctx,
            "terminating the app",
            d.terminate_app(&p.package_name),
        )
        .await?;
        drop(turn);
        self.after_action(&ctx, &d, format!("Terminated {}", p.package_name), &p.after)
            .await
    }

    #[tool(
        name = "mobile_install_app",
        description = "Install an app from a file on this machine: .apk on Android; an .app folder or a .zip of one on an iOS simulator. Replaces an installed version. Sends progress notifications for large files.",
        annotations(
            title = "Install app",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn install_app(
        &self,
        Parameters(p): Parameters<InstallAppParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        // Opened (a folder copied) now, once: the backend reads what was checked.
        let files = self.options.files.clone();
        let path = p.path.clone();
        let opened = tokio::task::spawn_blocking(move || {
            files.open_package(&path, &["apk", "app", "zip", "ipa"])
        })
        .await
        .map_err(|e| e.to_string())??;
        let d = self.device(&ctx, &p.device).await?;
        let (progress, forwarder) =
            self.progress_reporter(&ctx, format!("uploading {}", opened.package.name));
        let real = opened.real.clone();
        let result = self
            .bounded(
                &ctx,
                "installing the app",
                self.options.install_timeout,
                d.install_app(opened.package, progress),
            )
            .await;
        forwarder.finish().await;
        result?;
        text(format!("Installed {}", real.display()))
    }

    #[tool(
        name = "mobile_uninstall_app",
        description = "Remove an app and its data from the device.",
        annotations(
            title = "Uninstall app",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn uninstall_app(
        &self,
        Parameters(p): Parameters<UninstallAppParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        self.run(&ctx, "uninstalling the app", d.uninstall_app(&p.bundle_id))
            .await?;
        text(format!("Uninstalled {}", p.bundle_id))
    }

    #[tool(
        name = "mobile_open_url",
        description = "Open a URL on the device (in the browser, or the app that handles it). http and https only, unless the server allows more schemes.",
        annotations(
            title = "Open URL",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn open_url(
        &self,
        Parameters(p): Parameters<OpenUrlParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        self.options.url_policy.check(&p.url).map_err(|e| e.0)?;
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        self.run(&ctx, "opening the URL", d.open_url(&p.url))
            .await?;
        drop(turn);
        self.after_action(&ctx, &d, format!("Opened {}", p.url), &p.after)
            .await
    }
}
