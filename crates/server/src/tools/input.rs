//! The input tools: taps, long presses, swipes, buttons and typing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mobile_device::{Button, Device, DeviceError, Point, ScreenSize, excerpt, swipe_path};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{Failure, MobileServer, Outcome};
use crate::params::*;

#[tool_router(router = input_router, vis = "pub(crate)")]
impl MobileServer {
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
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        let (at, what) = if let Some(r) = p.reference.as_deref() {
            let e = self.element_for_ref(&ctx, &d, r).await?;
            let named = if r.starts_with('@') {
                r.to_string()
            } else {
                format!("@{r}")
            };
            (e.rect.center(), format!(" ({named})"))
        } else if p.selector.given() {
            let e = self.element_for_selector(&ctx, &d, &p.selector).await?;
            (
                e.rect.center(),
                format!(" ({})", crate::selector::short(&e)),
            )
        } else {
            match (p.x, p.y) {
                (Some(x), Some(y)) => {
                    let at = Point::new(coord(x, "x")?, coord(y, "y")?);
                    self.on_screen(&ctx, &d, at).await?;
                    (at, String::new())
                }
                _ => {
                    return Err(Failure(
                        "Give either ref (from mobile_list_elements_on_screen), a selector (text, id or label), or both x and y"
                            .into(),
                    ));
                }
            }
        };
        self.run(&ctx, "tapping", d.tap(at)).await?;
        let first = format!("Tapped at ({}, {}){what}", at.x, at.y);
        self.after_action(&ctx, &d, first, &p.after).await
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
    ) -> Outcome {
        let at = Point::new(coord(p.x, "x")?, coord(p.y, "y")?);
        let d = self.device(&ctx, &p.device).await?;
        self.on_screen(&ctx, &d, at).await?;
        self.run(&ctx, "double tapping", d.double_tap(at)).await?;
        let first = format!("Double-tapped at ({}, {})", at.x, at.y);
        self.after_action(&ctx, &d, first, &p.after).await
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
    ) -> Outcome {
        let at = Point::new(coord(p.x, "x")?, coord(p.y, "y")?);
        let ms = p.duration.unwrap_or(500.0);
        if !(1.0..=10_000.0).contains(&ms) {
            return Err(Failure(format!(
                "duration must be 1 to 10000 milliseconds, got {ms}"
            )));
        }
        let d = self.device(&ctx, &p.device).await?;
        self.on_screen(&ctx, &d, at).await?;
        let dur = Duration::from_millis(ms.round() as u64);
        self.run(&ctx, "long pressing", d.long_press(at, dur))
            .await?;
        let first = format!(
            "Long-pressed at ({}, {}) for {} ms",
            at.x,
            at.y,
            dur.as_millis()
        );
        self.after_action(&ctx, &d, first, &p.after).await
    }

    #[tool(
        name = "mobile_press_button",
        description = format!("Press a hardware or navigation button: {}.", Button::describe_all("; ")),
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
    ) -> Outcome {
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
        self.after_action(&ctx, &d, format!("Pressed {b}"), &p.after)
            .await
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
    ) -> Outcome {
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
        self.remember_screen(d.id(), screen);
        let (from, to) = swipe_path(p.direction, origin, distance, &screen);
        self.run(
            &ctx,
            "swiping",
            d.swipe(from, to, Duration::from_millis(500)),
        )
        .await?;
        let first = format!(
            "Swiped {} from ({}, {}) to ({}, {})",
            serde_json::to_value(p.direction)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            from.x,
            from.y,
            to.x,
            to.y
        );
        self.after_action(&ctx, &d, first, &p.after).await
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
    ) -> Outcome {
        let d = self.device(&ctx, &p.device).await?;
        self.run(&ctx, "typing", d.type_text(&p.text)).await?;
        if p.submit {
            self.run(&ctx, "pressing ENTER", d.press_button(Button::Enter))
                .await?;
        }
        let first = format!(
            "Typed {} characters{}",
            p.text.chars().count(),
            if p.submit { " and pressed ENTER" } else { "" }
        );
        self.after_action(&ctx, &d, first, &p.after).await
    }

    #[tool(
        name = "mobile_drag_on_screen",
        description = "Drag and drop: press and hold at `from`, move to `to` over `duration` ms (default 1000), release. Each end is an element ref (\"@e5\") or {x, y} in screen coordinates. Use it to reorder list rows, move items or sliders.",
        annotations(
            title = "Drag",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn drag(
        &self,
        Parameters(p): Parameters<DragParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let ms = p.duration.unwrap_or(1000.0);
        if !(1.0..=10_000.0).contains(&ms) {
            return Err(Failure(format!(
                "duration must be 1 to 10000 milliseconds, got {ms}"
            )));
        }
        let d = self.device(&ctx, &p.device).await?;
        let needs_list = matches!(p.from, DragEnd::Ref(_)) || matches!(p.to, DragEnd::Ref(_));
        let elements = if needs_list {
            self.run(&ctx, "listing elements", d.list_elements())
                .await?
        } else {
            Vec::new()
        };
        let mut ends = Vec::new();
        for end in [&p.from, &p.to] {
            ends.push(match end {
                DragEnd::Ref(r) => {
                    let e = self.resolve_ref(&d, &super::marked::with_at(r), &elements)?;
                    (e.rect.center(), format!(" ({})", e.reference))
                }
                DragEnd::Point(pt) => {
                    let at = Point::new(coord(pt.x, "x")?, coord(pt.y, "y")?);
                    self.on_screen(&ctx, &d, at).await?;
                    (at, String::new())
                }
            });
        }
        let ((from, fw), (to, tw)) = (ends[0].clone(), ends[1].clone());
        let dur = Duration::from_millis(ms.round() as u64);
        self.run(&ctx, "dragging", d.drag(from, to, dur)).await?;
        let first = format!(
            "Dragged from ({}, {}){fw} to ({}, {}){tw} over {} ms",
            from.x,
            from.y,
            to.x,
            to.y,
            dur.as_millis()
        );
        self.after_action(&ctx, &d, first, &p.after).await
    }
}

/// How long a screen size read for the bounds check is reused.
const SCREEN_SIZE_TTL: Duration = Duration::from_secs(30);

impl MobileServer {
    /// Keeps a screen size just read for the tap bounds check.
    pub(super) fn remember_screen(&self, device: &str, s: ScreenSize) {
        self.screens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(device.to_string(), (Instant::now(), s));
    }

    /// Refuses a point outside the screen. The size comes from a cache of at most
    /// [`SCREEN_SIZE_TTL`] per device (so a run of taps costs one size read), and a
    /// refusal is always confirmed with a fresh read. The size a device reports is its
    /// natural orientation's, so a point inside the screen either way up is accepted:
    /// no orientation read is needed.
    async fn on_screen(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        at: Point,
    ) -> Result<(), Failure> {
        let inside = |s: &ScreenSize| {
            let (w, h) = (s.width as i64, s.height as i64);
            let (x, y) = (at.x as i64, at.y as i64);
            (x < w && y < h) || (x < h && y < w)
        };
        let cached = self
            .screens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(d.id())
            .filter(|(when, _)| when.elapsed() < SCREEN_SIZE_TTL)
            .map(|(_, s)| *s);
        if cached.as_ref().is_some_and(inside) {
            return Ok(());
        }
        let read = self
            .run(ctx, "reading the screen size", async {
                Ok(d.screen_size().await)
            })
            .await?;
        let s = match read {
            Ok(s) => s,
            // A device that cannot say its size keeps tapping as before.
            Err(DeviceError::Unsupported { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        self.remember_screen(d.id(), s);
        if inside(&s) {
            return Ok(());
        }
        let unit = s.unit.as_str();
        Err(Failure(format!(
            "({}, {}) is outside the screen, which is {}x{} {unit} ({}x{} turned sideways); nothing was sent. Use coordinates inside it (mobile_get_screen_size, or a ref from mobile_list_elements_on_screen)",
            at.x, at.y, s.width, s.height, s.height, s.width
        )))
    }
}

fn coord(v: f64, name: &str) -> Result<i32, Failure> {
    if !(0.0..=100_000.0).contains(&v) {
        return Err(Failure(format!(
            "{name} must be between 0 and 100000 screen coordinates, got {v}"
        )));
    }
    Ok(v.round() as i32)
}
