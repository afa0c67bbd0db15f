//! The tools that read the screen: its elements, screenshots (returned or saved, whole, clipped
//! or annotated) and the raw UI dump; and folding, which changes what the screen is.

use base64::Engine;
use mobile_device::{OutputFormat, Posture, ScreenshotOptions};
use mobile_screenshot as screenshot;
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome, structured, text};
use crate::output::*;
use crate::params::*;

#[tool_router(router = screen_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_list_elements_on_screen",
        description = "List the elements on screen with a ref (@eN), type, text, label, id and position. A ref keeps naming the same element in later lists and actions, wherever it moves; a ref whose element has left the screen (or can no longer be told from look-alikes) is refused, never moved to another element. Tap one with mobile_click_on_screen_at_coordinates and `ref`. Cheaper and more exact than a screenshot.",
        annotations(title = "List elements", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ElementList>()
    )]
    async fn list_elements(
        &self,
        Parameters(p): Parameters<ListElementsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let elements = self.elements(&ctx, &d).await?;
        self.observed.record(d.id(), &elements);
        let list = ElementList { elements };
        let rendered = match p.format.unwrap_or_default() {
            ElementFormat::Text => list.render_text(),
            ElementFormat::Json => list.render_json(),
        };
        structured(rendered, &list)
    }

    #[tool(
        name = "mobile_take_screenshot",
        description = "Look at the screen: returns a JPEG (longest side 1024 px unless maxSize or scale say otherwise) and how screenshot coordinates map to screen coordinates. `clip` (a rectangle in screen coordinates, a ref, or a text/id/label selector) returns only that part at full detail; `annotate: true` draws each actionable element's box and @ref on the image and returns the element list too. Prefer mobile_list_elements_on_screen to find things to tap.",
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
    ) -> Outcome {
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
        if p.clip.is_some() || p.annotate {
            let shot = self
                .capture_marked(&ctx, &d, opts, p.clip, p.annotate)
                .await?;
            let data = base64::engine::general_purpose::STANDARD.encode(&shot.image.bytes);
            let mut content = vec![
                ContentBlock::text(shot.mapping),
                ContentBlock::image(data, shot.image.mime_type),
            ];
            if let Some(elements) = shot.elements {
                content.push(ContentBlock::text(ElementList { elements }.render_text()));
            }
            return Ok(CallToolResult::success(content));
        }
        let (img, screen) = self.capture(&ctx, &d, opts).await?;
        let data = base64::engine::general_purpose::STANDARD.encode(&img.bytes);
        Ok(CallToolResult::success(vec![
            ContentBlock::text(img.coordinate_mapping(screen)),
            ContentBlock::image(data, img.mime_type),
        ]))
    }

    #[tool(
        name = "mobile_save_screenshot",
        description = "Save a screenshot to a .png, .jpg or .jpeg file on this machine (under the working or temp directory). Full size unless maxSize or scale are given; `clip` (a rectangle in screen coordinates, a ref, or a text/id/label selector) saves only that part. An existing file is replaced only with overwrite: true.",
        annotations(
            title = "Save screenshot",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn save_screenshot(
        &self,
        Parameters(p): Parameters<SaveScreenshotParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let target =
            self.options
                .files
                .check_write(&p.save_to, &["png", "jpg", "jpeg"], p.overwrite)?;
        let is_png = target
            .path()
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
        let (img, mapping) = if p.clip.is_some() {
            let shot = self.capture_marked(&ctx, &d, opts, p.clip, false).await?;
            (shot.image, shot.mapping)
        } else {
            let (img, screen) = self.capture(&ctx, &d, opts).await?;
            let mapping = img.coordinate_mapping(screen);
            (img, mapping)
        };
        let size = img.bytes.len();
        let (width, height) = (img.width, img.height);
        let path = target.write(img.bytes).await?;
        text(format!(
            "Saved a {}x{} screenshot ({} bytes) to {}. {}",
            width, height, size, path, mapping
        ))
    }

    #[tool(
        name = "mobile_ui_dump",
        description = "Return the raw accessibility dump of the screen (uiautomator XML on Android, idb JSON on iOS), or write it to output_path (an existing file is replaced only with overwrite: true). Use mobile_list_elements_on_screen unless you need every attribute.",
        annotations(
            title = "Raw UI dump",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn ui_dump(
        &self,
        Parameters(p): Parameters<UiDumpParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let save = match &p.output_path {
            Some(s) => {
                self.local_writes_allowed("output_path")?;
                Some(
                    self.options
                        .files
                        .check_write(s, &["xml", "json", "txt"], p.overwrite)?,
                )
            }
            None => None,
        };
        let d = self.device(&ctx, &p.device).await?;
        let _admitted = self.admit(&ctx, &d).await?;
        let dump = self.run(&ctx, "dumping the UI", d.ui_dump()).await?;
        match save {
            Some(target) => {
                let n = dump.len();
                let path = target.write(dump.into_bytes()).await?;
                text(format!("Wrote {n} bytes to {path}"))
            }
            None => text(dump),
        }
    }

    #[tool(
        name = "mobile_fold_device",
        description = "Fold or unfold a foldable device: posture folded, half-open or open (or a hinge angle in degrees). Android foldables switch through their device-state service; other devices say they cannot fold.",
        annotations(
            title = "Fold device",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn fold_device(
        &self,
        Parameters(p): Parameters<FoldParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let posture = match (p.posture, p.angle) {
            (Some(posture), _) => posture,
            (None, Some(a)) => Posture::from_hinge_angle(a)
                .ok_or_else(|| Failure(format!("angle must be 0 to 360 degrees, got {a}")))?,
            (None, None) => {
                return Err(Failure(
                    "Give posture (folded, half-open or open) or angle in degrees".into(),
                ));
            }
        };
        let d = self.device(&ctx, &p.device).await?;
        let state = self
            .run(&ctx, "folding the device", d.fold(posture))
            .await?;
        text(format!(
            "Set the device to {posture} (device state {} {}). The screen's size and layout may have changed: list the elements again before tapping.",
            state.name, state.id
        ))
    }
}
