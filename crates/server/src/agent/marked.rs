//! Screenshots of a region (`clip`) and annotated screenshots (`annotate`): the capture and,
//! when needed, the element list taken together (one observation), the region and the marks
//! mapped from screen coordinates to the capture's pixels, and the pipeline's crop and
//! overlay (`mobile_screenshot::clip`, `mobile_screenshot::annotate`).

use std::sync::Arc;

use mobile_device::{CoordinateUnit, Device, Element, ScreenshotOptions};
use mobile_screenshot::ProcessedScreenshot;
use mobile_screenshot::annotate::{self, Mark};
use mobile_screenshot::clip::{self, Region, ScreenRect};
use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::params::ClipParam;
use crate::tools::{Failure, MobileServer};

/// A clipped or annotated screenshot.
pub(crate) struct Marked {
    /// The encoded image.
    pub image: ProcessedScreenshot,
    /// How its pixels map to screen coordinates.
    pub mapping: String,
    /// The element list the marks were drawn from (with `annotate`).
    pub elements: Option<Vec<Element>>,
}

/// Whether an element is one a model would act on: enabled, on screen, and clickable or of
/// a kind that takes input.
pub(crate) fn actionable(e: &Element) -> bool {
    const KINDS: &[&str] = &[
        "Button",
        "EditText",
        "TextField",
        "SecureTextField",
        "SearchField",
        "Switch",
        "CheckBox",
        "RadioButton",
        "Link",
        "Cell",
        "Slider",
        "ImageButton",
    ];
    let ty = e.element_type.rsplit('.').next().unwrap_or(&e.element_type);
    e.states.enabled
        && !e.rect.is_empty()
        && (e.states.clickable || KINDS.iter().any(|k| ty.ends_with(k)))
}

/// A ref as the lists print it, with its `@`.
pub(crate) fn with_at(reference: &str) -> String {
    if reference.starts_with('@') {
        reference.to_string()
    } else {
        format!("@{reference}")
    }
}

impl MobileServer {
    /// Captures the screen at full size (and lists its elements at the same time when a
    /// ref or the marks need them), then crops to `clip` and draws the marks.
    pub(crate) async fn capture_marked(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        opts: ScreenshotOptions,
        clip: Option<ClipParam>,
        annotate: bool,
    ) -> Result<Marked, Failure> {
        // The backend is asked for the whole frame: scaling happens after the crop.
        let full = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: opts.format,
        };
        let named = match &clip {
            Some(c) => c.aim()?,
            None => None,
        };
        let need_elements = annotate || named.is_some();
        let _admitted = self.admit(ctx, d).await?;
        let (shot, elements) = if need_elements {
            let (shot, elements) = tokio::join!(
                self.run(ctx, "taking a screenshot", d.screenshot(&full)),
                self.read_elements(ctx, d),
            );
            (shot?, Some(elements?))
        } else {
            (
                self.run(ctx, "taking a screenshot", d.screenshot(&full))
                    .await?,
                None,
            )
        };
        let csize = clip::capture_size(&shot)?;
        let screen = match d.coordinate_unit() {
            CoordinateUnit::Pixels => csize,
            CoordinateUnit::Points => {
                let s = self
                    .run(ctx, "reading the screen size", d.screen_size())
                    .await?;
                let (mut w, mut h) = (s.width, s.height);
                if (csize.0 > csize.1) != (w > h) {
                    std::mem::swap(&mut w, &mut h);
                }
                (w, h)
            }
        };
        let fx = f64::from(csize.0) / f64::from(screen.0.max(1));
        let fy = f64::from(csize.1) / f64::from(screen.1.max(1));
        let wanted = match &clip {
            None => None,
            Some(ClipParam::Rect(r)) => Some((r.x, r.y, r.width, r.height)),
            Some(ClipParam::Ref(_) | ClipParam::Select(_)) => {
                // A ref is bound to the observation it came from: found again where it is
                // now; a selector must name one element.
                let aim = named.as_ref().expect("an element clip names an element");
                let e = self.element_on(d, aim, elements.as_deref().unwrap_or_default(), None)?;
                let b = e.rect;
                Some((
                    f64::from(b.x),
                    f64::from(b.y),
                    f64::from(b.width),
                    f64::from(b.height),
                ))
            }
        };
        let region = match wanted {
            None => None,
            Some(rect) => Some(region_of(rect, screen, csize, (fx, fy))?),
        };
        if annotate && let Some(elements) = &elements {
            // The refs drawn are the agent's latest look at this device.
            self.observed.record(d.id(), elements);
        }
        let marks: Vec<Mark> = if annotate {
            elements
                .iter()
                .flatten()
                .filter(|e| actionable(e))
                .map(|e| Mark {
                    x: f64::from(e.rect.x) * fx,
                    y: f64::from(e.rect.y) * fy,
                    width: f64::from(e.rect.width) * fx,
                    height: f64::from(e.rect.height) * fy,
                    label: e.reference.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let image = tokio::task::spawn_blocking(move || {
            if marks.is_empty() && region.is_some() {
                clip::process_clip(&shot, region.unwrap_or(Region::whole(csize)), &opts)
            } else {
                annotate::process_annotated(&shot, &opts, region, &marks)
            }
        })
        .await
        .map_err(|e| Failure(format!("the screenshot worker failed: {e}")))??;
        drop(tokio::task::spawn_blocking(crate::memory::release_freed));
        let mapping = match region {
            Some(r) => image.clip_mapping(ScreenRect {
                x: f64::from(r.x) / fx,
                y: f64::from(r.y) / fy,
                width: f64::from(r.width) / fx,
                height: f64::from(r.height) / fy,
            }),
            None => image.coordinate_mapping(screen),
        };
        Ok(Marked {
            image,
            mapping,
            elements: if annotate { elements } else { None },
        })
    }
}

/// The capture pixels of the screen rectangle `(x, y, w, h)`, cut to the screen; an empty
/// rectangle or one wholly off the screen is refused.
fn region_of(
    (x, y, w, h): (f64, f64, f64, f64),
    screen: (u32, u32),
    capture: (u32, u32),
    (fx, fy): (f64, f64),
) -> Result<Region, Failure> {
    if !(w > 0.0 && h > 0.0) {
        return Err(Failure(format!(
            "The clip is empty ({w}x{h}); give a width and height above 0 in screen coordinates. Nothing was captured."
        )));
    }
    let (sw, sh) = (f64::from(screen.0), f64::from(screen.1));
    let (x0, y0) = (x.max(0.0), y.max(0.0));
    let (x1, y1) = ((x + w).min(sw), (y + h).min(sh));
    if x1 <= x0 || y1 <= y0 {
        return Err(Failure(format!(
            "The clip {w}x{h} at ({x}, {y}) lies outside the screen, which is {}x{} in screen coordinates (mobile_get_screen_size). Nothing was captured.",
            screen.0, screen.1
        )));
    }
    let px0 = ((x0 * fx).floor() as u32).min(capture.0.saturating_sub(1));
    let py0 = ((y0 * fy).floor() as u32).min(capture.1.saturating_sub(1));
    let px1 = ((x1 * fx).ceil() as u32).clamp(px0 + 1, capture.0);
    let py1 = ((y1 * fy).ceil() as u32).clamp(py0 + 1, capture.1);
    Ok(Region {
        x: px0,
        y: py0,
        width: px1 - px0,
        height: py1 - py0,
    })
}
