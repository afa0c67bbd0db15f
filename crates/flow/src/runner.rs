//! Running a flow on a device, step by step, through the `Device` trait.
//!
//! After each action the runner waits for the screen to settle with the server's own
//! wait (`mobile_device::settle`: two equal `screen_fingerprint`s a few frames apart, or
//! two equal element lists where the device has no fingerprint). Look-ups poll the element list until the
//! selector finds its element or the step's timeout passes: `assertVisible`,
//! `assertNotVisible` and every element a command acts on wait up to
//! [`RunOptions::lookup_timeout`] (Maestro's `lookupTimeoutMs`, 17 s, `Orchestra.kt`);
//! `extendedWaitUntil` waits its own `timeout`. Gestures follow Maestro's Android driver
//! (`AndroidDriver.kt`: directional swipes from 50 % to 10 % of the screen and back,
//! long press 3 s, `scroll` a swipe up over 400 ms; `hideKeyboard` the Back key).
//!
//! Each step's report says its line, command, what matched, what was done and whether
//! its check held; the first failing step that is not `optional` stops the flow, and its
//! report names the nearest candidates on screen (by text similarity).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mobile_device::{
    AppId, ArgumentKey, ArgumentValue, Button, Device, DeviceError, DeviceUrl, Element, Latitude,
    LaunchArguments, LaunchOptions, Location, Longitude, Permissions, Point, Screenshot,
};

use crate::matcher::find;
use crate::model::*;
use crate::report::{FlowReport, StepReport, nearest};

/// Where `takeScreenshot` puts its picture: gets the name the flow gave and the capture
/// (the caller encodes it: this crate has no image stack), returns where it went.
pub type ScreenshotSink = Arc<dyn Fn(&str, Screenshot) -> Result<String, String> + Send + Sync>;

/// How a flow runs.
#[derive(Clone)]
pub struct RunOptions {
    /// How long `assertVisible` / `assertNotVisible` and element look-ups wait.
    pub lookup_timeout: Duration,
    /// The longest settle wait after an action.
    pub settle_timeout: Duration,
    /// The pause between two element-list look-ups while waiting for an element.
    pub poll: Duration,
    /// Where `takeScreenshot` writes; without one that step fails.
    pub screenshots: Option<ScreenshotSink>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            lookup_timeout: Duration::from_millis(17_000),
            settle_timeout: Duration::from_secs(3),
            poll: Duration::from_millis(200),
            screenshots: None,
        }
    }
}

/// The most rounds a `repeat` with only `while` runs.
const MAX_REPEAT: u32 = 1000;

/// Runs `flow` on `device`; the report holds every step that ran.
pub async fn run_flow(device: &dyn Device, flow: &Flow, options: &RunOptions) -> FlowReport {
    let start = Instant::now();
    let mut r = Runner {
        d: device,
        o: options,
        reports: Vec::new(),
    };
    let failure = r.steps(&flow.steps, 0).await.err();
    FlowReport {
        name: flow.config.name.clone().unwrap_or_default(),
        passed: failure.is_none(),
        failure,
        steps: r.reports,
        duration: start.elapsed(),
    }
}

/// Maps `launchApp` to the device's launch options, with Maestro's defaults: the app is
/// stopped first unless `stopApp: false`, and every permission is allowed unless
/// `permissions` says otherwise (Maestro's `LaunchAppCommand` and
/// `Orchestra.launchAppCommand`). `arguments` keep YAML's plain-scalar types: a whole
/// number, `true`/`false` or a decimal is passed as such, anything else as text (a quoted
/// `"3"` reads as a number here, where Maestro would pass text). An option the device
/// types refuse is an error naming the line.
pub fn launch_options_from_step(launch: &LaunchApp, line: usize) -> Result<LaunchOptions, String> {
    let bad =
        |what: &str, e: &dyn std::fmt::Display| format!("line {line}: launchApp's {what}: {e}");
    let permissions = match &launch.permissions {
        None => Permissions::allow_all(),
        Some(pairs) => {
            let map: serde_json::Map<String, serde_json::Value> = pairs
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            serde_json::from_value(serde_json::Value::Object(map))
                .map_err(|e| bad("permissions", &e))?
        }
    };
    let mut arguments = Vec::new();
    for (k, v) in launch.arguments.iter().flatten() {
        let key = ArgumentKey::parse(k).map_err(|e| bad("arguments", &e))?;
        let value = if let Ok(i) = v.parse::<i64>() {
            ArgumentValue::Int(i)
        } else if v == "true" || v == "false" {
            ArgumentValue::Bool(v == "true")
        } else if let Ok(f) = v
            .parse::<f64>()
            .map_err(|_| ())
            .and_then(|f| if f.is_finite() { Ok(f) } else { Err(()) })
        {
            ArgumentValue::Float(f)
        } else {
            ArgumentValue::Text(v.clone())
        };
        arguments.push((key, value));
    }
    Ok(LaunchOptions {
        locales: None,
        stop_first: launch.stop_app,
        clear_state: launch.clear_state == Some(true),
        permissions: Some(permissions),
        arguments: LaunchArguments::new(arguments).map_err(|e| bad("arguments", &e))?,
        url: None,
    })
}

struct Runner<'a> {
    d: &'a dyn Device,
    o: &'a RunOptions,
    reports: Vec<StepReport>,
}

/// What one step did: what it matched, what it did, its check.
#[derive(Default)]
struct Done {
    matched: Option<String>,
    action: String,
    check: Option<String>,
}

type StepResult = Result<Done, String>;

type Boxed<'s> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send + 's>>;

impl<'a> Runner<'a> {
    /// Runs steps in order (boxed: `runFlow` and `repeat` recurse).
    fn steps<'s>(&'s mut self, steps: &'s [Step], depth: usize) -> Boxed<'s>
    where
        'a: 's,
    {
        Box::pin(async move {
            for step in steps {
                self.step(step, depth).await?;
            }
            Ok(())
        })
    }

    async fn step(&mut self, step: &Step, depth: usize) -> Result<(), String> {
        let started = Instant::now();
        let index = self.reports.len();
        self.reports.push(StepReport::new(step, depth));
        let result = match &step.command {
            Command::RunFlow { steps, file } => {
                let r = self.steps(steps, depth + 1).await;
                r.map(|()| Done {
                    action: match file {
                        Some(f) => format!("ran {} steps of {f}", steps.len()),
                        None => format!("ran {} inline steps", steps.len()),
                    },
                    ..Default::default()
                })
            }
            Command::Repeat {
                times,
                condition,
                steps,
            } => self.repeat(*times, condition.as_ref(), steps, depth).await,
            other => self.command(other, step.line).await,
        };
        let report = &mut self.reports[index];
        report.duration = started.elapsed();
        match result {
            Ok(done) => {
                report.passed = true;
                report.matched = done.matched;
                report.action = done.action;
                report.check = done.check;
                Ok(())
            }
            Err(why) => {
                report.passed = false;
                report.error = Some(why.clone());
                if step.optional {
                    report.action = "optional step failed; the flow goes on".into();
                    return Ok(());
                }
                let place = match &step.file {
                    Some(f) => format!("{f}, line {}", step.line),
                    None => format!("line {}", step.line),
                };
                Err(format!(
                    "step at {place} ({}) failed: {why}",
                    step.label.as_deref().unwrap_or(step.command.name())
                ))
            }
        }
    }

    async fn repeat(
        &mut self,
        times: Option<u32>,
        condition: Option<&Condition>,
        steps: &[Step],
        depth: usize,
    ) -> StepResult {
        let max = times.unwrap_or(MAX_REPEAT);
        let mut rounds = 0;
        while rounds < max {
            if let Some(c) = condition
                && !self.holds(c).await?
            {
                break;
            }
            self.steps(steps, depth + 1).await?;
            rounds += 1;
        }
        if times.is_none() && rounds == MAX_REPEAT {
            return Err(format!(
                "the while condition still held after {MAX_REPEAT} rounds"
            ));
        }
        Ok(Done {
            action: format!("repeated {rounds} times"),
            ..Default::default()
        })
    }

    async fn holds(&self, c: &Condition) -> Result<bool, String> {
        let list = self.elements().await?;
        let visible = c.visible.as_ref().is_none_or(|s| find(s, &list).is_some());
        let gone = c
            .not_visible
            .as_ref()
            .is_none_or(|s| find(s, &list).is_none());
        Ok(visible && gone)
    }

    async fn command(&mut self, c: &Command, line: usize) -> StepResult {
        let d = self.d;
        let mut done = Done::default();
        match c {
            Command::LaunchApp(l) => {
                let options = launch_options_from_step(l, line)?;
                let app = AppId::parse(&l.app_id).map_err(|e| e.to_string())?;
                let report = d.launch_app(&app, &options).await.map_err(dev)?;
                let before = report.summary();
                done.action = if before.is_empty() {
                    format!("launched {}", l.app_id)
                } else {
                    format!("{before}, then launched {}", l.app_id)
                };
            }
            Command::Tap { kind, target } => {
                let at = match target {
                    Target::Element(s) => {
                        let e = self.wait_for(s, self.o.lookup_timeout).await?;
                        done.matched = Some(describe(&e));
                        e.rect.center()
                    }
                    Target::Point(p) => self.point(*p).await?,
                };
                match kind {
                    TapKind::Tap => d.tap(at).await,
                    TapKind::Double => d.double_tap(at).await,
                    TapKind::Long => d.long_press(at, Duration::from_secs(3)).await,
                }
                .map_err(dev)?;
                done.action = format!("{} at ({}, {})", kind.command(), at.x, at.y);
            }
            Command::InputText(t) => {
                d.type_text(t).await.map_err(dev)?;
                done.action = format!("typed {} characters", t.chars().count());
            }
            Command::EraseText(n) => {
                for _ in 0..*n {
                    d.press_button(Button::Delete).await.map_err(dev)?;
                }
                done.action = format!("erased {n} characters");
            }
            Command::AssertVisible(s) => {
                let e = self.wait_for(s, self.o.lookup_timeout).await?;
                done.matched = Some(describe(&e));
                done.check = Some(format!("{} is visible", s.describe()));
                return Ok(done);
            }
            Command::AssertNotVisible(s) => {
                self.wait_gone(s, self.o.lookup_timeout).await?;
                done.check = Some(format!("{} is not visible", s.describe()));
                return Ok(done);
            }
            Command::ExtendedWaitUntil {
                visible,
                not_visible,
                timeout,
            } => {
                if let Some(s) = visible {
                    let e = self.wait_for(s, *timeout).await?;
                    done.matched = Some(describe(&e));
                    done.check = Some(format!("{} became visible", s.describe()));
                }
                if let Some(s) = not_visible {
                    self.wait_gone(s, *timeout).await?;
                    done.check = Some(format!("{} is gone", s.describe()));
                }
                return Ok(done);
            }
            Command::Scroll => {
                let (from, to) = self.directional(Direction::Up, None).await?;
                d.swipe(from, to, Duration::from_millis(400))
                    .await
                    .map_err(dev)?;
                done.action = "scrolled down (swipe up)".into();
            }
            Command::Swipe(s) => {
                let (from, to, dur) = match s {
                    Swipe::Direction(dir, dur) => {
                        let (a, b) = self.directional(*dir, None).await?;
                        (a, b, *dur)
                    }
                    Swipe::Points(a, b, dur) => {
                        (self.point(*a).await?, self.point(*b).await?, *dur)
                    }
                    Swipe::FromElement(sel, dir, dur) => {
                        let e = self.wait_for(sel, self.o.lookup_timeout).await?;
                        done.matched = Some(describe(&e));
                        let (a, b) = self.directional(*dir, Some(e.rect.center())).await?;
                        (a, b, *dur)
                    }
                };
                d.swipe(from, to, dur).await.map_err(dev)?;
                done.action = format!(
                    "swiped from ({}, {}) to ({}, {})",
                    from.x, from.y, to.x, to.y
                );
            }
            Command::ScrollUntilVisible {
                element,
                direction,
                timeout,
                visibility,
                center: _,
            } => {
                let e = self
                    .scroll_until(element, *direction, *timeout, *visibility)
                    .await?;
                done.matched = Some(describe(&e.0));
                done.action = format!("scrolled {} times", e.1);
                done.check = Some(format!("{} is visible", element.describe()));
                return Ok(done);
            }
            Command::Back => {
                d.press_button(Button::Back).await.map_err(dev)?;
                done.action = "pressed BACK".into();
            }
            Command::PressKey(name) => {
                let b = key(name).ok_or_else(|| {
                    format!("pressKey {name:?} is no key this runner knows (Enter, Backspace, Back, Home, Lock, Power, Volume Up, Volume Down, Remote Dpad Up/Down/Left/Right/Center)")
                })?;
                d.press_button(b).await.map_err(dev)?;
                done.action = format!("pressed {b}");
            }
            Command::HideKeyboard => {
                d.press_button(Button::Back).await.map_err(dev)?;
                done.action = "pressed BACK to hide the keyboard".into();
            }
            Command::OpenLink(url) => {
                let u = DeviceUrl::parse(url).map_err(|e| e.to_string())?;
                d.open_url(&u).await.map_err(dev)?;
                done.action = format!("opened {url}");
            }
            Command::WaitForAnimationToEnd { timeout } => {
                let settled = self.settle(timeout.unwrap_or(self.o.settle_timeout)).await;
                done.action = if settled {
                    "the screen settled".into()
                } else {
                    "the screen was still changing at the timeout".into()
                };
                return Ok(done);
            }
            Command::TakeScreenshot(name) => {
                let Some(sink) = &self.o.screenshots else {
                    return Err("takeScreenshot has nowhere to write here".into());
                };
                let shot = d
                    .screenshot(&mobile_device::ScreenshotOptions::default())
                    .await
                    .map_err(dev)?;
                done.action = format!("saved {}", sink(name, shot)?);
                return Ok(done);
            }
            Command::SetLocation {
                latitude,
                longitude,
            } => {
                let loc = Location {
                    latitude: Latitude::parse(*latitude).map_err(|e| e.to_string())?,
                    longitude: Longitude::parse(*longitude).map_err(|e| e.to_string())?,
                };
                d.set_location(Some(loc)).await.map_err(dev)?;
                done.action = format!("set the location to {latitude}, {longitude}");
            }
            Command::RunFlow { .. } | Command::Repeat { .. } => {
                unreachable!("handled by step()")
            }
        }
        self.settle(self.o.settle_timeout).await;
        Ok(done)
    }

    /// The element list now.
    async fn elements(&self) -> Result<Vec<Element>, String> {
        self.d.list_elements().await.map_err(dev)
    }

    /// Polls until `s` finds an element, at most `timeout`.
    async fn wait_for(&self, s: &Selector, timeout: Duration) -> Result<Element, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let list = self.elements().await?;
            if let Some(i) = find(s, &list) {
                return Ok(list[i].clone());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no element matches {} after {} ms; nearest on screen: {}",
                    s.describe(),
                    timeout.as_millis(),
                    nearest(s, &list)
                ));
            }
            tokio::time::sleep(self.o.poll).await;
        }
    }

    /// Polls until `s` finds nothing, at most `timeout`.
    async fn wait_gone(&self, s: &Selector, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            let list = self.elements().await?;
            let Some(i) = find(s, &list) else {
                return Ok(());
            };
            if Instant::now() >= deadline {
                return Err(format!(
                    "{} is still visible after {} ms: {}",
                    s.describe(),
                    timeout.as_millis(),
                    describe(&list[i])
                ));
            }
            tokio::time::sleep(self.o.poll).await;
        }
    }

    async fn scroll_until(
        &self,
        s: &Selector,
        direction: Direction,
        timeout: Duration,
        visibility: u8,
    ) -> Result<(Element, u32), String> {
        let deadline = Instant::now() + timeout;
        let (w, h) = self.size().await?;
        let mut swipes = 0;
        loop {
            let list = self.elements().await?;
            if let Some(i) = find(s, &list)
                && visible_share(&list[i], w, h) * 100.0 >= f64::from(visibility)
            {
                return Ok((list[i].clone(), swipes));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no visible element matches {} after {swipes} swipes; nearest on screen: {}",
                    s.describe(),
                    nearest(s, &list)
                ));
            }
            // Scrolling DOWN moves the content up: the finger swipes UP (Maestro's
            // `ScrollDirection.toSwipeDirection`).
            let swipe = match direction {
                Direction::Down => Direction::Up,
                Direction::Up => Direction::Down,
                Direction::Left => Direction::Right,
                Direction::Right => Direction::Left,
            };
            let centre = Point::new(w / 2, h / 2);
            let (from, to) = self.directional(swipe, Some(centre)).await?;
            self.d
                .swipe(from, to, Duration::from_millis(400))
                .await
                .map_err(dev)?;
            swipes += 1;
            self.settle(self.o.settle_timeout).await;
        }
    }

    /// A swipe's ends as Maestro's Android driver draws them: from the centre (or `from`)
    /// to 10 % / 90 % of the screen.
    async fn directional(
        &self,
        dir: Direction,
        from: Option<Point>,
    ) -> Result<(Point, Point), String> {
        let (w, h) = self.size().await?;
        let pct = |v: i32, p: i32| v * p / 100;
        Ok(match from {
            None => match dir {
                Direction::Up => (
                    Point::new(pct(w, 50), pct(h, 50)),
                    Point::new(pct(w, 50), pct(h, 10)),
                ),
                Direction::Down => (
                    Point::new(pct(w, 50), pct(h, 20)),
                    Point::new(pct(w, 50), pct(h, 90)),
                ),
                Direction::Right => (
                    Point::new(pct(w, 10), pct(h, 50)),
                    Point::new(pct(w, 90), pct(h, 50)),
                ),
                Direction::Left => (
                    Point::new(pct(w, 90), pct(h, 50)),
                    Point::new(pct(w, 10), pct(h, 50)),
                ),
            },
            Some(p) => match dir {
                Direction::Up => (p, Point::new(p.x, pct(h, 10))),
                Direction::Down => (p, Point::new(p.x, pct(h, 90))),
                Direction::Right => (p, Point::new(pct(w, 90), p.y)),
                Direction::Left => (p, Point::new(pct(w, 10), p.y)),
            },
        })
    }

    async fn point(&self, p: PointSpec) -> Result<Point, String> {
        match p {
            PointSpec::Absolute(x, y) => Ok(Point::new(x, y)),
            PointSpec::Percent(x, y) => {
                let (w, h) = self.size().await?;
                Ok(Point::new(w * i32::from(x) / 100, h * i32::from(y) / 100))
            }
        }
    }

    /// The screen's width and height in input coordinates.
    async fn size(&self) -> Result<(i32, i32), String> {
        let s = self.d.screen_size().await.map_err(dev)?;
        let cap = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        Ok((cap(s.width), cap(s.height)))
    }

    /// Waits until two looks at the screen in a row are equal, at most `timeout`;
    /// whether it settled.
    async fn settle(&self, timeout: Duration) -> bool {
        mobile_device::settle::settle_device(self.d, timeout)
            .await
            .settled
    }
}

/// The share of `e`'s area on screen (Maestro's `UiElement.getVisiblePercentage`).
fn visible_share(e: &Element, width: i32, height: i32) -> f64 {
    let r = e.rect;
    if r.width <= 0 || r.height <= 0 {
        return 0.0;
    }
    let vx = ((r.x + r.width).min(width) - r.x.max(0)).max(0);
    let vy = ((r.y + r.height).min(height) - r.y.max(0)).max(0);
    f64::from(vx * vy) / f64::from(r.width * r.height)
}

/// A Maestro key name (`KeyCode.kt`'s descriptions, case-insensitive) as our button.
fn key(name: &str) -> Option<Button> {
    let n = name.trim().to_ascii_lowercase();
    let b = match n.as_str() {
        "backspace" => Button::Delete,
        "remote dpad up" => Button::DpadUp,
        "remote dpad down" => Button::DpadDown,
        "remote dpad left" => Button::DpadLeft,
        "remote dpad right" => Button::DpadRight,
        "remote dpad center" => Button::DpadCenter,
        _ => return Button::parse(&n),
    };
    Some(b)
}

/// An element as a report names it.
pub(crate) fn describe(e: &Element) -> String {
    let short_type = e.element_type.rsplit('.').next().unwrap_or(&e.element_type);
    let mut s = short_type.to_string();
    if let Some(t) = e.text.as_deref().filter(|t| !t.is_empty()) {
        s.push_str(&format!(" {t:?}"));
    } else if let Some(l) = e.label.as_deref().filter(|t| !t.is_empty()) {
        s.push_str(&format!(" label {l:?}"));
    }
    if let Some(id) = e.identifier.as_deref().filter(|t| !t.is_empty()) {
        s.push_str(&format!(" id {id:?}"));
    }
    let c = e.rect.center();
    s.push_str(&format!(" at {},{}", c.x, c.y));
    s
}

fn dev(e: DeviceError) -> String {
    e.to_string()
}
