//! The input tools: taps, long presses, swipes, buttons and typing.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mobile_device::{Button, Device, GestureMillis, Point, swipe_path};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::{MobileServer, Outcome};
use crate::agent::{Aim, coord};
use crate::params::*;
use mobile_flow::RecordedAction as Rec;

#[tool_router(router = input_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_click_on_screen_at_coordinates",
        description = "Tap the screen. Prefer `ref` from mobile_list_elements_on_screen (e.g. \"@e5\") or a selector (`text`, `id` or `label`, `match` \"exact\" or \"contains\"); otherwise give x,y in screen coordinates (pixels on Android, points on iOS — multiply screenshot coordinates as the screenshot text says).",
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
        self.act_at(
            &ctx,
            (&p.device, &p.target, &p.after),
            "tapping",
            |d, at| async move { d.tap(at).await },
            |at, what| {
                (
                    Rec::Tap { at },
                    format!("Tapped at ({}, {}){what}", at.x, at.y),
                )
            },
        )
        .await
    }

    #[tool(
        name = "mobile_double_tap_on_screen",
        description = "Double-tap an element (`ref`, or a selector: `text`, `id`, `label`, `match`) or x,y in screen coordinates.",
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
        self.act_at(
            &ctx,
            (&p.device, &p.target, &p.after),
            "double tapping",
            |d, at| async move { d.double_tap(at).await },
            |at, what| {
                let first = format!("Double-tapped at ({}, {}){what}", at.x, at.y);
                (Rec::DoubleTap { at }, first)
            },
        )
        .await
    }

    #[tool(
        name = "mobile_long_press_on_screen_at_coordinates",
        description = "Press and hold an element (`ref`, or a selector: `text`, `id`, `label`, `match`) or x,y in screen coordinates (default 500 ms).",
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
        let dur = p
            .duration
            .map_or(Duration::from_millis(500), GestureMillis::get);
        self.act_at(
            &ctx,
            (&p.device, &p.target, &p.after),
            "long pressing",
            |d, at| async move { d.long_press(at, dur).await },
            |at, what| {
                let millis = dur.as_millis() as u64;
                let first = format!("Long-pressed at ({}, {}){what} for {millis} ms", at.x, at.y);
                (Rec::LongPress { at, millis }, first)
            },
        )
        .await
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
        let b = p.button;
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        self.run(&ctx, "pressing the button", d.press_button(b))
            .await?;
        drop(turn);
        let name = b.name().to_string();
        self.record(&d, Rec::Button { name }, None, None);
        self.after_action(&ctx, &d, format!("Pressed {b}"), &p.after)
            .await
    }

    #[tool(
        name = "mobile_swipe_on_screen",
        description = "Swipe in a direction (up, down, left, right), from the screen centre, from x,y or from an element (`ref`, or a selector: `text`, `id`, `label`, `match`), over `distance` (default 40% of the screen). Swipe up to scroll down a list. Kept inside the screen.",
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
        let aim = p.start.aim()?;
        let distance = match p.distance {
            Some(v) => Some(coord(v, "distance")?.max(1) as u32),
            None => None,
        };
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        // A start point must lie on the screen, as a tap's (`swipe_path` then keeps the
        // end inside it); an element is looked up.
        let (origin, what, lookup) = match aim {
            None => (None, String::new(), None),
            Some(Aim::At(at)) => {
                self.on_screen(&ctx, &d, at).await?;
                (Some(at), String::new(), None)
            }
            Some(aim) => {
                let (aimed, lookup) = self.aim(&ctx, &d, &[&aim]).await?;
                (Some(aimed[0].at), aimed[0].what.clone(), lookup)
            }
        };
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
        drop(turn);
        self.record(
            &d,
            Rec::Swipe {
                from,
                to,
                millis: 500,
            },
            None,
            None,
        );
        let first = format!(
            "Swiped {} from ({}, {}){what} to ({}, {})",
            serde_json::to_value(p.direction)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            from.x,
            from.y,
            to.x,
            to.y
        );
        self.after_action_seen(&ctx, &d, first, &p.after, lookup)
            .await
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
        let turn = self.turn(&ctx, &d).await?;
        self.run(&ctx, "typing", d.type_text(&p.text)).await?;
        if p.submit {
            self.run(&ctx, "pressing ENTER", d.press_button(Button::Enter))
                .await?;
        }
        drop(turn);
        let (text, submit) = (p.text.clone(), p.submit);
        self.record(&d, Rec::Type { text, submit }, None, None);
        let first = format!(
            "Typed {} characters{}",
            p.text.chars().count(),
            if p.submit { " and pressed ENTER" } else { "" }
        );
        self.after_typing(&ctx, &d, first, &p.after).await
    }

    #[tool(
        name = "mobile_drag_on_screen",
        description = "Drag and drop: press and hold at `from`, move to `to` over `duration` ms (default 1000), release. Each end is an element ref (\"@e5\"), {x, y} in screen coordinates, or {text | id | label, match} naming an element. Use it to reorder list rows, move items or sliders.",
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
        let dur = p
            .duration
            .map_or(Duration::from_millis(1000), GestureMillis::get);
        let (from_aim, to_aim) = (p.from.aim()?, p.to.aim()?);
        let d = self.device(&ctx, &p.device).await?;
        let turn = self.turn(&ctx, &d).await?;
        let (aimed, lookup) = self.aim(&ctx, &d, &[&from_aim, &to_aim]).await?;
        let (from, fw, to, tw) = (aimed[0].at, &aimed[0].what, aimed[1].at, &aimed[1].what);
        self.run(&ctx, "dragging", d.drag(from, to, dur)).await?;
        drop(turn);
        let what = format!(
            "a drag from ({}, {}) to ({}, {})",
            from.x, from.y, to.x, to.y
        );
        self.record(&d, Rec::Other { what }, None, None);
        let first = format!(
            "Dragged from ({}, {}){fw} to ({}, {}){tw} over {} ms",
            from.x,
            from.y,
            to.x,
            to.y,
            dur.as_millis()
        );
        self.after_action_seen(&ctx, &d, first, &p.after, lookup)
            .await
    }
}

impl MobileServer {
    /// An action at one element or point (a tap, double tap or long press): the look-up
    /// and `act` in one turn on the device, then the recorded step and the result's first
    /// line (`step`, from the point and the aimed element's description) and the screen
    /// after it.
    async fn act_at<Fut>(
        &self,
        ctx: &RequestContext<RoleServer>,
        (device, target, after): (&str, &Target, &AfterAction),
        doing: &str,
        act: impl FnOnce(Arc<dyn Device>, Point) -> Fut,
        step: impl FnOnce(Point, &str) -> (Rec, String),
    ) -> Outcome
    where
        Fut: Future<Output = mobile_device::Result<()>>,
    {
        let aim = target.required()?;
        let d = self.device(ctx, device).await?;
        let turn = self.turn(ctx, &d).await?;
        let (aimed, lookup) = self.aim(ctx, &d, &[&aim]).await?;
        let at = aimed[0].at;
        self.run(ctx, doing, act(d.clone(), at)).await?;
        drop(turn);
        let (rec, first) = step(at, &aimed[0].what);
        self.record(&d, rec, aimed.first(), lookup.as_ref());
        self.after_action_seen(ctx, &d, first, after, lookup).await
    }
}
