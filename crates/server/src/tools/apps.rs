//! The app tools: listing, launching, stopping, installing and removing apps, the foreground app, and opening URLs.

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use std::sync::Arc;

use mobile_device::{App, AppId, Device, DeviceError, LaunchReport};

use super::{Failure, MobileServer, Outcome, structured, text};
use crate::agent::distance;
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
        description = "Open an app by its package name (Android) or bundle id (iOS), from mobile_list_apps. Brings it to the front if it is already running. To start from a known state: stopFirst, clearState (the app's data is lost), permissions ({\"all\": \"deny\", \"camera\": \"allow\"}), arguments (intent extras / launch arguments) and url (a deep link opened in the app); each is checked on the device, and one the platform cannot do is an error before anything is launched.",
        annotations(
            title = "Launch app",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn launch_app(
        &self,
        Parameters(p): Parameters<LaunchAppParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        if let Some(url) = &p.url {
            self.options.url_policy.check(url).map_err(|e| e.0)?;
        }
        let options = p.options();
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        let launched = self
            .run(&ctx, "launching the app", async {
                Ok(d.launch_app(&p.package_name, &options).await)
            })
            .await?;
        let report = match launched {
            Ok(r) => r,
            Err(e) => {
                drop(turn);
                return Err(self.app_failure(&ctx, &d, &p.package_name, e).await);
            }
        };
        drop(turn);
        let app = p.package_name.to_string();
        let action = mobile_flow::RecordedAction::launch(&app, &options).unwrap_or_else(|| {
            mobile_flow::RecordedAction::Other {
                what: format!(
                    "launching {app} in a locale or at a link (launchApp has neither; openLink opens a link)"
                ),
            }
        });
        self.record(&d, action, None, None);
        self.after_action(&ctx, &d, launched_line(&p.package_name, &report), &p.after)
            .await
    }

    #[tool(
        name = "mobile_terminate_app",
        description = "Stop a running app (force-stop on Android). Unsaved state in the app is lost. Not an error if it was not running; an error if it is not installed.",
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
        let stopped = self
            .run(&ctx, "terminating the app", async {
                Ok(d.terminate_app(&p.package_name).await)
            })
            .await?;
        if let Err(e) = stopped {
            drop(turn);
            return Err(self.app_failure(&ctx, &d, &p.package_name, e).await);
        }
        drop(turn);
        let app = p.package_name.to_string();
        self.record(
            &d,
            mobile_flow::RecordedAction::Terminate { app },
            None,
            None,
        );
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
        text(format!(
            "Installed {}",
            crate::files::shown_path(&real, &p.path)
        ))
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
        let url = p.url.to_string();
        self.record(&d, mobile_flow::RecordedAction::OpenUrl { url }, None, None);
        self.after_action(&ctx, &d, format!("Opened {}", p.url), &p.after)
            .await
    }
}

impl MobileServer {
    /// An app tool's failure. When the app was not found, the installed app the caller
    /// most likely meant is named (an app's label given for its package, "Settings" for
    /// `com.android.settings`, or a near spelling), at the cost of one app listing.
    async fn app_failure(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        given: &AppId,
        e: DeviceError,
    ) -> Failure {
        let not_found = matches!(e, DeviceError::NotFound { .. });
        let Failure(said) = e.into();
        if !not_found {
            return Failure(said);
        }
        let listed = self
            .run(ctx, "listing apps", async { Ok(d.list_apps().await) })
            .await;
        match listed {
            Ok(Ok(apps)) => match meant_app(given.as_str(), &apps) {
                Some(a) => Failure(format!(
                    "{said}. Did you mean {} ({})?",
                    a.package_name, a.app_name
                )),
                None => Failure(said),
            },
            _ => Failure(said),
        }
    }
}

/// The first line of a launch's result: what was done before the launch, then the
/// launch, e.g. "Cleared its data, granted 3 permissions, then launched com.x" ("Launched
/// com.x" for a plain one, as before).
fn launched_line(app: &AppId, report: &LaunchReport) -> String {
    let launched = match &report.url {
        Some(url) => format!("opened {url} in {app}"),
        None => format!("launched {app}"),
    };
    let done = report.summary();
    let line = if done.is_empty() {
        launched
    } else {
        format!("{done}, then {launched}")
    };
    let mut first = line.chars();
    let mut line: String = first
        .next()
        .map(|c| c.to_uppercase().chain(first).collect())
        .unwrap_or_default();
    for note in &report.notes {
        line.push_str(". ");
        line.push_str(note);
    }
    line
}

/// The installed app `given` most likely names: one whose label or package name's last
/// part is `given` (ignoring case), else the nearest package name or label within a third
/// of its length in edits.
fn meant_app<'a>(given: &str, apps: &'a [App]) -> Option<&'a App> {
    let last = |a: &App| a.package_name.rsplit('.').next().unwrap_or("").to_string();
    if let Some(a) = apps
        .iter()
        .find(|a| a.app_name.eq_ignore_ascii_case(given) || last(a).eq_ignore_ascii_case(given))
    {
        return Some(a);
    }
    let limit = (given.chars().count() / 3).max(1);
    apps.iter()
        .map(|a| {
            let d = distance(given, &a.package_name).min(distance(given, &a.app_name));
            (d, a)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}
