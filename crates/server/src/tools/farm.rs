//! The farm tools, listed only when the server has a farm (`--farm`): the farm's devices,
//! allocating one (after which every tool works on it) and giving it back. Names and
//! arguments follow `@mobilenext/mobile-mcp`'s tools of the same names
//! (`mobile_list_remote_devices`, `mobile_allocate_remote_device {platform, name,
//! version}`, `mobile_release_remote_device {device}`), so agents that know those find
//! these; `serial` is ours.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Failure, MobileServer, Outcome, structured, text};
use crate::farm::stf::StfDevice;
use crate::farm::{Allocation, Farm, Wanted};

/// Which platform to allocate.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FarmPlatform {
    Android,
    Ios,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AllocateParams {
    /// The platform to allocate a device for (the STF farm has Android devices).
    pub platform: FarmPlatform,
    /// Filter by device model. A trailing * matches a prefix (e.g. "Pixel*"); otherwise the exact model (e.g. "Pixel 7"), case-insensitive.
    #[serde(default)]
    pub name: Option<String>,
    /// Filter by Android release: an exact version ("14") or a comparison (">=12", ">12", "<=13", "<15"). Several values must all hold.
    #[serde(default)]
    pub version: Option<Vec<String>>,
    /// The farm's serial of one device to allocate (from mobile_list_remote_devices).
    #[serde(default)]
    pub serial: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReleaseParams {
    /// The device id mobile_allocate_remote_device returned (or the farm's serial).
    pub device: String,
}

/// The farm's devices.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RemoteListing {
    /// The farm's address.
    pub farm: String,
    pub devices: Vec<StfDevice>,
}

/// Ends a session's farm allocations when the session's last handle is dropped.
pub(crate) struct FarmSession {
    pub(crate) farm: Arc<Farm>,
    pub(crate) session: u64,
}

impl Drop for FarmSession {
    fn drop(&mut self) {
        self.farm.end_session_later(self.session);
    }
}

/// How long a newly connected remote device may take to be listed online.
const ONLINE_WAIT: Duration = Duration::from_secs(15);

impl MobileServer {
    fn farm(&self) -> Result<&Arc<Farm>, Failure> {
        self.farm.as_ref().map(|f| &f.farm).ok_or_else(|| {
            Failure(
                "This server has no farm; start it with --farm stf=URL --farm-token-file PATH."
                    .into(),
            )
        })
    }

    /// Waits (bounded) until our adb server lists `id` online.
    async fn wait_listed(&self, id: &str) -> bool {
        let until = tokio::time::Instant::now() + ONLINE_WAIT;
        loop {
            let listing = self.registry.list().await;
            if listing
                .devices
                .iter()
                .any(|d| d.id == id && d.state == mobile_device::DeviceState::Online)
            {
                return true;
            }
            if tokio::time::Instant::now() > until {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[tool_router(router = farm_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_list_remote_devices",
        description = "List the devices of the device farm this server is configured with (DeviceFarmer STF): serial, model, Android version and whether each is free, yours, in use by someone else or unavailable. These are not usable until allocated with mobile_allocate_remote_device; mobile_list_available_devices lists the devices already connected here.",
        annotations(title = "List farm devices", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true),
        output_schema = schema_for_output::<RemoteListing>()
    )]
    async fn list_remote_devices(&self, ctx: RequestContext<RoleServer>) -> Outcome {
        let farm = self.farm()?.clone();
        let devices = tokio::select! {
            r = farm.list() => r.map_err(Failure)?,
            _ = ctx.ct.cancelled() => return Err(Failure("listing the farm's devices was cancelled".into())),
        };
        let mut out = format!("{} devices in the farm:", devices.len());
        for d in &devices {
            out.push_str(&format!(
                "\n- {} ({} {}, Android {}): {}{}",
                d.serial,
                d.manufacturer.as_deref().unwrap_or(""),
                d.model.as_deref().unwrap_or("unknown model"),
                d.version.as_deref().unwrap_or("?"),
                d.state,
                d.owner
                    .as_deref()
                    .map(|o| format!(" by {o}"))
                    .unwrap_or_default()
            ));
        }
        structured(
            out,
            &RemoteListing {
                farm: farm.url().to_string(),
                devices,
            },
        )
    }

    #[tool(
        name = "mobile_allocate_remote_device",
        description = "Reserve a free device of the device farm (DeviceFarmer STF) for this session and connect it here; returns the device id to pass to every other tool. Only when the user asked for a farm device. The farm frees it by itself after a while without activity; release it with mobile_release_remote_device when the whole task is done (ending the session releases it too).",
        annotations(title = "Allocate farm device", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true),
        output_schema = schema_for_output::<Allocation>()
    )]
    async fn allocate_remote_device(
        &self,
        Parameters(p): Parameters<AllocateParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let farm = self.farm()?.clone();
        if p.platform == FarmPlatform::Ios {
            return Err(Failure(
                "The farm (DeviceFarmer STF) has Android devices only; call again with platform \"android\".".into(),
            ));
        }
        let versions = p.version.unwrap_or_default();
        let wanted = Wanted {
            serial: p.serial.as_deref(),
            name: p.name.as_deref(),
            version: &versions,
        };
        let session = self.leases.id();
        let got = tokio::select! {
            r = farm.allocate(session, &wanted) => r.map_err(Failure)?,
            _ = ctx.ct.cancelled() => return Err(Failure("allocating a farm device was cancelled".into())),
        };
        if !self.wait_listed(&got.device).await {
            let _ = farm.release(session, &got.device).await;
            return Err(Failure(format!(
                "The farm lent {} and our adb server connected {}, but it was not listed online within {} s; it was given back. Try again.",
                got.serial,
                got.device,
                ONLINE_WAIT.as_secs()
            )));
        }
        if let Err(f) = self.device(&ctx, &got.device).await {
            let _ = farm.release(session, &got.device).await;
            return Err(f);
        }
        structured(
            format!(
                "Allocated {} ({}, Android {}) from the farm. Its device id is {}: pass it as device to the other tools. The farm frees it after {} s without activity; call mobile_release_remote_device when the task is done.",
                got.serial,
                got.model.as_deref().unwrap_or("unknown model"),
                got.version.as_deref().unwrap_or("?"),
                got.device,
                got.idle_timeout_seconds
            ),
            &got,
        )
    }

    #[tool(
        name = "mobile_release_remote_device",
        description = "Give a device allocated with mobile_allocate_remote_device back to the farm: it is disconnected from this server and others can have it. Anything left on it (apps, files) may be lost to you.",
        annotations(
            title = "Release farm device",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn release_remote_device(
        &self,
        Parameters(p): Parameters<ReleaseParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let farm = self.farm()?.clone();
        let id = farm.lent_id(&p.device).unwrap_or(p.device);
        let said = farm.release(self.leases.id(), &id).await.map_err(Failure)?;
        self.leases.release(&id);
        text(said)
    }
}
