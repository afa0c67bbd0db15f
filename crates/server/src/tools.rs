//! The tool catalogue: one method per tool, wired by rmcp's macros, each resolving its
//! `device` through the [`DeviceRegistry`] and calling the [`Device`] trait.
//!
//! Invariants: a tool body never sees the payload filter (it is a layer around the
//! service); every device call runs under a deadline and stops when the client cancels;
//! every failure is an `isError` result whose text says what went wrong and what to do.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use mobile_device::{
    Button, CoordinateUnit, Device, DeviceError, DevicePath, DeviceRegistry, Location, LogFilter,
    LogQuery, NextStep, Point, RecordingOptions, UrlPolicy, excerpt, swipe_path,
};
use mobile_device::{OutputFormat, ScreenshotOptions};
use mobile_screenshot::{self as screenshot, ProcessedScreenshot};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_router};
use serde::Serialize;
use serde_json::Value;

use crate::files::FileRoots;
use crate::output::*;
use crate::params::*;
use crate::policy::ToolPolicy;
use crate::schema;

/// Settings that shape what tools may do.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub url_policy: UrlPolicy,
    pub files: FileRoots,
    /// Deadline of an ordinary device call.
    pub timeout: Duration,
    /// Deadline of an install (large uploads).
    pub install_timeout: Duration,
    pub tools: ToolPolicy,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            url_policy: UrlPolicy::default(),
            files: FileRoots::defaults(),
            timeout: Duration::from_secs(30),
            install_timeout: Duration::from_secs(300),
            tools: ToolPolicy::default(),
        }
    }
}

/// The MCP service. Cheap to clone: one per HTTP session shares the registry and router.
#[derive(Clone)]
pub struct MobileServer {
    registry: Arc<DeviceRegistry>,
    options: Arc<ServerOptions>,
    router: Arc<ToolRouter<MobileServer>>,
}

/// A tool's failure, already worded for the model.
struct Failure(String);

impl From<DeviceError> for Failure {
    fn from(e: DeviceError) -> Self {
        Failure(e.message_with(&next_step))
    }
}

/// A backend's next step for the model, worded with the tool that takes it.
fn next_step(step: NextStep) -> String {
    match step {
        NextStep::ListDevices => "call mobile_list_available_devices to see the devices".into(),
        NextStep::ListApps => "call mobile_list_apps to see the installed apps".into(),
        NextStep::ListCrashes => "crash ids come from mobile_list_crashes".into(),
        NextStep::ListElements => "call mobile_list_elements_on_screen to see the screen".into(),
        NextStep::TypeText => "type the text with mobile_type_keys instead".into(),
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure(s)
    }
}

impl From<&str> for Failure {
    fn from(s: &str) -> Self {
        Failure(s.to_string())
    }
}

type Outcome = Result<CallToolResult, Failure>;

/// The task that sends a call's progress notifications.
struct ProgressForwarder(Option<tokio::task::JoinHandle<()>>);

impl ProgressForwarder {
    /// Waits (briefly) until every queued notification is sent.
    async fn finish(self) {
        if let Some(task) = self.0 {
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
    }
}

/// Longest error text a tool returns; a message that echoes a huge argument is cut in
/// `dispatch`, once, rather than in every backend.
const MAX_ERROR_CHARS: usize = 1500;

fn finish(o: Outcome) -> CallToolResult {
    match o {
        Ok(r) => r,
        Err(Failure(msg)) => CallToolResult::error(vec![ContentBlock::text(msg)]),
    }
}

/// Cuts an error text to [`MAX_ERROR_CHARS`] with a `…N more` marker.
fn bounded_error(msg: &mut String) {
    let n = msg.chars().count();
    if n > MAX_ERROR_CHARS {
        let cut: String = msg.chars().take(MAX_ERROR_CHARS).collect();
        *msg = format!("{cut}…{} more", n - MAX_ERROR_CHARS);
    }
}

fn text(t: impl Into<String>) -> Outcome {
    Ok(CallToolResult::success(vec![ContentBlock::text(t)]))
}

fn structured<T: Serialize>(rendered: String, value: &T) -> Outcome {
    let v = serde_json::to_value(value)
        .map_err(|e| Failure(format!("internal error serializing the result: {e}")))?;
    let mut r = CallToolResult::success(vec![ContentBlock::text(rendered)]);
    r.structured_content = Some(v);
    Ok(r)
}

fn coord(v: f64, name: &str) -> Result<i32, Failure> {
    if !(0.0..=100_000.0).contains(&v) {
        return Err(Failure(format!(
            "{name} must be between 0 and 100000 screen coordinates, got {v}"
        )));
    }
    Ok(v.round() as i32)
}

const TOOL_NAME_MAX: usize = 63;

impl MobileServer {
    pub fn new(registry: Arc<DeviceRegistry>, options: ServerOptions) -> Self {
        let mut router = Self::tool_router();
        for route in router.map.values_mut() {
            let attr = &mut route.attr;
            schema::sanitize(Arc::make_mut(&mut attr.input_schema));
            if let Some(out) = attr.output_schema.as_mut() {
                schema::sanitize(Arc::make_mut(out));
            }
            debug_assert!(attr.name.len() <= TOOL_NAME_MAX);
        }
        MobileServer {
            registry,
            options: Arc::new(options),
            router: Arc::new(router),
        }
    }

    pub fn registry(&self) -> &Arc<DeviceRegistry> {
        &self.registry
    }

    /// Every tool this server lists, after the policy.
    pub fn tools(&self) -> Vec<Tool> {
        self.router
            .list_all()
            .into_iter()
            .filter(|t| self.options.tools.refusal(t).is_none())
            .collect()
    }

    async fn device(
        &self,
        ctx: &RequestContext<RoleServer>,
        id: &str,
    ) -> Result<Arc<dyn Device>, Failure> {
        self.bounded(
            ctx,
            "finding the device",
            self.options.timeout,
            self.registry.resolve(id),
        )
        .await
    }

    /// Runs device work under the default deadline and the client's cancellation.
    async fn run<T>(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: &str,
        fut: impl Future<Output = mobile_device::Result<T>>,
    ) -> Result<T, Failure> {
        self.bounded(ctx, what, self.options.timeout, fut).await
    }

    async fn bounded<T>(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: &str,
        limit: Duration,
        fut: impl Future<Output = mobile_device::Result<T>>,
    ) -> Result<T, Failure> {
        tokio::select! {
            r = tokio::time::timeout(limit, fut) => match r {
                Ok(r) => r.map_err(Failure::from),
                Err(_) => Err(DeviceError::Timeout { what: what.to_string(), after: limit }.into()),
            },
            _ = ctx.ct.cancelled() => Err(DeviceError::Cancelled { what: what.to_string() }.into()),
        }
    }

    async fn capture(
        &self,
        ctx: &RequestContext<RoleServer>,
        device: &Arc<dyn Device>,
        opts: ScreenshotOptions,
    ) -> Result<(ProcessedScreenshot, (u32, u32)), Failure> {
        let started = std::time::Instant::now();
        let shot = self
            .run(ctx, "taking a screenshot", device.screenshot(&opts))
            .await?;
        let captured = started.elapsed();
        let (processed, took) = tokio::task::spawn_blocking(move || {
            let began = std::time::Instant::now();
            let processed = screenshot::process(&shot, &opts);
            (processed, began.elapsed())
        })
        .await
        .map_err(|e| Failure(format!("the screenshot worker failed: {e}")))?;
        // The capture is freed; handing the freed pages back (0.1 ms here) is not on the
        // answer's path.
        drop(tokio::task::spawn_blocking(crate::memory::release_freed));
        tracing::debug!(
            capture_ms = format!("{:.2}", captured.as_secs_f64() * 1e3),
            process_ms = format!("{:.2}", took.as_secs_f64() * 1e3),
            total_ms = format!("{:.2}", started.elapsed().as_secs_f64() * 1e3),
            "screenshot stages"
        );
        let processed = processed?;
        // A device that taps in pixels has the capture's size; one that taps in points
        // is asked for its size in points.
        let screen = match device.coordinate_unit() {
            CoordinateUnit::Pixels => (processed.source_width, processed.source_height),
            CoordinateUnit::Points => {
                let s = self
                    .run(ctx, "reading the screen size", device.screen_size())
                    .await?;
                let (mut w, mut h) = (s.width, s.height);
                if (processed.source_width > processed.source_height) != (w > h) {
                    std::mem::swap(&mut w, &mut h);
                }
                (w, h)
            }
        };
        Ok((processed, screen))
    }

    /// A progress callback for long transfers, when the client asked for progress. The
    /// notifications go out in order through one task; [`ProgressForwarder::finish`]
    /// waits for them, so none arrives after the call's result.
    fn progress_reporter(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: String,
    ) -> (Option<mobile_device::ProgressFn>, ProgressForwarder) {
        let Some(token) = ctx.meta.get_progress_token() else {
            return (None, ProgressForwarder(None));
        };
        let peer = ctx.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, u64)>();
        let task = tokio::spawn(async move {
            while let Some((done, total)) = rx.recv().await {
                let mut param = ProgressNotificationParam::new(token.clone(), done as f64);
                param.total = Some(total as f64);
                param.message = Some(format!("{what}: {done} of {total} bytes"));
                if peer.notify_progress(param).await.is_err() {
                    break;
                }
            }
        });
        let last = std::sync::atomic::AtomicU64::new(u64::MAX);
        let report: mobile_device::ProgressFn = Arc::new(move |done: u64, total: u64| {
            // At most one notification per 5% step, so a large upload is not chatty.
            let step = (done * 20).checked_div(total).unwrap_or(0);
            if last.swap(step, std::sync::atomic::Ordering::Relaxed) != step {
                let _ = tx.send((done, total));
            }
        });
        (Some(report), ProgressForwarder(Some(task)))
    }

    fn invalid_arguments_hint(&self, name: &str) -> String {
        let Some(tool) = self.router.get(name) else {
            return String::new();
        };
        let required: Vec<String> = tool
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if required.is_empty() {
            String::new()
        } else {
            format!(
                " {name} needs {}; see its input schema in tools/list.",
                required.join(", ")
            )
        }
    }

    async fn dispatch(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if let Some(tool) = self.router.get(&name)
            && let Some(why) = self.options.tools.refusal(tool)
        {
            return Ok(
                CallToolResult::error(vec![ContentBlock::text(format!("Refused: {why}."))]).into(),
            );
        }
        let args = request
            .arguments
            .as_ref()
            .map(|a| crate::redact::for_log(&Value::Object(a.clone())))
            .unwrap_or(Value::Null);
        let started = std::time::Instant::now();
        let tcc = ToolCallContext::new(self, request, ctx);
        let resp = self.router.call(tcc).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let failed = match &resp {
            Ok(CallToolResponse::Complete(r)) => r.is_error == Some(true),
            _ => true,
        };
        tracing::info!(tool = %name, arguments = %args, ms = format!("{ms:.1}"), failed, "tool call");
        let mut resp = resp?;
        if let CallToolResponse::Complete(r) = &mut resp
            && r.is_error == Some(true)
            && let Some(ContentBlock::Text(t)) = r.content.first_mut()
        {
            // serde's messages echo the offending value, which may be huge.
            if let Some(rest) = t.text.strip_prefix("failed to deserialize parameters: ") {
                let mut rest = rest.to_string();
                bounded_error(&mut rest);
                t.text = format!(
                    "Invalid arguments: {rest}.{}",
                    self.invalid_arguments_hint(&name)
                );
            }
            bounded_error(&mut t.text);
        }
        Ok(resp)
    }
}

#[tool_router]
impl MobileServer {
    #[tool(
        name = "mobile_list_available_devices",
        description = "List the Android devices and emulators and the iOS simulators this server can reach, with the id every other tool takes as `device`. Devices that are offline, unauthorized or shut down are listed with a hint. Costs nothing on the devices.",
        annotations(title = "List devices", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<DeviceList>()
    )]
    async fn list_devices(&self, ctx: RequestContext<RoleServer>) -> CallToolResult {
        finish(
            async {
                let listing = tokio::select! {
                    l = self.registry.list() => l,
                    _ = ctx.ct.cancelled() => return Err(Failure("listing devices was cancelled".into())),
                };
                let list = DeviceList {
                    devices: listing.devices,
                    notes: listing.notes,
                };
                structured(list.render(), &list)
            }
            .await,
        )
    }

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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let apps = self.run(&ctx, "listing apps", d.list_apps()).await?;
                let list = AppList { apps };
                structured(list.render(), &list)
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let f = self
                    .run(&ctx, "reading the foreground app", d.foreground_app())
                    .await?;
                structured(render_foreground(&f), &f)
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                self.run(
                    &ctx,
                    "launching the app",
                    d.launch_app(&p.package_name, p.locale.as_ref()),
                )
                .await?;
                text(format!("Launched {}", p.package_name))
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                self.run(
                    &ctx,
                    "terminating the app",
                    d.terminate_app(&p.package_name),
                )
                .await?;
                text(format!("Terminated {}", p.package_name))
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let path = self
                    .options
                    .files
                    .check_read(&p.path, &["apk", "app", "zip", "ipa"])?;
                let d = self.device(&ctx, &p.device).await?;
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let (progress, forwarder) =
                    self.progress_reporter(&ctx, format!("uploading {name}"));
                let result = self
                    .bounded(
                        &ctx,
                        "installing the app",
                        self.options.install_timeout,
                        d.install_app(&path, progress),
                    )
                    .await;
                forwarder.finish().await;
                result?;
                text(format!("Installed {}", path.display()))
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "uninstalling the app", d.uninstall_app(&p.bundle_id))
                    .await?;
                text(format!("Uninstalled {}", p.bundle_id))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_get_screen_size",
        description = "Get the screen size in the coordinates taps use (pixels on Android, points on iOS) and the pixel scale.",
        annotations(title = "Screen size", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<mobile_device::ScreenSize>()
    )]
    async fn screen_size(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let s = self
                    .run(&ctx, "reading the screen size", d.screen_size())
                    .await?;
                let unit = s.unit.as_str();
                structured(
                    format!(
                        "Screen size is {}x{} {unit} (scale {})",
                        s.width, s.height, s.scale
                    ),
                    &s,
                )
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_click_on_screen_at_coordinates",
        description = "Tap the screen. Prefer `ref` from mobile_list_elements_on_screen (e.g. \"@e5\"); otherwise give x,y in screen coordinates (pixels on Android, points on iOS — multiply screenshot coordinates as the screenshot text says).",
        annotations(
            title = "Tap",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn click(
        &self,
        Parameters(p): Parameters<ClickParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let (at, what) = if let Some(r) = p.reference.as_deref() {
                    let wanted = if r.starts_with('@') {
                        r.to_string()
                    } else {
                        format!("@{r}")
                    };
                    let elements = self
                        .run(&ctx, "listing elements", d.list_elements())
                        .await?;
                    let e = elements
                        .iter()
                        .find(|e| e.reference == wanted)
                        .ok_or_else(|| {
                            Failure(format!(
                                "No element {} on the current screen ({} elements). The screen may have changed: call mobile_list_elements_on_screen again",
                                excerpt(&wanted),
                                elements.len()
                            ))
                        })?;
                    (e.rect.center(), format!(" ({wanted})"))
                } else {
                    match (p.x, p.y) {
                        (Some(x), Some(y)) => (Point::new(coord(x, "x")?, coord(y, "y")?), String::new()),
                        _ => {
                            return Err(Failure(
                                "Give either ref (from mobile_list_elements_on_screen) or both x and y".into(),
                            ));
                        }
                    }
                };
                self.run(&ctx, "tapping", d.tap(at)).await?;
                text(format!("Tapped at ({}, {}){what}", at.x, at.y))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_double_tap_on_screen",
        description = "Double-tap the screen at x,y in screen coordinates.",
        annotations(
            title = "Double tap",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn double_tap(
        &self,
        Parameters(p): Parameters<PointParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let at = Point::new(coord(p.x, "x")?, coord(p.y, "y")?);
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "double tapping", d.double_tap(at)).await?;
                text(format!("Double-tapped at ({}, {})", at.x, at.y))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_long_press_on_screen_at_coordinates",
        description = "Press and hold at x,y in screen coordinates (default 500 ms).",
        annotations(
            title = "Long press",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn long_press(
        &self,
        Parameters(p): Parameters<LongPressParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let at = Point::new(coord(p.x, "x")?, coord(p.y, "y")?);
                let ms = p.duration.unwrap_or(500.0);
                if !(1.0..=10_000.0).contains(&ms) {
                    return Err(Failure(format!(
                        "duration must be 1 to 10000 milliseconds, got {ms}"
                    )));
                }
                let d = self.device(&ctx, &p.device).await?;
                let dur = Duration::from_millis(ms.round() as u64);
                self.run(&ctx, "long pressing", d.long_press(at, dur))
                    .await?;
                text(format!(
                    "Long-pressed at ({}, {}) for {} ms",
                    at.x,
                    at.y,
                    dur.as_millis()
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_list_elements_on_screen",
        description = "List the elements on screen with a ref (@eN), type, text, label, id and position. Refs stay valid until the screen changes; tap one with mobile_click_on_screen_at_coordinates and `ref`. Cheaper and more exact than a screenshot.",
        annotations(title = "List elements", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ElementList>()
    )]
    async fn list_elements(
        &self,
        Parameters(p): Parameters<ListElementsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let elements = self
                    .run(&ctx, "listing elements", d.list_elements())
                    .await?;
                let list = ElementList { elements };
                let rendered = match p.format.unwrap_or_default() {
                    ElementFormat::Text => list.render_text(),
                    ElementFormat::Json => list.render_json(),
                };
                structured(rendered, &list)
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_press_button",
        description = "Press a hardware or navigation button: HOME, BACK (Android), MENU, ENTER, VOLUME_UP, VOLUME_DOWN, POWER, DPAD_UP/DOWN/LEFT/RIGHT/CENTER (Android TV); LOCK, SIDE_BUTTON, SIRI, APPLE_PAY (iOS).",
        annotations(
            title = "Press button",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn press_button(
        &self,
        Parameters(p): Parameters<PressButtonParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let b = Button::parse(&p.button).ok_or_else(|| {
                    Failure(format!(
                        "Unknown button {}. Use one of: {}",
                        excerpt(&p.button),
                        Button::NAMES.join(", ")
                    ))
                })?;
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "pressing the button", d.press_button(b))
                    .await?;
                text(format!("Pressed {b}"))
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                self.options.url_policy.check(&p.url).map_err(|e| e.0)?;
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "opening the URL", d.open_url(&p.url))
                    .await?;
                text(format!("Opened {}", p.url))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_swipe_on_screen",
        description = "Swipe in a direction (up, down, left, right), from the screen centre or from x,y, over `distance` (default 40% of the screen). Swipe up to scroll down a list. Kept inside the screen.",
        annotations(
            title = "Swipe",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn swipe(
        &self,
        Parameters(p): Parameters<SwipeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let origin = match (p.x, p.y) {
                    (Some(x), Some(y)) => Some(Point::new(coord(x, "x")?, coord(y, "y")?)),
                    (None, None) => None,
                    _ => {
                        return Err(Failure(
                            "Give both x and y, or neither to swipe from the screen centre".into(),
                        ));
                    }
                };
                let distance = match p.distance {
                    Some(v) => Some(coord(v, "distance")?.max(1) as u32),
                    None => None,
                };
                let d = self.device(&ctx, &p.device).await?;
                let screen = self
                    .run(&ctx, "reading the screen size", d.screen_size())
                    .await?;
                let (from, to) = swipe_path(p.direction, origin, distance, &screen);
                self.run(
                    &ctx,
                    "swiping",
                    d.swipe(from, to, Duration::from_millis(500)),
                )
                .await?;
                text(format!(
                    "Swiped {} from ({}, {}) to ({}, {})",
                    serde_json::to_value(p.direction)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    from.x,
                    from.y,
                    to.x,
                    to.y
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_type_keys",
        description = "Type text into the focused field, exactly as given (tap the field first). Set submit to press ENTER afterwards.",
        annotations(
            title = "Type text",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn type_keys(
        &self,
        Parameters(p): Parameters<TypeKeysParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "typing", d.type_text(&p.text)).await?;
                if p.submit {
                    self.run(&ctx, "pressing ENTER", d.press_button(Button::Enter))
                        .await?;
                }
                text(format!(
                    "Typed {} characters{}",
                    p.text.chars().count(),
                    if p.submit { " and pressed ENTER" } else { "" }
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_take_screenshot",
        description = "Look at the screen: returns a JPEG (longest side 1024 px unless maxSize or scale say otherwise) and how screenshot coordinates map to screen coordinates. Prefer mobile_list_elements_on_screen to find things to tap.",
        annotations(
            title = "Take screenshot",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn take_screenshot(
        &self,
        Parameters(p): Parameters<TakeScreenshotParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let opts = ScreenshotOptions {
                    max_size: p.max_size.or(if p.scale.is_none() {
                        Some(screenshot::DEFAULT_MAX_SIZE)
                    } else {
                        None
                    }),
                    scale: p.scale,
                    format: OutputFormat::Jpeg {
                        quality: screenshot::DEFAULT_JPEG_QUALITY,
                    },
                };
                let d = self.device(&ctx, &p.device).await?;
                let (img, screen) = self.capture(&ctx, &d, opts).await?;
                let data = base64::engine::general_purpose::STANDARD.encode(&img.bytes);
                Ok(CallToolResult::success(vec![
                    ContentBlock::text(img.coordinate_mapping(screen)),
                    ContentBlock::image(data, img.mime_type),
                ]))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_save_screenshot",
        description = "Save a screenshot to a .png, .jpg or .jpeg file on this machine (under the working or temp directory). Full size unless maxSize or scale are given.",
        annotations(
            title = "Save screenshot",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn save_screenshot(
        &self,
        Parameters(p): Parameters<SaveScreenshotParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let path = self
                    .options
                    .files
                    .check_write(&p.save_to, &["png", "jpg", "jpeg"])?;
                let is_png = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("png"));
                let opts = ScreenshotOptions {
                    max_size: p.max_size,
                    scale: p.scale,
                    format: if is_png {
                        OutputFormat::Png
                    } else {
                        OutputFormat::Jpeg { quality: 90 }
                    },
                };
                let d = self.device(&ctx, &p.device).await?;
                let (img, screen) = self.capture(&ctx, &d, opts).await?;
                tokio::fs::write(&path, &img.bytes)
                    .await
                    .map_err(|e| Failure(format!("could not write {}: {e}", path.display())))?;
                text(format!(
                    "Saved a {}x{} screenshot ({} bytes) to {}. {}",
                    img.width,
                    img.height,
                    img.bytes.len(),
                    path.display(),
                    img.coordinate_mapping(screen)
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_set_orientation",
        description = "Rotate the screen to portrait or landscape (turns auto-rotate off on Android).",
        annotations(
            title = "Set orientation",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn set_orientation(
        &self,
        Parameters(p): Parameters<SetOrientationParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                self.run(
                    &ctx,
                    "changing the orientation",
                    d.set_orientation(p.orientation),
                )
                .await?;
                text(format!("Orientation set to {}", p.orientation))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_get_orientation",
        description = "Get the screen orientation: portrait or landscape.",
        annotations(title = "Get orientation", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<OrientationOut>()
    )]
    async fn get_orientation(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let o = self
                    .run(&ctx, "reading the orientation", d.orientation())
                    .await?;
                structured(
                    format!("Current orientation is {o}"),
                    &OrientationOut { orientation: o },
                )
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_set_location",
        description = "Set a mock GPS location (latitude and longitude in degrees), or clear it by omitting both.",
        annotations(
            title = "Set location",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn set_location(
        &self,
        Parameters(p): Parameters<SetLocationParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let loc = match (p.latitude, p.longitude) {
                    (Some(latitude), Some(longitude)) => {
                        if !(-90.0..=90.0).contains(&latitude)
                            || !(-180.0..=180.0).contains(&longitude)
                        {
                            return Err(Failure(
                                "latitude must be -90 to 90 and longitude -180 to 180".into(),
                            ));
                        }
                        Some(Location {
                            latitude,
                            longitude,
                        })
                    }
                    (None, None) => None,
                    _ => return Err(Failure(
                        "Give both latitude and longitude, or neither to clear the mock location"
                            .into(),
                    )),
                };
                let d = self.device(&ctx, &p.device).await?;
                self.run(&ctx, "setting the location", d.set_location(loc))
                    .await?;
                match loc {
                    Some(l) => text(format!("Location set to {}, {}", l.latitude, l.longitude)),
                    None => text("Mock location cleared"),
                }
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_clipboard",
        description = "Read the device clipboard, or replace its content with `text`.",
        annotations(
            title = "Clipboard",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn clipboard(
        &self,
        Parameters(p): Parameters<ClipboardParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                match p.text {
                    Some(t) => {
                        self.run(&ctx, "setting the clipboard", d.set_clipboard(&t))
                            .await?;
                        text(format!("Clipboard set ({} characters)", t.chars().count()))
                    }
                    None => {
                        let t = self
                            .run(&ctx, "reading the clipboard", d.clipboard())
                            .await?;
                        text(t)
                    }
                }
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_get_device_logs",
        description = "Read recent device log lines (logcat on Android, the unified log on iOS) as JSON lines, newest last, optionally filtered and saved to a file.",
        annotations(title = "Device logs", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<LogList>()
    )]
    async fn device_logs(
        &self,
        Parameters(p): Parameters<DeviceLogsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let limit = p.limit.unwrap_or(100);
                if !(1..=10_000).contains(&limit) {
                    return Err(Failure(format!("limit must be 1 to 10000, got {limit}")));
                }
                let filters = p
                    .filter
                    .unwrap_or_default()
                    .iter()
                    .map(|f| LogFilter::parse(f))
                    .collect::<Result<Vec<_>, _>>()?;
                let save = match &p.save_to {
                    Some(s) => Some(
                        self.options
                            .files
                            .check_write(s, &["log", "txt", "jsonl"])?,
                    ),
                    None => None,
                };
                let d = self.device(&ctx, &p.device).await?;
                let query = LogQuery {
                    limit: limit as usize,
                    filters,
                };
                let lines = self
                    .run(&ctx, "reading device logs", d.logs(&query))
                    .await?;
                let list = LogList { lines };
                let mut rendered = list.render();
                if let Some(path) = save {
                    tokio::fs::write(&path, format!("{rendered}\n"))
                        .await
                        .map_err(|e| Failure(format!("could not write {}: {e}", path.display())))?;
                    rendered = format!(
                        "Saved {} lines to {}\n{rendered}",
                        list.lines.len(),
                        path.display()
                    );
                }
                structured(rendered, &list)
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_start_screen_recording",
        description = "Start recording the screen to an .mp4 on this machine (default: a new file in the temp directory). Stop with mobile_stop_screen_recording.",
        annotations(
            title = "Start recording",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn start_recording(
        &self,
        Parameters(p): Parameters<StartRecordingParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let limit = p.time_limit.unwrap_or(180);
                if !(1..=180).contains(&limit) {
                    return Err(Failure(format!("timeLimit must be 1 to 180 seconds, got {limit}")));
                }
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
                let path = self.options.files.check_write(&output, &["mp4"])?;
                let d = self.device(&ctx, &p.device).await?;
                let opts = RecordingOptions {
                    output: path.clone(),
                    time_limit: Some(Duration::from_secs(limit as u64)),
                };
                self.run(&ctx, "starting the recording", d.start_recording(&opts))
                    .await?;
                text(format!(
                    "Recording started; it will be written to {} (at most {limit} s). Stop it with mobile_stop_screen_recording.",
                    path.display()
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_stop_screen_recording",
        description = "Stop the screen recording and save the video; reports its path, size and length.",
        annotations(
            title = "Stop recording",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn stop_recording(
        &self,
        Parameters(p): Parameters<DeviceParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let r = self
                    .bounded(
                        &ctx,
                        "stopping the recording",
                        self.options.install_timeout,
                        d.stop_recording(),
                    )
                    .await?;
                text(format!(
                    "Recording saved to {} ({:.2} MB, about {} s)",
                    r.path.display(),
                    r.bytes as f64 / 1_000_000.0,
                    r.duration.as_secs()
                ))
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
                let d = self.device(&ctx, &p.device).await?;
                let crashes = self.run(&ctx, "listing crashes", d.crashes()).await?;
                let list = CrashList { crashes };
                structured(list.render(), &list)
            }
            .await,
        )
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
    ) -> CallToolResult {
        finish(
            async {
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
            .await,
        )
    }

    #[tool(
        name = "mobile_ui_dump",
        description = "Return the raw accessibility dump of the screen (uiautomator XML on Android, idb JSON on iOS), or write it to output_path. Use mobile_list_elements_on_screen unless you need every attribute.",
        annotations(
            title = "Raw UI dump",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn ui_dump(
        &self,
        Parameters(p): Parameters<UiDumpParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let save = match &p.output_path {
                    Some(s) => Some(self.options.files.check_write(s, &["xml", "json", "txt"])?),
                    None => None,
                };
                let d = self.device(&ctx, &p.device).await?;
                let dump = self.run(&ctx, "dumping the UI", d.ui_dump()).await?;
                match save {
                    Some(path) => {
                        tokio::fs::write(&path, &dump).await.map_err(|e| {
                            Failure(format!("could not write {}: {e}", path.display()))
                        })?;
                        text(format!("Wrote {} bytes to {}", dump.len(), path.display()))
                    }
                    None => text(dump),
                }
            }
            .await,
        )
    }

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
    ) -> CallToolResult {
        finish(
            async {
                let local = self.options.files.check_read(&p.local_path, &[])?;
                if !local.is_file() {
                    return Err(Failure(format!("{} is not a file", local.display())));
                }
                let remote = DevicePath::parse(&p.remote_path).map_err(|e| e.0)?;
                if !p.force && !remote.is_under("/sdcard") {
                    return Err(Failure(format!(
                        "{remote} is outside /sdcard; pass force: true to write elsewhere on the device"
                    )));
                }
                let d = self.device(&ctx, &p.device).await?;
                let n = self
                    .bounded(&ctx, "pushing the file", self.options.install_timeout, d.push_file(&local, &remote))
                    .await?;
                text(format!("Pushed {} ({n} bytes) to {remote}", local.display()))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_adb_pull",
        description = "Copy a file from the device to this machine (under the working or temp directory).",
        annotations(
            title = "Pull file",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pull(
        &self,
        Parameters(p): Parameters<PullParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                let remote = DevicePath::parse(&p.remote_path).map_err(|e| e.0)?;
                let local = self.options.files.check_write(&p.local_path, &[])?;
                let d = self.device(&ctx, &p.device).await?;
                let n = self
                    .bounded(
                        &ctx,
                        "pulling the file",
                        self.options.install_timeout,
                        d.pull_file(&remote, &local),
                    )
                    .await?;
                text(format!(
                    "Pulled {remote} ({n} bytes) to {}",
                    local.display()
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "mobile_batch_commands",
        description = "Run several tool calls on one device in order, in one request. Each step is {name, arguments} without `device`. Stops at the first error unless stopOnError is false. Screenshots and nested batches are not allowed.",
        annotations(
            title = "Batch",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn batch(
        &self,
        Parameters(p): Parameters<BatchParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        finish(
            async {
                if p.steps.is_empty() {
                    return Err(Failure("steps must hold at least one step".into()));
                }
                for (i, s) in p.steps.iter().enumerate() {
                    if s.name == "mobile_batch_commands" || s.name == "mobile_take_screenshot" {
                        return Err(Failure(format!(
                            "Step {} ({}) is not allowed in a batch; call it on its own",
                            i + 1,
                            s.name
                        )));
                    }
                    if self.router.get(&s.name).is_none() {
                        return Err(Failure(format!(
                            "Step {} names an unknown tool {:?}",
                            i + 1,
                            s.name
                        )));
                    }
                }
                let mut lines = Vec::new();
                let mut failed = false;
                let mut steps: Vec<(String, serde_json::Map<String, Value>)> = p
                    .steps
                    .into_iter()
                    .map(|s| (s.name, s.arguments.unwrap_or_default()))
                    .collect();
                if p.list_elements_at_end {
                    steps.push((
                        "mobile_list_elements_on_screen".to_string(),
                        Default::default(),
                    ));
                }
                for (i, (name, mut args)) in steps.into_iter().enumerate() {
                    args.insert("device".into(), Value::String(p.device.clone()));
                    let req = CallToolRequestParams::new(name.clone()).with_arguments(args);
                    let resp = Box::pin(self.dispatch(req, ctx.clone())).await;
                    let (ok, body) = match resp {
                        Ok(CallToolResponse::Complete(r)) => {
                            let body = r
                                .content
                                .iter()
                                .filter_map(|c| match c {
                                    ContentBlock::Text(t) => Some(t.text.clone()),
                                    _ => None,
                                })
                                .collect::<Vec<_>>()
                                .join("\n");
                            (r.is_error != Some(true), body)
                        }
                        Ok(_) => (
                            false,
                            "the step asked for input, which batches cannot give".to_string(),
                        ),
                        Err(e) => (false, e.message.to_string()),
                    };
                    lines.push(format!(
                        "Step {} ({name}): {}{body}",
                        i + 1,
                        if ok { "" } else { "FAILED: " }
                    ));
                    if !ok {
                        failed = true;
                        if p.stop_on_error {
                            lines.push("Stopped at the first failure (stopOnError).".into());
                            break;
                        }
                    }
                }
                let joined = lines.join("\n");
                if failed {
                    Err(Failure(joined))
                } else {
                    text(joined)
                }
            }
            .await,
        )
    }
}

impl ServerHandler for MobileServer {
    // Logging is deprecated by SEP-2577 but still probed by clients and the conformance
    // suite; answering it costs nothing.
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        // Prompts and resources are declared (and listed empty) so that clients probing
        // them get an empty list rather than "method not found"; logging/setLevel is
        // accepted, but logs stay on stderr (they may hold device details, and a client
        // cannot bound their volume).
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_logging()
                .build(),
        );
        info.server_info = Implementation::new("mobile-mcp", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Operate Android phones and iOS simulators. Start with mobile_list_available_devices and pass the device id to every other tool. Read the screen with mobile_list_elements_on_screen (tap elements by ref) and use mobile_take_screenshot when the layout matters."
                .to_string(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tracing::info!(level = ?request.level, "client asked for a log level; logs stay on stderr");
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let t = self.router.get(name)?;
        self.options.tools.refusal(t).is_none().then(|| t.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.dispatch(request, context).await
    }
}
