//! The device-wide tools: listing devices, the screen's size and orientation, the mock location and the clipboard.

use mobile_device::{Listing, Location};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, structured, text};
use crate::output::*;
use crate::params::*;

#[tool_router(router = devices_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_list_available_devices",
        description = "List the Android devices and emulators and the iOS simulators this server can reach, with the id every other tool takes as `device`. Devices that are offline, unauthorized or shut down, or in use by another session, are listed with a hint. Costs nothing on the devices.",
        annotations(title = "List devices", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<Listing>()
    )]
    async fn list_devices(&self, ctx: RequestContext<RoleServer>) -> Outcome {
        let mut listing = tokio::select! {
            l = self.registry.list() => l,
            _ = ctx.ct.cancelled() => return Err(Failure("listing devices was cancelled".into())),
        };
        // A device another session holds is not usable here: its hint says so.
        let mut taken = self.leases.in_use_by_others();
        for d in &mut listing.devices {
            if let Some(note) = taken.remove(&d.id) {
                d.hint = Some(match d.hint.take() {
                    Some(h) => format!("{h}; {note}"),
                    None => note,
                });
            }
        }
        structured(render_devices(&listing), &listing)
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
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let s = self
            .run(&ctx, "reading the screen size", d.screen_size())
            .await?;
        self.remember_screen(d.id(), s);
        let unit = s.unit.as_str();
        structured(
            format!(
                "Screen size is {}x{} {unit} (scale {})",
                s.width, s.height, s.scale
            ),
            &s,
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
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        self.run(
            &ctx,
            "changing the orientation",
            d.set_orientation(p.orientation),
        )
        .await?;
        let first = format!("Orientation set to {}", p.orientation);
        self.after_action(&ctx, &d, first, &p.after).await
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
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let o = self
            .run(&ctx, "reading the orientation", d.orientation())
            .await?;
        structured(
            format!("Current orientation is {o}"),
            &OrientationOut { orientation: o },
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
    ) -> Outcome {
        let loc = match (p.latitude, p.longitude) {
            (Some(latitude), Some(longitude)) => Some(Location {
                latitude,
                longitude,
            }),
            (None, None) => None,
            _ => {
                return Err(Failure(
                    "Give both latitude and longitude, or neither to clear the mock location"
                        .into(),
                ));
            }
        };
        let d = self.device(&ctx, &p.device).await?;
        self.run(&ctx, "setting the location", d.set_location(loc))
            .await?;
        self.record(
            &d,
            match loc {
                Some(l) => mobile_flow::RecordedAction::SetLocation {
                    latitude: l.latitude.get(),
                    longitude: l.longitude.get(),
                },
                None => mobile_flow::RecordedAction::Other {
                    what: "clearing the mock location".into(),
                },
            },
            None,
            None,
        );
        match loc {
            Some(l) => text(format!(
                "Location set to {}, {}",
                l.latitude.get(),
                l.longitude.get()
            )),
            None => text("Mock location cleared"),
        }
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
    ) -> Outcome {
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
}
