//! The tool catalogue: one method per tool, wired by rmcp's macros, each resolving its
//! `device` through the [`DeviceRegistry`] and calling the [`Device`] trait.
//!
//! This module holds the service ([`MobileServer`]), its settings, the deadline and
//! cancellation wrapper every device call goes through, the device lookup and the
//! [`Failure`] a tool returns; the tools themselves live in one file per area, each with
//! its own named router, and [`MobileServer::new`] adds the routers up.
//!
//! Invariants: a tool body never sees the payload filter (it is a layer around the
//! service); every device call runs under a deadline and stops when the client cancels;
//! every failure is an `isError` result whose text says what went wrong and what to do.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mobile_device::{Device, DeviceError, DeviceRegistry, NextStep, ScreenSize, UrlPolicy};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    IntoContents, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde_json::Value;

use crate::files::{FileRoots, Staged};
use crate::inflight::{Admission, InFlight};
use crate::lease::{LeaseBook, LeasePolicy, SessionLeases};
use crate::policy::ToolPolicy;
use crate::schema;

mod apps;
mod batch;
mod devices;
mod farm;
mod files;
mod flows;
mod input;
mod logs;
mod recording;
mod screen;
mod shared;

/// Settings that shape what tools may do.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Which URL schemes `mobile_open_url` may open.
    pub url_policy: UrlPolicy,
    /// Where tools may read and write files on this machine.
    pub files: FileRoots,
    /// Deadline of an ordinary device call.
    pub timeout: Duration,
    /// Deadline of an install (large uploads).
    pub install_timeout: Duration,
    /// Which tools are listed and callable.
    pub tools: ToolPolicy,
    /// How many heavy calls (screenshots, element lists, UI dumps, logs, pulls) may run
    /// at once on one device; more wait their turn.
    pub heavy_per_device: usize,
    /// How many heavy calls may run at once across all devices.
    pub heavy_total: usize,
    /// Whether sessions lease the devices they use, and where leases other processes
    /// see live (the `lease` module).
    pub leases: LeasePolicy,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            url_policy: UrlPolicy::default(),
            files: FileRoots::defaults(),
            timeout: Duration::from_secs(30),
            install_timeout: Duration::from_secs(300),
            tools: ToolPolicy::default(),
            heavy_per_device: crate::inflight::PER_DEVICE,
            heavy_total: crate::inflight::TOTAL,
            leases: LeasePolicy::default(),
        }
    }
}

/// The MCP service. Cheap to clone: each HTTP session gets one
/// (`MobileServer::for_session`) sharing the registry, router and device state, with
/// observations and refs of its own.
#[derive(Clone)]
pub struct MobileServer {
    registry: Arc<DeviceRegistry>,
    pub(crate) options: Arc<ServerOptions>,
    router: Arc<ToolRouter<MobileServer>>,
    /// Recordings in progress, by device id: the temporary file each is written to.
    recordings: Arc<Mutex<HashMap<String, Staged>>>,
    /// Screen sizes recently read, by device id, for the tap bounds check.
    screens: Arc<Mutex<HashMap<String, (Instant, ScreenSize)>>>,
    /// What the agent last saw of each device (refs, change lists): this session's.
    pub(crate) observed: Arc<crate::agent::Observations>,
    /// The actions this session took on each device, for `mobile_export_flow`.
    pub(crate) recorder: Arc<crate::agent::Recorder>,
    /// One turn per device for a look-up and the action on what it found, shared by
    /// every session (`crate::agent::Turns`).
    pub(crate) turns: Arc<crate::agent::Turns>,
    /// The bounds on heavy calls in flight, shared by every session.
    inflight: Arc<InFlight>,
    /// The devices this session holds ([`crate::lease`]); given back when the session's
    /// last handle is dropped.
    leases: Arc<SessionLeases>,
    /// The farm, when the server has one, and this session's allocations from it (given
    /// back when the session's last handle is dropped).
    farm: Option<Arc<farm::FarmSession>>,
}

/// The tools that read the device but can also write a local file through one
/// argument: with `--read-only` they stay listed, without that argument (and without
/// `overwrite`), and a call that passes it is refused.
const LOCAL_OUTPUT_ARGS: &[(&str, &str)] = &[
    ("mobile_ui_dump", "output_path"),
    ("mobile_get_device_logs", "saveTo"),
];

/// A tool's failure, already worded for the model. Returned as `Err`, it becomes an
/// `isError` result holding this one text.
pub(crate) struct Failure(pub(crate) String);

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

/// rmcp turns an `Err(Failure)` into these contents with `isError: true`.
impl IntoContents for Failure {
    fn into_contents(self) -> Vec<ContentBlock> {
        vec![ContentBlock::text(self.0)]
    }
}

/// What a tool body returns.
pub(crate) type Outcome = Result<CallToolResult, Failure>;

/// Longest error text a tool returns; a message that echoes a huge argument is cut in
/// `dispatch`, once, rather than in every backend.
const MAX_ERROR_CHARS: usize = 1500;

/// Cuts an error text to [`MAX_ERROR_CHARS`] with a `…N more` marker.
fn bounded_error(msg: &mut String) {
    let n = msg.chars().count();
    if n > MAX_ERROR_CHARS {
        let cut: String = msg.chars().take(MAX_ERROR_CHARS).collect();
        *msg = format!("{cut}…{} more", n - MAX_ERROR_CHARS);
    }
}

/// A successful result of one text.
fn text(t: impl Into<String>) -> Outcome {
    Ok(CallToolResult::success(vec![ContentBlock::text(t)]))
}

/// A successful result of a text and the record behind it as `structuredContent`.
pub(crate) fn structured<T: Serialize>(rendered: String, value: &T) -> Outcome {
    let v = serde_json::to_value(value)
        .map_err(|e| Failure(format!("internal error serializing the result: {e}")))?;
    let mut r = CallToolResult::success(vec![ContentBlock::text(rendered)]);
    r.structured_content = Some(v);
    Ok(r)
}

const TOOL_NAME_MAX: usize = 63;

impl MobileServer {
    /// The service over `registry`, with every tool of every area.
    pub fn new(registry: Arc<DeviceRegistry>, options: ServerOptions) -> Self {
        let mut router = Self::devices_router()
            + Self::apps_router()
            + Self::screen_router()
            + Self::input_router()
            + Self::files_router()
            + Self::logs_router()
            + Self::recording_router()
            + Self::batch_router()
            + Self::flows_router()
            + Self::wait_router();
        prepare(&mut router, &options);
        let inflight = Arc::new(InFlight::new(options.heavy_per_device, options.heavy_total));
        let leases = Arc::new(LeaseBook::new(options.leases.clone()).session());
        MobileServer {
            leases,
            farm: None,
            registry,
            inflight,
            options: Arc::new(options),
            router: Arc::new(router),
            recordings: Arc::default(),
            screens: Arc::default(),
            observed: Arc::default(),
            recorder: Arc::default(),
            turns: Arc::default(),
        }
    }

    /// This service with the farm tools, which allocate from `farm` (`--farm`).
    pub fn with_farm(mut self, farm: Arc<crate::farm::Farm>) -> Self {
        let mut router = (*self.router).clone() + Self::farm_router();
        prepare(&mut router, &self.options);
        self.router = Arc::new(router);
        self.farm = Some(Arc::new(farm::FarmSession {
            farm,
            session: self.leases.id(),
        }));
        self
    }

    /// This service for another session (an HTTP session): the same registry, router,
    /// recordings, screen sizes and device turns, and observations and refs of its own, so
    /// one session's looks neither change another's change lists nor its refs, and
    /// leases of its own.
    pub(crate) fn for_session(&self) -> MobileServer {
        let leases = Arc::new(self.leases.fresh());
        MobileServer {
            observed: Arc::default(),
            recorder: Arc::default(),
            farm: self.farm.as_ref().map(|f| {
                Arc::new(farm::FarmSession {
                    farm: f.farm.clone(),
                    session: leases.id(),
                })
            }),
            leases,
            ..self.clone()
        }
    }

    /// Refuses a local output argument when the server runs with `--read-only`.
    pub(crate) fn local_writes_allowed(&self, arg: &str) -> Result<(), Failure> {
        if self.options.tools.read_only {
            Err(Failure(format!(
                "Refused: {arg} writes a file on this machine, and this server runs with --read-only; call without {arg} to get the result in the reply."
            )))
        } else {
            Ok(())
        }
    }

    /// The error for arguments the tool's input schema does not name, if any: the one
    /// place unknown (often misspelled) arguments are caught, for every tool and every
    /// batch step, before anything reaches a device.
    fn unknown_arguments(
        &self,
        tool: &Tool,
        args: Option<&serde_json::Map<String, Value>>,
    ) -> Option<String> {
        let args = args?;
        let name = tool.name.as_ref();
        if self.options.tools.read_only
            && let Some((_, arg)) = LOCAL_OUTPUT_ARGS.iter().find(|(t, _)| *t == name)
            && args.contains_key(*arg)
        {
            return self.local_writes_allowed(arg).err().map(|f| f.0);
        }
        let known: Vec<&str> = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let unknown: Vec<&str> = args
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if unknown.is_empty() {
            return None;
        }
        let squash = |s: &str| {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_lowercase())
                .collect::<String>()
        };
        let described: Vec<String> = unknown
            .iter()
            .map(|u| {
                let shown = mobile_device::excerpt(u);
                match known.iter().find(|k| squash(k) == squash(u)) {
                    Some(k) => format!("{shown} (did you mean {k}?)"),
                    None => shown,
                }
            })
            .collect();
        let valid = if known.is_empty() {
            "it takes no arguments".to_string()
        } else {
            format!("its arguments are {}", known.join(", "))
        };
        Some(format!(
            "Invalid arguments: {name} has no argument {}; {valid}. Nothing was done.",
            described.join(", ")
        ))
    }

    /// Refuses a tool policy that names a tool this server does not have (see
    /// [`ToolPolicy::check_names`]); the binary stops at start with this text.
    pub fn check_tool_policy(&self) -> Result<(), String> {
        let mut known: Vec<String> = self
            .router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        known.sort();
        self.options.tools.check_names(&known)
    }

    /// Every tool this server lists, after the policy.
    pub fn tools(&self) -> Vec<Tool> {
        self.router
            .list_all()
            .into_iter()
            .filter(|t| self.options.tools.refusal(t).is_none())
            .collect()
    }

    /// Resolves a tool's `device` argument, under the default deadline, and leases the
    /// device to this session ([`crate::lease`]): a device another session holds is
    /// refused, saying since when.
    pub(crate) async fn device(
        &self,
        ctx: &RequestContext<RoleServer>,
        id: &str,
    ) -> Result<Arc<dyn Device>, Failure> {
        let d = self
            .bounded(
                ctx,
                "finding the device",
                self.options.timeout,
                self.registry.resolve(id),
            )
            .await?;
        self.leases.take(d.as_ref()).map_err(Failure)?;
        Ok(d)
    }

    /// Runs device work under the default deadline and the client's cancellation.
    pub(crate) async fn run<T>(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: &str,
        fut: impl Future<Output = mobile_device::Result<T>>,
    ) -> Result<T, Failure> {
        self.bounded(ctx, what, self.options.timeout, fut).await
    }

    /// The elements on the screen of `d` now, with the refs this session gives them: an
    /// element keeps its ref across lists, a new one gets a ref never used before
    /// ([`crate::agent::Observations::number`]). Every list the tools show or act on is
    /// read through here.
    pub(crate) async fn elements(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
    ) -> Result<Vec<mobile_device::Element>, Failure> {
        let _admitted = self.admit(ctx, d).await?;
        self.read_elements(ctx, d).await
    }

    /// [`elements`](Self::elements) for a caller that holds the admission already.
    pub(crate) async fn read_elements(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
    ) -> Result<Vec<mobile_device::Element>, Failure> {
        let list = self.run(ctx, "listing elements", d.list_elements()).await?;
        Ok(self.observed.number(d.id(), list))
    }

    /// Waits for room for one heavy call on `d` ([`crate::inflight`]), at most the long
    /// deadline (`--install-timeout`: a burst of calls queues longer than one call takes)
    /// and until the client cancels; hold the admission for the call's whole course, and
    /// ask for no other while holding it.
    pub(crate) async fn admit(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
    ) -> Result<Admission, Failure> {
        let what = format!(
            "waiting for the device's other screenshots, element lists and dumps (at most {} at once per device, {} in all)",
            self.inflight.per_device(),
            self.inflight.total()
        );
        self.bounded(ctx, &what, self.options.install_timeout, async {
            Ok(self.inflight.admit(d.id()).await)
        })
        .await
    }

    /// Runs device work under `limit` and the client's cancellation: the one deadline
    /// of a tool call.
    pub(crate) async fn bounded<T>(
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
        let mut request = request;
        // A tool that takes a device, called without one, gets the one device there is.
        let mut chosen = None;
        if let Some(tool) = self.router.get(&name)
            && takes_device(tool)
            && request
                .arguments
                .as_ref()
                .is_none_or(|a| a.get("device").is_none_or(Value::is_null))
        {
            let sole = tokio::select! {
                r = self.registry.sole_device() => r,
                _ = ctx.ct.cancelled() => Err(DeviceError::Cancelled { what: "finding the device".into() }),
            };
            match sole {
                Ok(id) => {
                    request
                        .arguments
                        .get_or_insert_with(Default::default)
                        .insert("device".into(), Value::String(id.clone()));
                    chosen = Some(id);
                }
                Err(e) => {
                    let Failure(why) = e.into();
                    return Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into());
                }
            }
        }
        let args = request
            .arguments
            .as_ref()
            .map(|a| crate::redact::for_log(&Value::Object(a.clone())))
            .unwrap_or(Value::Null);
        // Kept to word a decoding error (which argument, what it must be).
        let given = request.arguments.clone().unwrap_or_default();
        let started = std::time::Instant::now();
        let unknown = self
            .router
            .get(&name)
            .and_then(|tool| self.unknown_arguments(tool, request.arguments.as_ref()));
        let resp = match unknown {
            Some(why) => Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into()),
            None => {
                let tcc = ToolCallContext::new(self, request, ctx);
                self.router.call(tcc).await
            }
        };
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
            // serde's messages are for programmers and echo the offending value, which
            // may be huge: they are reworded, naming the argument.
            if let Some(rest) = t.text.strip_prefix("failed to deserialize parameters: ")
                && let Some(tool) = self.router.get(&name)
            {
                let mut rest = rest.to_string();
                bounded_error(&mut rest);
                t.text = crate::arg_errors::plain(tool, &given, &rest);
            }
            t.text = crate::arg_errors::short_numbers(&t.text);
            bounded_error(&mut t.text);
        }
        if let (Some(id), CallToolResponse::Complete(r)) = (chosen, &mut resp) {
            r.content.push(ContentBlock::text(format!(
                "Device: {id} (the only one connected; no device was given)"
            )));
        }
        Ok(resp)
    }
}

/// Readies every route of `router`: strict schemas, `device` optional, the `--read-only`
/// view of local-output tools.
fn prepare(router: &mut ToolRouter<MobileServer>, options: &ServerOptions) {
    for route in router.map.values_mut() {
        let attr = &mut route.attr;
        schema::sanitize(Arc::make_mut(&mut attr.input_schema));
        if let Some(out) = attr.output_schema.as_mut() {
            schema::sanitize(Arc::make_mut(out));
        }
        debug_assert!(attr.name.len() <= TOOL_NAME_MAX);
        device_optional(attr);
        if options.tools.read_only
            && let Some((_, arg)) = LOCAL_OUTPUT_ARGS.iter().find(|(t, _)| *t == attr.name)
        {
            read_only_view(attr, arg);
        }
    }
}

/// Whether a tool takes a `device` argument (every tool but the device listing).
fn takes_device(tool: &Tool) -> bool {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key("device"))
}

/// What the schema says of `device`: optional, since the one device there is is used.
const DEVICE_DESCRIPTION: &str = "The device id from mobile_list_available_devices. May be left out when exactly one device is connected: that one is used, and the result names it.";

/// Makes `device` optional in a tool's input schema (see [`MobileServer::dispatch`]).
fn device_optional(attr: &mut Tool) {
    if !takes_device(attr) {
        return;
    }
    let schema = Arc::make_mut(&mut attr.input_schema);
    if let Some(Value::Array(req)) = schema.get_mut("required") {
        req.retain(|r| r != "device");
        if req.is_empty() {
            schema.remove("required");
        }
    }
    if let Some(Value::Object(device)) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("device"))
    {
        device.insert("description".into(), Value::from(DEVICE_DESCRIPTION));
    }
}

/// What a local-output tool is in a `--read-only` server: without its output argument
/// and `overwrite`, and so truly read-only.
fn read_only_view(attr: &mut Tool, arg: &str) {
    let schema = Arc::make_mut(&mut attr.input_schema);
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.remove(arg);
        props.remove("overwrite");
    }
    if let Some(Value::Array(req)) = schema.get_mut("required") {
        req.retain(|r| r != arg && r != "overwrite");
    }
    if let Some(a) = attr.annotations.as_mut() {
        a.read_only_hint = Some(true);
        a.destructive_hint = Some(false);
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
            "Operate Android phones and iOS simulators. Start with mobile_list_available_devices and pass the device id to every other tool (it may be left out when exactly one device is connected). Read the screen with mobile_list_elements_on_screen (tap elements by ref) and use mobile_take_screenshot when the layout matters."
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
